//! Joins segments made by the [`crate::Encoder`] into one file by stream copy, and muxes the
//! render's soundtrack ([`Soundtrack`]), mixed and encoded once for the whole timeline, beside it.
//!
//! Each segment starts at pts 0 (its first packet is a closed-GOP IDR); its packets are shifted
//! by the summed durations of the segments before it. With B-frames a segment's dts starts below
//! its pts (negative in a lone segment), and because every segment has the same reorder delay the
//! shifted dts still continue exactly where the previous segment's left off.

use std::collections::VecDeque;
use std::fs;
use std::path::{Path, PathBuf};

use ffmpeg::format::context::{Input, Output};
use ffmpeg::{codec, encoder, media, Dictionary, Packet, Rational, Rescale};
use ffmpeg_next as ffmpeg;

use crate::audio::{self, AudioMix, EncodedAudio, EncodedSoundtrack};
use crate::error::Cause;
use crate::libav::{self, pixel_format_name};
use crate::{MediaError, OutputFormat};

/// How to join: the segments' format (which picks the container) and the MP4/MOV index position.
#[derive(Debug)]
pub struct ConcatOptions {
    pub format: OutputFormat,
    /// Put the index (moov) before the media data (MP4 and MOV).
    pub faststart: bool,
    /// The soundtrack; `None` (or a mix without an audible track) writes no audio stream.
    pub audio: Option<Soundtrack>,
}

/// The soundtrack muxed beside the video: mixed and encoded by the concat, or beforehand.
#[derive(Debug)]
pub enum Soundtrack {
    Mix(AudioMix),
    /// Encoded for the concat's own format.
    Encoded(EncodedSoundtrack),
}

impl Default for ConcatOptions {
    fn default() -> Self {
        ConcatOptions {
            format: OutputFormat::Mp4,
            faststart: false,
            audio: None,
        }
    }
}

/// What a concat produced.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConcatStats {
    /// Video packets written, one a frame.
    pub frames: u64,
    pub bytes: u64,
    pub duration_seconds: f64,
}

/// Stream-copies the video of `inputs`, in order, into one file of the format's container at
/// `output`. With `faststart` the index (moov) goes before the media data so playback can start
/// while downloading. On error no output file is left behind.
pub fn concat_segments(inputs: &[PathBuf], output: &Path, options: &ConcatOptions) -> Result<ConcatStats, MediaError> {
    libav::init();
    if inputs.is_empty() {
        return Err(MediaError::Usage("concatSegments needs at least one segment".into()));
    }
    // Creating the output truncates it: it must not be one of the segments being read.
    if let Some(index) = inputs.iter().position(|input| same_file(input, output)) {
        return Err(MediaError::Usage(format!(
            "the concat output {} is also segment {index}; write the joined file to another path",
            output.display()
        )));
    }
    // Open and compare every segment before creating the output, so a mismatch costs nothing.
    let mut segments = inputs
        .iter()
        .enumerate()
        .map(|(index, path)| Segment::open(index, path))
        .collect::<Result<Vec<_>, _>>()?;
    for segment in &segments[1..] {
        segment.check_joinable(&segments[0])?;
    }
    let result = write_joined(&mut segments, output, options);
    if result.is_err() {
        // The error is what the caller needs; a failed cleanup of a partial file is secondary.
        let _ = fs::remove_file(output);
    }
    result
}

