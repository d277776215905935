//! SDR screenshots to 10-bit BT.2020 Y'CbCr with the PQ or HLG transfer.
//!
//! The browser draws SDR sRGB. Following ITU-R BT.2408, SDR white is placed at the HDR reference
//! white: 203 cd/m² for PQ, and a 75% signal for HLG. Per pixel: sRGB decode to linear light
//! (table), BT.709 to BT.2020 primaries (matrix; BT.709 lies inside BT.2020, so nothing clips),
//! scale to the reference white, then the PQ or HLG curve (a table over 16-bit linear light),
//! then the BT.2020 non-constant-luminance matrix into limited-range 10-bit 4:2:0. Chroma is taken
//! from the mean R'G'B' of each 2×2 block.

use ffmpeg::format::Pixel;
use ffmpeg::frame;
use ffmpeg_next as ffmpeg;

use crate::format::HdrTransfer;

/// BT.709 to BT.2020 primaries, linear light (ITU-R BT.2087).
const PRIMARIES: [[f32; 3]; 3] = [
    [0.6274, 0.3293, 0.0433],
    [0.0691, 0.9195, 0.0114],
    [0.0164, 0.0880, 0.8956],
];
const KR: f32 = 0.2627;
const KB: f32 = 0.0593;
const KG: f32 = 1.0 - KR - KB;
/// Steps of the linear-light table that feeds the transfer curve.
const LINEAR_STEPS: usize = 65_536;

/// SDR white in PQ: 203 cd/m² of PQ's 10 000.
const PQ_REFERENCE_WHITE: f64 = 203.0 / 10_000.0;
/// Scene light that the HLG curve maps to a 75% signal.
const HLG_REFERENCE_WHITE_SIGNAL: f64 = 0.75;
const HLG_A: f64 = 0.178_832_77;
const HLG_B: f64 = 1.0 - 4.0 * HLG_A;
const HLG_C: f64 = 0.559_910_73;

pub(crate) struct HdrConverter {
    to_linear: [f32; 256],
    /// Linear light (0..1 of SDR white, in LINEAR_STEPS steps) to the HDR signal, 0..1.
    to_signal: Vec<f32>,
}

impl HdrConverter {
    pub(crate) fn new(transfer: HdrTransfer) -> Self {
        let mut to_linear = [0f32; 256];
        for (code, value) in to_linear.iter_mut().enumerate() {
            *value = srgb_to_linear(code as f64 / 255.0) as f32;
        }
        let white = match transfer {
            HdrTransfer::Pq => PQ_REFERENCE_WHITE,
            HdrTransfer::Hlg => hlg_inverse(HLG_REFERENCE_WHITE_SIGNAL),
        };
        let to_signal = (0..LINEAR_STEPS)
            .map(|step| {
                let light = white * step as f64 / (LINEAR_STEPS - 1) as f64;
                (match transfer {
                    HdrTransfer::Pq => pq(light),
                    HdrTransfer::Hlg => hlg(light),
                }) as f32
            })
            .collect();
        HdrConverter { to_linear, to_signal }
    }

