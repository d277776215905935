//! The soundtrack of a render: every audible `<audio>`/`<video>` element of the composition,
//! decoded, resampled to 48 kHz stereo and mixed at its timeline position in one pass over the
//! whole timeline, then encoded once. It is not chunked, so chunk seams cannot click or drift; the
//! concat step muxes it beside the joined video.

mod decode;
mod encode;

use std::path::PathBuf;

use crate::MediaError;
pub(crate) use encode::encode;

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
    /// 0 to 1.
    pub volume: f64,
}

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
            if !(0.0..=1.0).contains(&track.volume) {
                return invalid(format!("{name}: volume must be 0 to 1, got {}", track.volume));
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

/// Mixes the tracks into interleaved stereo f32 samples covering exactly the mix's duration.
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
    for sample in &mut out {
        *sample = sample.clamp(-1.0, 1.0);
    }
    Ok(out)
}

/// Adds `source` (already at output speed) into `out` from the track's start, looping if asked.
fn place(out: &mut [f32], source: &[f32], track: &AudioTrack) {
    let length = source.len() / CHANNELS;
    if length == 0 {
        return;
    }
    let rate = SAMPLE_RATE as f64;
    let start = (track.start_seconds * rate).round() as i64;
    // The offset is in the element's own time; the decoded source already runs at output speed.
    let offset = (track.offset_seconds / track.playback_rate * rate).round() as i64;
    let volume = track.volume as f32;
    let frames = out.len() / CHANNELS;
    for n in start.max(0) as usize..frames {
        let mut k = offset + (n as i64 - start);
        if track.looped {
            k %= length as i64;
        } else if k >= length as i64 {
            break;
        }
        let k = k as usize;
        for c in 0..CHANNELS {
            out[n * CHANNELS + c] += volume * source[k * CHANNELS + c];
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
}
