//! The soundtrack's true-peak ceiling, as HyperFrames delivers its AAC: when the mix's true peak
//! (EBU R 128, 4x oversampled) is above -1 dBTP, the whole soundtrack is turned down so that it
//! peaks at -1.5 dBTP (the ceiling less HyperFrames' 0.5 dB of headroom for the encoder); a mix
//! under the ceiling is left as it is. One gain for the whole track, not a limiter: loud overlapping
//! sound effects make every part of the video quieter by the same amount, as they do in HyperFrames
//! (which measures its encoded AAC and lowers it again until it is under the ceiling).
//! Clipping at full scale afterwards only guards against what the meter cannot see.

use super::{CHANNELS, SAMPLE_RATE};
use crate::MediaError;

/// The highest true peak a soundtrack may have, dBTP.
pub const CEILING_DBTP: f64 = -1.0;
/// Where a soundtrack over the ceiling is brought down to, dBTP.
pub const TARGET_DBTP: f64 = -1.5;

/// The true peak of interleaved stereo samples, dBTP (-inf for silence).
pub fn true_peak_dbtp(samples: &[f32]) -> Result<f64, MediaError> {
    let metering =
        |e: ebur128::Error| MediaError::InvalidOptions(format!("measuring the soundtrack's true peak: {e:?}"));
    let mut meter = ebur128::EbuR128::new(CHANNELS as u32, SAMPLE_RATE, ebur128::Mode::TRUE_PEAK).map_err(metering)?;
    meter.add_frames_f32(samples).map_err(metering)?;
    let mut peak = 0f64;
    for channel in 0..CHANNELS as u32 {
        peak = peak.max(meter.true_peak(channel).map_err(metering)?);
    }
    Ok(20.0 * peak.log10())
}

/// Applies the ceiling in place; returns the gain applied in dB (0 when under it).
pub fn apply(samples: &mut [f32]) -> Result<f64, MediaError> {
    let peak = true_peak_dbtp(samples)?;
    let lowered = if peak > CEILING_DBTP { TARGET_DBTP - peak } else { 0.0 };
    if lowered < 0.0 {
        let gain = 10f64.powf(lowered / 20.0) as f32;
        for sample in samples.iter_mut() {
            *sample *= gain;
        }
    }
    for sample in samples.iter_mut() {
        *sample = sample.clamp(-1.0, 1.0);
    }
    Ok(lowered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sine(amplitude: f32, seconds: f64) -> Vec<f32> {
        let frames = (seconds * SAMPLE_RATE as f64) as usize;
        (0..frames)
            .flat_map(|n| {
                let v = amplitude * (2.0 * std::f32::consts::PI * 997.0 * n as f32 / SAMPLE_RATE as f32).sin();
                [v, v]
            })
            .collect()
    }

    #[test]
    fn a_mix_over_the_ceiling_is_turned_down_to_the_target_as_a_whole() {
        // 2.0 is +6 dBTP: every sample ends 7.5 dB lower, none clipped.
        let mut loud = sine(2.0, 1.0);
        let lowered = apply(&mut loud).unwrap();
        assert!((lowered + 7.52).abs() < 0.1, "{lowered}");
        let after = true_peak_dbtp(&loud).unwrap();
        assert!((after - TARGET_DBTP).abs() < 0.05, "{after}");
    }

    #[test]
    fn a_mix_under_the_ceiling_is_left_as_it_is() {
        // 0.85 is -1.4 dBTP.
        let mut quiet = sine(0.85, 1.0);
        let before = quiet.clone();
        assert_eq!(apply(&mut quiet).unwrap(), 0.0);
        assert_eq!(quiet, before);
    }
}
