//! The soundtrack of a render: every audible `<audio>`/`<video>` element of the composition,
//! decoded, resampled to 48 kHz stereo and mixed at its timeline position in one pass over the
//! whole timeline, then encoded once. It is not chunked, so chunk seams cannot click or drift; the
//! concat step muxes it beside the joined video. The page's own copy of audio it cannot play is
//! made here too (proxy.rs), from the same decode.

mod ceiling;
mod decode;
mod encode;
mod proxy;
mod stored;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::{MediaError, OutputFormat};
pub(crate) use encode::{encode, EncodedAudio};
pub use proxy::{flac_proxy, AudioProxyStats};

/// The output sample rate.
pub const SAMPLE_RATE: u32 = 48_000;
const CHANNELS: usize = 2;

/// One media element on the timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioTrack {
    /// A local media file; a file without an audio stream (a silent video) adds nothing.
    pub source: PathBuf,
    /// Composition time at which the element starts playing.
    pub start_seconds: f64,
    /// The element's own time at `start_seconds` (its `currentTime` offset).
    pub offset_seconds: f64,
    /// `playbackRate`; the pitch follows the rate (no time stretching).
    pub playback_rate: f64,
    pub looped: bool,
    /// Gain, 0 to [`MAX_VOLUME`] (`data-volume` may boost a quiet source).
    pub volume: f64,
    /// Composition time at which the element stops (trimmed); `None`: at its source's end.
    pub end_seconds: Option<f64>,
    /// The gain over time when the page moves it, as (composition time, gain) in time order;
    /// linear in between, the first before it and the last after it. Empty: `volume` throughout.
    pub volume_points: Vec<(f64, f64)>,
}

/// The largest gain: +12 dB, HyperFrames' limit for `data-volume`.
pub const MAX_VOLUME: f64 = 3.98;

/// The whole soundtrack: its tracks, and the length of the output.
#[derive(Debug, Clone, PartialEq)]
pub struct AudioMix {
    pub tracks: Vec<AudioTrack>,
    pub duration_seconds: f64,
}

impl AudioMix {
    fn validate(&self) -> Result<(), MediaError> {
        let invalid = |message: String| Err(MediaError::InvalidOptions(message));
        if !(self.duration_seconds > 0.0 && self.duration_seconds.is_finite()) {
            return invalid(format!(
                "the audio duration must be positive, got {}",
                self.duration_seconds
            ));
        }
        for track in &self.tracks {
            let name = track.source.display();
            if !(track.playback_rate > 0.0 && track.playback_rate <= 16.0) {
                return invalid(format!(
                    "{name}: playbackRate must be above 0 and at most 16, got {}",
                    track.playback_rate
                ));
            }
            if !(0.0..=MAX_VOLUME).contains(&track.volume) {
                return invalid(format!(
                    "{name}: volume must be 0 to {MAX_VOLUME}, got {}",
                    track.volume
                ));
            }
            if let Some(end) = track.end_seconds {
                if !end.is_finite() {
                    return invalid(format!("{name}: the end must be finite, got {end}"));
                }
            }
            let mut previous = f64::NEG_INFINITY;
            for &(time, volume) in &track.volume_points {
                if !(time.is_finite() && time >= previous) {
                    return invalid(format!(
                        "{name}: volume points must be finite and in time order, got {time} after {previous}"
                    ));
                }
                if !(0.0..=MAX_VOLUME).contains(&volume) {
                    return invalid(format!(
                        "{name}: a volume point must be 0 to {MAX_VOLUME}, got {volume}"
                    ));
                }
                previous = time;
            }
            if !(track.start_seconds.is_finite() && track.offset_seconds.is_finite() && track.offset_seconds >= 0.0) {
                return invalid(format!(
                    "{name}: start and offset must be finite and the offset not negative, got {} and {}",
                    track.start_seconds, track.offset_seconds
                ));
            }
        }
        Ok(())
    }
}

/// A soundtrack mixed and encoded before the concat that muxes it, for one output format: a render
/// starts it while its frames are drawn, so the concat at the end only copies its packets.
pub struct EncodedSoundtrack {
    pub(crate) audio: EncodedAudio,
    pub(crate) format: OutputFormat,
}

impl EncodedSoundtrack {
    /// Mixes and encodes `mix` as the concat of a `format` output would; `None` when it has no
    /// track (such an output has no audio stream).
    pub fn encode(mix: &AudioMix, format: OutputFormat) -> Result<Option<Self>, MediaError> {
        if mix.tracks.is_empty() {
            return Ok(None);
        }
        let global_header = crate::libav::container_global_header(format.container());
        Ok(Some(EncodedSoundtrack {
            audio: encode(&self::mix(mix)?, format, global_header)?,
            format,
        }))
    }

    /// Writes the soundtrack to `path`, to be muxed by later concats of its format ([`Self::load`]).
    pub fn save(&self, path: &Path) -> Result<(), MediaError> {
        stored::save(&self.audio, self.format, path)
    }

    /// Reads back what [`Self::save`] wrote for a `format` output: a concat muxes it as it would
    /// have muxed the soundtrack that was saved.
    pub fn load(path: &Path, format: OutputFormat) -> Result<Self, MediaError> {
        let global_header = crate::libav::container_global_header(format.container());
        Ok(EncodedSoundtrack {
            audio: stored::load(path, format, global_header)?,
            format,
        })
    }
}

impl fmt::Debug for EncodedSoundtrack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EncodedSoundtrack")
            .field("format", &self.format)
            .field("packets", &self.audio.packets.len())
            .finish()
    }
}

