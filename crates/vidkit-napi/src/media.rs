//! `concatSegments`, `probe` and `mediaForPage`: file work on the libuv pool.

use std::path::PathBuf;

use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;
use vidkit_media::{
    concat_segments as concat, page_media, probe as probe_file, AudioMix, AudioTrack, ConcatOptions as Joining,
    ConcatStats, EncodedSoundtrack as Encoded, ErrorCode, OutputFormat, PageMedia, ProbeResult, Soundtrack,
};

use crate::encoder::output_format;
use crate::js::{Failure, Outcome};

#[napi(object)]
pub struct ConcatOptions {
    /// Put the MP4 index first so playback can start while downloading.
    pub faststart: Option<bool>,
    /// The segments' format: mp4 (default), webm, mov, hdr-pq or hdr-hlg.
    #[napi(ts_type = "'mp4' | 'webm' | 'mov' | 'hdr-pq' | 'hdr-hlg'")]
    pub format: Option<String>,
    /// The render's soundtrack, mixed and encoded once and muxed beside the video.
    pub audio: Option<SoundtrackOptions>,
}

/// One media element on the timeline (times in seconds).
#[napi(object)]
pub struct SoundtrackTrack {
    /// A local media file; one without an audio stream adds nothing.
    pub source: String,
    pub start: f64,
    pub offset: f64,
    pub playback_rate: f64,
    pub looped: bool,
    /// 0 to 3.98.
    pub volume: f64,
    /// Composition time at which it stops; absent: at its source's end.
    pub end: Option<f64>,
    /// Its volume over time, in time order, when the page moves it; absent: `volume` throughout.
    pub volumes: Option<Vec<VolumePoint>>,
}

/// The volume of a track at one composition time.
#[napi(object)]
pub struct VolumePoint {
    pub time: f64,
    pub volume: f64,
}

#[napi(object)]
pub struct SoundtrackOptions {
    pub tracks: Vec<SoundtrackTrack>,
    pub duration_seconds: f64,
}

#[napi(object)]
pub struct ConcatResult {
    pub frames: i64,
    pub bytes: i64,
}

pub struct Concat {
    inputs: Vec<PathBuf>,
    output: PathBuf,
    options: Outcome<Joining>,
}

impl Task for Concat {
    type Output = Outcome<ConcatStats>;
    type JsValue = ConcatResult;

    fn compute(&mut self) -> napi::Result<Outcome<ConcatStats>> {
        let options = std::mem::replace(&mut self.options, Ok(Joining::default()));
        Ok(options.and_then(|options| concat(&self.inputs, &self.output, &options).map_err(Failure::from)))
    }

    fn resolve(&mut self, env: Env, stats: Outcome<ConcatStats>) -> napi::Result<ConcatResult> {
        let stats = stats.map_err(|f| f.into_js(env))?;
        Ok(ConcatResult {
            frames: stats.frames as i64,
            bytes: stats.bytes as i64,
        })
    }
}

/// Joins encoder segments, in order, by stream copy into one file of their format. `soundtrack`
/// (from `encodeSoundtrack` for the same format) is muxed instead of mixing `options.audio`; a
/// concat uses it up.
#[napi(ts_return_type = "Promise<ConcatResult>")]
pub fn concat_segments(
    inputs: Vec<String>,
    output: String,
    options: Option<ConcatOptions>,
    soundtrack: Option<&mut EncodedSoundtrack>,
) -> AsyncTask<Concat> {
    let options = options.unwrap_or(ConcatOptions {
        faststart: None,
        format: None,
        audio: None,
    });
    let audio = match soundtrack {
        Some(encoded) => encoded
            .soundtrack
            .take()
            .map(|encoded| Some(Soundtrack::Encoded(encoded)))
            .ok_or_else(|| {
                Failure::new(
                    ErrorCode::Failed,
                    "this encoded soundtrack was muxed already; encode it again",
                )
            }),
        None => Ok(options.audio.map(|a| Soundtrack::Mix(mix_of(a)))),
    };
    let joining = audio.and_then(|audio| {
        output_format(options.format.as_deref()).map(|format| Joining {
            format,
            faststart: options.faststart.unwrap_or(false),
            audio,
        })
    });
    AsyncTask::new(Concat {
        inputs: inputs.into_iter().map(PathBuf::from).collect(),
        output: output.into(),
        options: joining,
    })
}

/// A soundtrack mixed and encoded ahead of the concat that muxes it (`encodeSoundtrack`).
#[napi]
pub struct EncodedSoundtrack {
    soundtrack: Option<Encoded>,
}