fn write_joined(segments: &mut [Segment], output: &Path, options: &ConcatOptions) -> Result<ConcatStats, MediaError> {
    let writing = |what: &str, e: ffmpeg::Error| MediaError::io(output, Cause::of(format!("cannot write {what}"), e));
    let container = options.format.container();
    let mut joined = ffmpeg::format::output_as(output, container)
        .map_err(|e| MediaError::io(output, Cause::of("cannot create the output file", e)))?;
    let first = &segments[0];
    let mut stream = joined
        .add_stream(encoder::find(codec::Id::None))
        .map_err(|e| MediaError::libav("adding the video stream", e))?;
    stream.set_parameters(first.parameters.clone());
    if container != "mov" {
        // SAFETY: the stream's parameters were just allocated by libav and nothing else holds
        // them. The MP4 and WebM muxers pick their own tag; a copied one can be refused. MOV keeps
        // it: it names the ProRes flavour (ap4h is 4444).
        unsafe { (*stream.parameters().as_mut_ptr()).codec_tag = 0 };
    }
    // The WebM demuxer reports VP9 with alpha as plain yuv420p and keeps the alpha flag as
    // metadata; the muxer needs it back to declare the alpha that the packets carry.
    stream.set_metadata(first.metadata.clone());
    stream.set_time_base(first.time_base);
    stream.set_avg_frame_rate(first.frame_rate);

    // The rule an encoding made ahead (EncodedSoundtrack) was made by: the same muxer, by name.
    let global_header = libav::container_global_header(container);
    let mixed: EncodedAudio;
    let soundtrack = match &options.audio {
        Some(Soundtrack::Mix(mix)) if !mix.tracks.is_empty() => {
            mixed = audio::encode(&audio::mix(mix)?, options.format, global_header)?;
            Some(&mixed)
        }
        Some(Soundtrack::Encoded(encoded)) if encoded.format != options.format => {
            return Err(MediaError::Usage(format!(
                "the soundtrack was encoded for {}, not for this {} output",
                encoded.format.name(),
                options.format.name()
            )));
        }
        Some(Soundtrack::Encoded(encoded)) => Some(&encoded.audio),
        _ => None,
    };
    if let Some(encoded) = soundtrack {
        let mut stream = joined
            .add_stream(encoder::find(codec::Id::None))
            .map_err(|e| MediaError::libav("adding the audio stream", e))?;
        stream.set_parameters(&encoded.encoder);
        stream.set_time_base(encoded.time_base);
    }

    let mut muxer_options = Dictionary::new();
    if options.faststart && container != "webm" {
        muxer_options.set("movflags", "+faststart");
    }
    joined
        .write_header_with(muxer_options)
        .map_err(|e| writing("the header", e))?;
    let time_base = joined.stream(0).expect("the stream was just added").time_base();
    let mut audio = AudioQueue {
        packets: soundtrack
            .map(|a| a.packets.iter().cloned().collect())
            .unwrap_or_default(),
        time_base: soundtrack.map_or(Rational::new(1, 1), |a| a.time_base),
        stream_time_base: joined.stream(1).map_or(Rational::new(1, 1), |s| s.time_base()),
    };

    let mut cursor = Cursor {
        time_base,
        offset: 0,
        last_dts: None,
        frames: 0,
    };
    for segment in segments.iter_mut() {
        segment.copy_into(&mut joined, &mut cursor, &mut audio, output)?;
    }
    audio.write_until(None, &mut joined, output)?;
    joined.write_trailer().map_err(|e| writing("the trailer", e))?;
    drop(joined);

    let bytes = fs::metadata(output).map_err(|e| MediaError::io(output, e))?.len();
    let duration_seconds = cursor.offset as f64 * f64::from(time_base);
    Ok(ConcatStats {
        frames: cursor.frames,
        bytes,
        duration_seconds,
    })
}

/// Whether two paths name one existing file (a missing output cannot be an input).
fn same_file(a: &Path, b: &Path) -> bool {
    matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}

/// Encoded audio waiting to be interleaved with the video, in presentation order.
struct AudioQueue {
    packets: VecDeque<Packet>,
    time_base: Rational,
    stream_time_base: Rational,
}

impl AudioQueue {
    /// Writes the audio up to `until` (a time in `video_time_base`), or all of it with `None`, so
    /// the muxer's interleaving queue stays short.
    fn write_until(
        &mut self,
        until: Option<(i64, Rational)>,
        joined: &mut Output,
        output: &Path,
    ) -> Result<(), MediaError> {
        while let Some(packet) = self.packets.front() {
            let dts = packet.dts().unwrap_or(0);
            if let Some((time, time_base)) = until {
                if dts.rescale(self.time_base, time_base) > time {
                    return Ok(());
                }
            }
            let mut packet = self.packets.pop_front().expect("front exists");
            packet.rescale_ts(self.time_base, self.stream_time_base);
            packet.set_stream(1);
            packet.set_position(-1);
            packet
                .write_interleaved(joined)
                .map_err(|e| MediaError::io(output, Cause::of("cannot write an audio packet", e)))?;
        }
        Ok(())
    }
}

/// Where the next segment goes, in the output stream's time base.
struct Cursor {
    time_base: Rational,
    /// End of the media written so far: the start of the next segment.
    offset: i64,
    last_dts: Option<i64>,
    frames: u64,
}

struct Segment {
    index: usize,
    path: PathBuf,
    input: Input,
    stream_index: usize,
    parameters: codec::Parameters,
    time_base: Rational,
    frame_rate: Rational,
    metadata: Dictionary<'static>,
    start_time: Option<i64>,
}