/// Mixes the tracks into interleaved stereo f32 samples covering exactly the mix's duration, under
/// the true-peak ceiling ([`ceiling`]).
pub(crate) fn mix(mix: &AudioMix) -> Result<Vec<f32>, MediaError> {
    mix.validate()?;
    let frames = (mix.duration_seconds * SAMPLE_RATE as f64).round() as usize;
    let mut out = vec![0f32; frames * CHANNELS];
    for track in &mix.tracks {
        let Some(source) = decode::decode(&track.source, track.playback_rate)? else {
            continue;
        };
        place(&mut out, &source, track);
    }
    ceiling::apply(&mut out)?;
    Ok(out)
}

/// Adds `source` (already at output speed) into `out` from the track's start, looping if asked,
/// until its end, at its gain.
fn place(out: &mut [f32], source: &[f32], track: &AudioTrack) {
    let length = source.len() / CHANNELS;
    if length == 0 {
        return;
    }
    let rate = SAMPLE_RATE as f64;
    let start = (track.start_seconds * rate).round() as i64;
    // The offset is in the element's own time; the decoded source already runs at output speed.
    let offset = (track.offset_seconds / track.playback_rate * rate).round() as i64;
    let frames = out.len() / CHANNELS;
    let end = track
        .end_seconds
        .map_or(frames, |end| ((end * rate).round().max(0.0) as usize).min(frames));
    let mut gain = Gain::new(track);
    for n in start.max(0) as usize..end {
        let mut k = offset + (n as i64 - start);
        if track.looped {
            k %= length as i64;
        } else if k >= length as i64 {
            break;
        }
        let k = k as usize;
        let volume = gain.at(n as f64 / rate);
        for c in 0..CHANNELS {
            out[n * CHANNELS + c] += volume * source[k * CHANNELS + c];
        }
    }
}

/// A track's gain at increasing times: its volume points interpolated, or its static volume.
struct Gain<'a> {
    points: &'a [(f64, f64)],
    fixed: f32,
    /// The index of the last point at or before the time last asked for.
    cursor: usize,
}

impl<'a> Gain<'a> {
    fn new(track: &'a AudioTrack) -> Self {
        Gain {
            points: &track.volume_points,
            fixed: track.volume as f32,
            cursor: 0,
        }
    }

    /// The gain at `time`; times must not decrease from one call to the next.
    fn at(&mut self, time: f64) -> f32 {
        let points = self.points;
        match points {
            [] => self.fixed,
            [only] => only.1 as f32,
            _ => {
                while self.cursor + 1 < points.len() && points[self.cursor + 1].0 <= time {
                    self.cursor += 1;
                }
                let (t0, v0) = points[self.cursor];
                if time <= t0 || self.cursor + 1 == points.len() {
                    return v0 as f32;
                }
                let (t1, v1) = points[self.cursor + 1];
                (v0 + (v1 - v0) * (time - t0) / (t1 - t0)) as f32
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(start: f64, offset: f64, looped: bool) -> AudioTrack {
        AudioTrack {
            source: PathBuf::new(),
            start_seconds: start,
            offset_seconds: offset,
            playback_rate: 1.0,
            looped,
            volume: 0.5,
            end_seconds: None,
            volume_points: Vec::new(),
        }
    }

    #[test]
    fn places_a_track_at_its_start_and_offset_with_its_volume_and_loops() {
        // 3 stereo frames of source: 1, 2, 3.
        let source = [1.0, 1.0, 2.0, 2.0, 3.0, 3.0];
        let frames = 8;
        let per_second = SAMPLE_RATE as f64;
        let mut out = vec![0f32; frames * 2];
        place(&mut out, &source, &track(2.0 / per_second, 1.0 / per_second, false));
        let left: Vec<f32> = out.iter().step_by(2).copied().collect();
        assert_eq!(left, [0.0, 0.0, 1.0, 1.5, 0.0, 0.0, 0.0, 0.0]);

        let mut out = vec![0f32; frames * 2];
        place(&mut out, &source, &track(1.0 / per_second, 0.0, true));
        let left: Vec<f32> = out.iter().step_by(2).copied().collect();
        assert_eq!(left, [0.0, 0.5, 1.0, 1.5, 0.5, 1.0, 1.5, 0.5]);
    }

    #[test]
    fn stops_at_the_end_and_follows_the_volume_points() {
        let source = [1.0; 16];
        let per_second = SAMPLE_RATE as f64;
        let mut out = vec![0f32; 8 * 2];
        let mut trimmed = track(0.0, 0.0, false);
        trimmed.end_seconds = Some(3.0 / per_second);
        place(&mut out, &source, &trimmed);
        let left: Vec<f32> = out.iter().step_by(2).copied().collect();
        assert_eq!(left, [0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0]);

        let mut out = vec![0f32; 8 * 2];
        let mut ramp = track(0.0, 0.0, false);
        ramp.volume_points = vec![(2.0 / per_second, 0.0), (6.0 / per_second, 1.0)];
        place(&mut out, &source, &ramp);
        let left: Vec<f32> = out.iter().step_by(2).copied().collect();
        assert_eq!(left, [0.0, 0.0, 0.0, 0.25, 0.5, 0.75, 1.0, 1.0]);
    }

    #[test]
    fn refuses_volume_points_out_of_order_or_range() {
        let mut mix = AudioMix {
            tracks: vec![track(0.0, 0.0, false)],
            duration_seconds: 1.0,
        };
        mix.tracks[0].volume_points = vec![(0.5, 0.2), (0.1, 0.3)];
        assert!(mix.validate().is_err());
        mix.tracks[0].volume_points = vec![(0.1, 5.0)];
        assert!(mix.validate().is_err());
        mix.tracks[0].volume_points = vec![(0.1, 0.0), (0.2, 3.98)];
        assert!(mix.validate().is_ok());
    }
}