pub struct EncodeSoundtrack {
    mix: AudioMix,
    format: Outcome<OutputFormat>,
}

impl Task for EncodeSoundtrack {
    type Output = Outcome<Option<Encoded>>;
    type JsValue = Option<EncodedSoundtrack>;

    fn compute(&mut self) -> napi::Result<Outcome<Option<Encoded>>> {
        let format = std::mem::replace(&mut self.format, Ok(OutputFormat::Mp4));
        Ok(format.and_then(|format| Encoded::encode(&self.mix, format).map_err(Failure::from)))
    }

    fn resolve(&mut self, env: Env, encoded: Outcome<Option<Encoded>>) -> napi::Result<Option<EncodedSoundtrack>> {
        let encoded = encoded.map_err(|f| f.into_js(env))?;
        Ok(encoded.map(|soundtrack| EncodedSoundtrack {
            soundtrack: Some(soundtrack),
        }))
    }
}

/// Mixes and encodes a soundtrack for a `format` output (the `format` of `concatSegments`, mp4 by
/// default) on the libuv pool, so a render can do it while its frames are drawn; null when it has
/// no track.
#[napi(ts_return_type = "Promise<EncodedSoundtrack | null>")]
pub fn encode_soundtrack(
    audio: SoundtrackOptions,
    #[napi(ts_arg_type = "'mp4' | 'webm' | 'mov' | 'hdr-pq' | 'hdr-hlg'")] format: Option<String>,
) -> AsyncTask<EncodeSoundtrack> {
    AsyncTask::new(EncodeSoundtrack {
        mix: mix_of(audio),
        format: output_format(format.as_deref()),
    })
}

pub struct KeepSoundtrack {
    mix: AudioMix,
    format: Outcome<OutputFormat>,
    path: PathBuf,
}

impl Task for KeepSoundtrack {
    type Output = Outcome<bool>;
    type JsValue = bool;

    fn compute(&mut self) -> napi::Result<Outcome<bool>> {
        let format = std::mem::replace(&mut self.format, Ok(OutputFormat::Mp4));
        Ok(format.and_then(|format| {
            let encoded = Encoded::encode(&self.mix, format).map_err(Failure::from)?;
            match encoded {
                Some(encoded) => encoded.save(&self.path).map(|()| true).map_err(Failure::from),
                None => Ok(false),
            }
        }))
    }

    fn resolve(&mut self, env: Env, kept: Outcome<bool>) -> napi::Result<bool> {
        kept.map_err(|f| f.into_js(env))
    }
}

/// Mixes and encodes a soundtrack for a `format` output, as `encodeSoundtrack` does, into the file
/// `path` (written whole or not at all), for `readSoundtrack` to hand to any number of concats;
/// false, and no file, when it has no track.
#[napi(ts_return_type = "Promise<boolean>")]
pub fn keep_soundtrack(
    audio: SoundtrackOptions,
    #[napi(ts_arg_type = "'mp4' | 'webm' | 'mov' | 'hdr-pq' | 'hdr-hlg'")] format: String,
    path: String,
) -> AsyncTask<KeepSoundtrack> {
    AsyncTask::new(KeepSoundtrack {
        mix: mix_of(audio),
        format: output_format(Some(&format)),
        path: path.into(),
    })
}

pub struct ReadSoundtrack {
    path: PathBuf,
    format: Outcome<OutputFormat>,
}

impl Task for ReadSoundtrack {
    type Output = Outcome<Encoded>;
    type JsValue = EncodedSoundtrack;

    fn compute(&mut self) -> napi::Result<Outcome<Encoded>> {
        let format = std::mem::replace(&mut self.format, Ok(OutputFormat::Mp4));
        Ok(format.and_then(|format| Encoded::load(&self.path, format).map_err(Failure::from)))
    }

    fn resolve(&mut self, env: Env, encoded: Outcome<Encoded>) -> napi::Result<EncodedSoundtrack> {
        let encoded = encoded.map_err(|f| f.into_js(env))?;
        Ok(EncodedSoundtrack {
            soundtrack: Some(encoded),
        })
    }
}