impl Segment {
    fn open(index: usize, path: &Path) -> Result<Self, MediaError> {
        let fail = |message: String| MediaError::Segment {
            index,
            path: path.to_path_buf(),
            message,
        };
        let input = ffmpeg::format::input(path).map_err(|e| fail(format!("cannot open it as a media file: {e}")))?;
        let stream = input
            .streams()
            .best(media::Type::Video)
            .ok_or_else(|| fail("it has no video stream".into()))?;
        let start_time = Some(stream.start_time()).filter(|&t| t != ffmpeg::ffi::AV_NOPTS_VALUE);
        let (stream_index, parameters, time_base, frame_rate, metadata) = (
            stream.index(),
            stream.parameters(),
            stream.time_base(),
            stream.avg_frame_rate(),
            stream.metadata().to_owned(),
        );
        Ok(Segment {
            index,
            path: path.to_path_buf(),
            input,
            stream_index,
            parameters,
            time_base,
            frame_rate,
            metadata,
            start_time,
        })
    }

    fn check_joinable(&self, first: &Segment) -> Result<(), MediaError> {
        let (mine, theirs) = (Shape::of(self), Shape::of(first));
        let fail = |message: String| {
            Err(MediaError::Segment {
                index: self.index,
                path: self.path.clone(),
                message,
            })
        };
        if mine.summary != theirs.summary {
            return fail(format!(
                "{} does not match segment 0's {}; all segments must come from one encoder configuration",
                mine.summary, theirs.summary
            ));
        }
        if mine.extradata != theirs.extradata {
            return fail("its codec parameter sets (SPS/PPS) differ from segment 0's: it was encoded with other settings (preset, profile); re-encode it with the same settings".into());
        }
        Ok(())
    }

    fn copy_into(
        &mut self,
        joined: &mut Output,
        cursor: &mut Cursor,
        audio: &mut AudioQueue,
        output: &Path,
    ) -> Result<(), MediaError> {
        let (index, path) = (self.index, self.path.clone());
        let fail = |message: String| MediaError::Segment {
            index,
            path: path.clone(),
            message,
        };
        let mut start = self.start_time;
        let mut end = cursor.offset;
        for (stream, mut packet) in self.input.packets() {
            if stream.index() != self.stream_index {
                continue;
            }
            let (Some(pts), Some(dts)) = (packet.pts(), packet.dts()) else {
                return Err(fail(
                    "a video packet has no timestamp; only MP4 segments written by the encoder can be joined".into(),
                ));
            };
            // The first packet of a closed GOP is its IDR, the earliest frame to present.
            let start = *start.get_or_insert(pts);
            let shift = |ts: i64| (ts - start).rescale(self.time_base, cursor.time_base) + cursor.offset;
            let (pts, dts) = (shift(pts), shift(dts));
            if cursor.last_dts.is_some_and(|last| dts <= last) {
                return Err(fail("its decode timestamps would overlap the previous segment's; segments must share one encoder configuration".into()));
            }
            let duration = packet.duration().rescale(self.time_base, cursor.time_base);
            packet.set_pts(Some(pts));
            packet.set_dts(Some(dts));
            packet.set_duration(duration);
            packet.set_position(-1);
            packet.set_stream(0);
            audio.write_until(Some((dts, cursor.time_base)), joined, output)?;
            packet
                .write_interleaved(joined)
                .map_err(|e| MediaError::io(output, Cause::of("cannot write a video packet", e)))?;
            end = end.max(pts + duration);
            cursor.last_dts = Some(dts);
            cursor.frames += 1;
        }
        if end == cursor.offset {
            return Err(fail("it has no video frames".into()));
        }
        cursor.offset = end;
        Ok(())
    }
}

/// The parts of a video stream that must be equal for a stream copy to produce one valid stream.
struct Shape {
    summary: String,
    extradata: Vec<u8>,
}

impl Shape {
    fn of(segment: &Segment) -> Shape {
        // SAFETY: the parameters belong to the open input; extradata is extradata_size bytes.
        let raw = unsafe { &*segment.parameters.as_ptr() };
        let extradata = if raw.extradata.is_null() {
            Vec::new()
        } else {
            unsafe { std::slice::from_raw_parts(raw.extradata, raw.extradata_size as usize) }.to_vec()
        };
        let rate = segment.frame_rate;
        let summary = format!(
            "{}x{} {} {} at {}/{} fps",
            raw.width,
            raw.height,
            segment.parameters.id().name(),
            pixel_format_name(&segment.parameters),
            rate.numerator(),
            rate.denominator()
        );
        Shape { summary, extradata }
    }
}