    /// `source` is full-range RGB24; `output` is a yuv420p10le frame of the same size.
    pub(crate) fn convert(&self, source: &frame::Video, output: &mut frame::Video) {
        debug_assert_eq!(source.format(), Pixel::RGB24);
        debug_assert_eq!(output.format(), Pixel::YUV420P10LE);
        let (width, height) = (source.width() as usize, source.height() as usize);
        let stride = source.stride(0);
        let rgb = source.data(0);
        let (y_stride, cb_stride, cr_stride) = (output.stride(0) / 2, output.stride(1) / 2, output.stride(2) / 2);
        let mut luma = vec![0u16; y_stride * height];
        let mut cb = vec![0u16; cb_stride * height / 2];
        let mut cr = vec![0u16; cr_stride * height / 2];
        for by in 0..height / 2 {
            for bx in 0..width / 2 {
                let mut mean = [0f32; 3];
                for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    let (x, y) = (bx * 2 + dx, by * 2 + dy);
                    let p = &rgb[y * stride + x * 3..y * stride + x * 3 + 3];
                    let signal = self.signal([p[0], p[1], p[2]]);
                    luma[y * y_stride + x] = code(64.0 + 876.0 * (KR * signal[0] + KG * signal[1] + KB * signal[2]));
                    for c in 0..3 {
                        mean[c] += signal[c] / 4.0;
                    }
                }
                let y = KR * mean[0] + KG * mean[1] + KB * mean[2];
                cb[by * cb_stride + bx] = code(512.0 + 896.0 * (mean[2] - y) / (2.0 * (1.0 - KB)));
                cr[by * cr_stride + bx] = code(512.0 + 896.0 * (mean[0] - y) / (2.0 * (1.0 - KR)));
            }
        }
        for (plane, values) in [(0, luma), (1, cb), (2, cr)] {
            let bytes = output.data_mut(plane);
            for (i, v) in values.iter().enumerate() {
                bytes[i * 2..i * 2 + 2].copy_from_slice(&v.to_le_bytes());
            }
        }
    }

    fn signal(&self, rgb: [u8; 3]) -> [f32; 3] {
        let linear = rgb.map(|c| self.to_linear[c as usize]);
        PRIMARIES.map(|row| {
            let light = (row[0] * linear[0] + row[1] * linear[1] + row[2] * linear[2]).clamp(0.0, 1.0);
            self.to_signal[(light * (LINEAR_STEPS - 1) as f32).round() as usize]
        })
    }
}

fn code(value: f32) -> u16 {
    value.round().clamp(0.0, 1023.0) as u16
}

fn srgb_to_linear(c: f64) -> f64 {
    if c <= 0.040_45 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// SMPTE ST 2084 inverse EOTF: light as a fraction of 10 000 cd/m² to the PQ signal.
fn pq(light: f64) -> f64 {
    const M1: f64 = 2610.0 / 16384.0;
    const M2: f64 = 2523.0 / 4096.0 * 128.0;
    const C1: f64 = 3424.0 / 4096.0;
    const C2: f64 = 2413.0 / 4096.0 * 32.0;
    const C3: f64 = 2392.0 / 4096.0 * 32.0;
    let p = light.max(0.0).powf(M1);
    ((C1 + C2 * p) / (1.0 + C3 * p)).powf(M2)
}

/// ARIB STD-B67 OETF: scene light 0..1 to the HLG signal.
fn hlg(light: f64) -> f64 {
    if light <= 1.0 / 12.0 {
        (3.0 * light.max(0.0)).sqrt()
    } else {
        HLG_A * (12.0 * light - HLG_B).ln() + HLG_C
    }
}

fn hlg_inverse(signal: f64) -> f64 {
    if signal <= 0.5 {
        signal * signal / 3.0
    } else {
        (((signal - HLG_C) / HLG_A).exp() + HLG_B) / 12.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdr_white_lands_on_the_reference_white() {
        // 203 cd/m² is PQ code 0.5806 (BT.2408 table 1); HLG reference white is a 75% signal.
        assert!((pq(PQ_REFERENCE_WHITE) - 0.5806).abs() < 1e-3);
        let white = HdrConverter::new(HdrTransfer::Hlg).signal([255, 255, 255]);
        assert!(white.iter().all(|s| (s - 0.75).abs() < 1e-3), "{white:?}");
        let white = HdrConverter::new(HdrTransfer::Pq).signal([255, 255, 255]);
        assert!(white.iter().all(|s| (s - 0.5806).abs() < 1e-3), "{white:?}");
        let black = HdrConverter::new(HdrTransfer::Pq).signal([0, 0, 0]);
        assert!(black.iter().all(|s| *s < 1e-5), "{black:?}");
    }
}