/// The soundtrack `keepSoundtrack` wrote to `path`, for one concat of a `format` output: its
/// packets are muxed as the concat would have muxed the soundtrack it was mixed from.
#[napi(ts_return_type = "Promise<EncodedSoundtrack>")]
pub fn read_soundtrack(
    path: String,
    #[napi(ts_arg_type = "'mp4' | 'webm' | 'mov' | 'hdr-pq' | 'hdr-hlg'")] format: String,
) -> AsyncTask<ReadSoundtrack> {
    AsyncTask::new(ReadSoundtrack {
        path: path.into(),
        format: output_format(Some(&format)),
    })
}

fn mix_of(a: SoundtrackOptions) -> AudioMix {
    AudioMix {
        duration_seconds: a.duration_seconds,
        tracks: a
            .tracks
            .into_iter()
            .map(|t| AudioTrack {
                source: t.source.into(),
                start_seconds: t.start,
                offset_seconds: t.offset,
                playback_rate: t.playback_rate,
                looped: t.looped,
                volume: t.volume,
                end_seconds: t.end,
                volume_points: t
                    .volumes
                    .unwrap_or_default()
                    .into_iter()
                    .map(|p| (p.time, p.volume))
                    .collect(),
            })
            .collect(),
    }
}

#[napi(object, js_name = "ProbeStream")]
pub struct JsProbeStream {
    pub index: u32,
    #[napi(ts_type = "'video' | 'audio' | 'other'")]
    pub kind: String,
    pub codec: String,
    pub profile: String,
    pub width: u32,
    pub height: u32,
    pub pix_fmt: String,
    pub fps: f64,
    pub frame_count: i64,
    pub duration_seconds: f64,
    pub color_space: String,
    pub color_transfer: String,
    pub color_primaries: String,
    pub color_range: String,
}

#[napi(object, js_name = "ProbeResult")]
pub struct JsProbeResult {
    pub format_name: String,
    pub duration_seconds: f64,
    pub streams: Vec<JsProbeStream>,
}

pub struct Probe {
    path: PathBuf,
}

impl Task for Probe {
    type Output = Outcome<ProbeResult>;
    type JsValue = JsProbeResult;

    fn compute(&mut self) -> napi::Result<Outcome<ProbeResult>> {
        Ok(probe_file(&self.path).map_err(Failure::from))
    }

    fn resolve(&mut self, env: Env, probed: Outcome<ProbeResult>) -> napi::Result<JsProbeResult> {
        let probed = probed.map_err(|f| f.into_js(env))?;
        Ok(JsProbeResult {
            format_name: probed.format_name,
            duration_seconds: probed.duration_seconds,
            streams: probed
                .streams
                .into_iter()
                .map(|s| JsProbeStream {
                    index: s.index,
                    kind: s.kind,
                    codec: s.codec,
                    profile: s.profile,
                    width: s.width,
                    height: s.height,
                    pix_fmt: s.pix_fmt,
                    fps: s.fps,
                    frame_count: s.frame_count as i64,
                    duration_seconds: s.duration_seconds,
                    color_space: s.color_space,
                    color_transfer: s.color_transfer,
                    color_primaries: s.color_primaries,
                    color_range: s.color_range,
                })
                .collect(),
        })
    }
}

/// Describes a media file's container and streams.
#[napi(ts_return_type = "Promise<ProbeResult>")]
pub fn probe(path: String) -> AsyncTask<Probe> {
    AsyncTask::new(Probe { path: path.into() })
}

pub struct PageMediaTask {
    input: PathBuf,
    proxy_stem: PathBuf,
}

impl Task for PageMediaTask {
    type Output = Outcome<PageMedia>;
    type JsValue = Option<String>;

    fn compute(&mut self) -> napi::Result<Outcome<PageMedia>> {
        Ok(page_media(&self.input, &self.proxy_stem).map_err(Failure::from))
    }

    fn resolve(&mut self, env: Env, media: Outcome<PageMedia>) -> napi::Result<Option<String>> {
        Ok(match media.map_err(|f| f.into_js(env))? {
            PageMedia::Source => None,
            PageMedia::AudioProxy(path) => Some(path.to_string_lossy().into_owned()),
        })
    }
}

/// What the page plays for a media file the browser loads (audio; a video file played as audio):
/// writes a FLAC copy of audio the browser does not play to `<proxyStem>.flac` and resolves to its
/// path, or to null when the page plays the file itself, which then decodes.
/// Rejects naming libav's reason when the file cannot be decoded.
#[napi(ts_return_type = "Promise<string | null>")]
pub fn media_for_page(input: String, proxy_stem: String) -> AsyncTask<PageMediaTask> {
    AsyncTask::new(PageMediaTask {
        input: input.into(),
        proxy_stem: proxy_stem.into(),
    })
}
