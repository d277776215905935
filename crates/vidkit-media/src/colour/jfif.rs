//! The JPEG fast path: yuvj420p (JFIF: BT.601 matrix, full range) to the encoder's yuv420p
//! (BT.709 matrix, limited range) at the same size, in fixed point that the compiler vectorises.
//!
//! It exists because swscale's accurate path costs ~8.7 ms a 1080p frame on the decode thread
//! (this takes ~1 ms), and its fast path leaves white ~3 values low.
//!
//! The conversion goes through R'G'B' without clamping it, so it folds into one matrix. With Cb
//! and Cr centred on 0, BT.601's inverse is `R' = Y + 2(1-Kr)·Cr`, `B' = Y + 2(1-Kb)·Cb`,
//! `G' = (Y - Kr·R' - Kb·B') / Kg`: each of R', G', B' is Y plus a term in Cb and Cr. BT.709's luma
//! weights sum to 1, so its luma is Y plus a term in Cb and Cr, taken from the chroma sample that
//! each 2x2 block of luma shares; its colour differences `B'-Y'` and `R'-Y'` do not depend on Y at
//! all, so each output chroma sample comes from the input chroma sample alone and 4:2:0 needs no
//! resampling. Only the outputs are clamped, to the nominal ranges.

use ffmpeg::format::Pixel;
use ffmpeg::frame;
use ffmpeg_next as ffmpeg;

const KR_601: f64 = 0.299;
const KB_601: f64 = 0.114;
const KG_601: f64 = 1.0 - KR_601 - KB_601;
const KR_709: f64 = 0.2126;
const KB_709: f64 = 0.0722;
const KG_709: f64 = 1.0 - KR_709 - KB_709;

// R', G', B' minus Y, per unit of input Cb and Cr.
const R_FROM_CR: f64 = 2.0 * (1.0 - KR_601);
const B_FROM_CB: f64 = 2.0 * (1.0 - KB_601);
const G_FROM_CB: f64 = -KB_601 * B_FROM_CB / KG_601;
const G_FROM_CR: f64 = -KR_601 * R_FROM_CR / KG_601;
// BT.709 luma (full scale) minus Y, per unit of input Cb and Cr.
const LUMA_FROM_CB: f64 = KG_709 * G_FROM_CB + KB_709 * B_FROM_CB;
const LUMA_FROM_CR: f64 = KR_709 * R_FROM_CR + KG_709 * G_FROM_CR;

/// Limited range: luma 16..235 (219 steps), chroma 16..240 (224 steps), for 0..255 full range.
const LUMA_SCALE: f64 = 219.0 / 255.0;
const CHROMA_SCALE: f64 = 224.0 / 255.0;

/// Fractional bits of the fixed-point coefficients. 15 keeps each within an i16, and the code
/// multiplies i16 by i16 into i32 so that x86 can do 8 products in one instruction (pmaddwd).
const SHIFT: u32 = 15;
const HALF: i32 = 1 << (SHIFT - 1);

const fn fixed(x: f64) -> i16 {
    (x * (1 << SHIFT) as f64).round() as i16
}

const Y_FROM_Y: i16 = fixed(LUMA_SCALE);
const Y_FROM_CB: i16 = fixed(LUMA_SCALE * LUMA_FROM_CB);
const Y_FROM_CR: i16 = fixed(LUMA_SCALE * LUMA_FROM_CR);
/// Output Cb from (input Cb, input Cr): `(B' - Y') / 2(1-Kb)`, scaled to limited range.
const CB: [i16; 2] = [
    fixed(CHROMA_SCALE * (B_FROM_CB - LUMA_FROM_CB) / (2.0 * (1.0 - KB_709))),
    fixed(CHROMA_SCALE * -LUMA_FROM_CR / (2.0 * (1.0 - KB_709))),
];
/// Output Cr from (input Cb, input Cr): `(R' - Y') / 2(1-Kr)`, scaled to limited range.
const CR: [i16; 2] = [
    fixed(CHROMA_SCALE * -LUMA_FROM_CB / (2.0 * (1.0 - KR_709))),
    fixed(CHROMA_SCALE * (R_FROM_CR - LUMA_FROM_CR) / (2.0 * (1.0 - KR_709))),
];

/// Whether `source` can take the fast path to a `width`x`height` picture.
pub(crate) fn applies(source: &frame::Video, width: u32, height: u32) -> bool {
    source.format() == Pixel::YUVJ420P && (source.width(), source.height()) == (width, height)
}

/// Converts `source` into `target`, a yuv420p picture of the same (even) size.
pub(crate) fn convert(source: &frame::Video, target: &mut frame::Video) {
    let (width, height) = (source.width(), source.height());
    assert!(
        width % 2 == 0 && height % 2 == 0,
        "4:2:0 needs an even size, got {width}x{height}"
    );
    assert_eq!(
        (target.format(), target.width(), target.height()),
        (Pixel::YUV420P, width, height)
    );
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: this CPU has AVX2, checked just above.
        return unsafe { convert_avx2(source, target) };
    }
    convert_rows(source, target);
}

/// The same code compiled for AVX2, 32 bytes a step where the build's baseline (SSE2) takes 16:
/// the conversion runs once a captured frame, on the CPU the browsers and the encoder share.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn convert_avx2(source: &frame::Video, target: &mut frame::Video) {
    convert_rows(source, target);
}

#[inline(always)]
fn convert_rows(source: &frame::Video, target: &mut frame::Video) {
    let width = source.width() as usize;
    let rows = |plane: usize| {
        let stride = source.stride(plane);
        let width = source.plane_width(plane) as usize;
        source.data(plane).chunks(stride).map(move |row| &row[..width])
    };
    let chroma_rows = || rows(1).zip(rows(2));

    // Each chroma row serves two luma rows.
    let (in_stride, out_stride) = (source.stride(0), target.stride(0));
    let luma_in = source.data(0).chunks(2 * in_stride);
    let luma_out = target.data_mut(0).chunks_mut(2 * out_stride);
    for ((input, output), (cb, cr)) in luma_in.zip(luma_out).zip(chroma_rows()) {
        let (top, bottom) = output.split_at_mut(out_stride);
        luma_row(&input[..width], cb, cr, &mut top[..width]);
        luma_row(&input[in_stride..][..width], cb, cr, &mut bottom[..width]);
    }

    for (plane, from) in [(1, CB), (2, CR)] {
        let stride = target.stride(plane);
        for (output, (cb, cr)) in target.data_mut(plane).chunks_mut(stride).zip(chroma_rows()) {
            chroma_row(cb, cr, from, &mut output[..width / 2]);
        }
    }
}

#[inline(always)]
fn luma_row(y: &[u8], cb: &[u8], cr: &[u8], output: &mut [u8]) {
    let pairs = output.chunks_exact_mut(2).zip(y.chunks_exact(2));
    for ((output, y), (&cb, &cr)) in pairs.zip(cb.iter().zip(cr)) {
        let bias = product(Y_FROM_CB, centred(cb)) + product(Y_FROM_CR, centred(cr)) + (16 << SHIFT) + HALF;
        output[0] = descale(product(Y_FROM_Y, i16::from(y[0])) + bias, 16, 235);
        output[1] = descale(product(Y_FROM_Y, i16::from(y[1])) + bias, 16, 235);
    }
}

#[inline(always)]
fn chroma_row(cb: &[u8], cr: &[u8], [from_cb, from_cr]: [i16; 2], output: &mut [u8]) {
    for (output, (&cb, &cr)) in output.iter_mut().zip(cb.iter().zip(cr)) {
        let value = product(from_cb, centred(cb)) + product(from_cr, centred(cr)) + (128 << SHIFT) + HALF;
        *output = descale(value, 16, 240);
    }
}

#[inline(always)]
fn centred(chroma: u8) -> i16 {
    i16::from(chroma) - 128
}

#[inline(always)]
fn product(coefficient: i16, sample: i16) -> i32 {
    i32::from(coefficient) * i32::from(sample)
}

/// Drops the fraction (the caller added a half, so this rounds) and clamps to `min..=max`.
/// Saturating to a byte first lets the clamp work on bytes, 16 at a time.
#[inline(always)]
fn descale(value: i32, min: u8, max: u8) -> u8 {
    ((value >> SHIFT).clamp(0, 255) as u8).clamp(min, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::colour::Converter;

    /// A `width`x`height` picture whose plane `p` holds `sample(p, column, row)`.
    fn picture(format: Pixel, width: u32, height: u32, sample: impl Fn(usize, usize, usize) -> u8) -> frame::Video {
        let mut picture = frame::Video::new(format, width, height);
        for plane in 0..3 {
            let (w, stride) = (picture.plane_width(plane) as usize, picture.stride(plane));
            for (row, line) in picture.data_mut(plane).chunks_mut(stride).enumerate() {
                for (column, value) in line[..w].iter_mut().enumerate() {
                    *value = sample(plane, column, row);
                }
            }
        }
        picture
    }

    /// Every sample of each plane, without the line padding.
    fn planes(picture: &frame::Video) -> [Vec<u8>; 3] {
        [0, 1, 2].map(|plane| {
            let (w, stride) = (picture.plane_width(plane) as usize, picture.stride(plane));
            picture
                .data(plane)
                .chunks(stride)
                .flat_map(|line| &line[..w])
                .copied()
                .collect()
        })
    }

    fn fast_path(source: &frame::Video) -> [Vec<u8>; 3] {
        assert!(applies(source, source.width(), source.height()));
        let mut target = frame::Video::new(Pixel::YUV420P, source.width(), source.height());
        convert(source, &mut target);
        planes(&target)
    }

    fn solid(ycbcr: [u8; 3]) -> [Vec<u8>; 3] {
        fast_path(&picture(Pixel::YUVJ420P, 64, 36, |plane, _, _| ycbcr[plane]))
    }

    /// Exact BT.709 limited-range Y'CbCr of full-range R'G'B', unrounded and unclamped.
    fn bt709_limited([r, g, b]: [f64; 3]) -> [f64; 3] {
        let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
        [
            16.0 + luma * 219.0 / 255.0,
            128.0 + (b - luma) / 1.8556 * 224.0 / 255.0,
            128.0 + (r - luma) / 1.5748 * 224.0 / 255.0,
        ]
    }

    /// Full-range R'G'B' of JFIF (BT.601 full-range) Y'CbCr, unclamped.
    fn jfif_to_rgb([y, cb, cr]: [u8; 3]) -> [f64; 3] {
        let (y, cb, cr) = (f64::from(y), f64::from(cb) - 128.0, f64::from(cr) - 128.0);
        [y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb]
    }

    /// What a JFIF encoder stores for `rgb`, rounded to bytes.
    fn rgb_to_jfif(rgb: [u8; 3]) -> [u8; 3] {
        let [r, g, b] = rgb.map(f64::from);
        [
            0.299 * r + 0.587 * g + 0.114 * b,
            128.0 - 0.168736 * r - 0.331264 * g + 0.5 * b,
            128.0 + 0.5 * r - 0.418688 * g - 0.081312 * b,
        ]
        .map(|v| v.round().clamp(0.0, 255.0) as u8)
    }

    #[test]
    fn white_and_black_land_exactly_on_the_limited_range_ends() {
        for (ycbcr, want) in [([255, 128, 128], [235, 128, 128]), ([0, 128, 128], [16, 128, 128])] {
            let got = solid(ycbcr);
            for (plane, want) in got.iter().zip(want) {
                assert!(
                    plane.iter().all(|&v| v == want),
                    "{ycbcr:?} gave {:?}",
                    got.each_ref().map(|p| p[0])
                );
            }
        }
    }

    #[test]
    fn primaries_and_mid_grey_are_within_1_of_the_exact_conversion() {
        for rgb in [[255, 0, 0], [0, 255, 0], [0, 0, 255], [128, 128, 128]] {
            let got = solid(rgb_to_jfif(rgb)).map(|plane| plane[0]);
            let want = bt709_limited(rgb.map(f64::from));
            for (got, want) in got.into_iter().zip(want) {
                assert!(
                    (f64::from(got) - want).abs() <= 1.0,
                    "{rgb:?}: got {got}, exact {want:.2}"
                );
            }
        }
    }

    #[test]
    fn random_pictures_match_a_floating_point_reference_up_to_rounding() {
        // An odd number of chroma columns and lines padded past the width (libav aligns strides).
        let (width, height) = (198, 62);
        let mut state = 0x2545_f491_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        };
        let source = [0, 1, 2].map(|plane| {
            let count = if plane == 0 { width * height } else { width * height / 4 };
            (0..count).map(|_| next()).collect::<Vec<u8>>()
        });
        let picture = picture(Pixel::YUVJ420P, width as u32, height as u32, |plane, column, row| {
            let w = if plane == 0 { width } else { width / 2 };
            source[plane][row * w + column]
        });
        let got = fast_path(&picture);

        let mut worst = [0.0_f64; 3];
        for row in 0..height {
            for column in 0..width {
                let chroma = (row / 2) * (width / 2) + column / 2;
                let ycbcr = [source[0][row * width + column], source[1][chroma], source[2][chroma]];
                let want = bt709_limited(jfif_to_rgb(ycbcr));
                let outputs = [
                    (got[0][row * width + column], want[0], 235.0),
                    (got[1][chroma], want[1], 240.0),
                    (got[2][chroma], want[2], 240.0),
                ];
                for (plane, (got, want, max)) in outputs.into_iter().enumerate() {
                    let error = (f64::from(got) - want.clamp(16.0, max)).abs();
                    worst[plane] = worst[plane].max(error);
                }
            }
        }
        // Rounding to a byte accounts for 0.5 (so at most 1 from the rounded reference); the
        // fixed-point coefficients may add a hundredth.
        assert!(worst.iter().all(|&e| e <= 0.51), "worst error per plane {worst:?}");
    }

    #[test]
    fn the_build_for_this_cpu_gives_the_same_bytes_as_the_baseline_build() {
        let (width, height) = (1922_u32, 70_u32);
        let source = picture(Pixel::YUVJ420P, width, height, |plane, column, row| {
            ((column * 7 + row * 13 + plane * 101) % 256) as u8
        });
        let mut baseline = frame::Video::new(Pixel::YUV420P, width, height);
        convert_rows(&source, &mut baseline);
        assert_eq!(fast_path(&source), planes(&baseline));
    }

    #[test]
    fn other_jpeg_layouts_and_sizes_still_convert_through_swscale_to_the_same_colour() {
        crate::libav::init();
        let jfif = rgb_to_jfif([200, 60, 30]);
        let want = solid(jfif).map(|plane| plane[0]);
        for (format, width, height) in [(Pixel::YUVJ444P, 64, 36), (Pixel::YUVJ420P, 128, 72)] {
            let source = picture(format, width, height, |plane, _, _| jfif[plane]);
            let converted = Converter::new(64, 36, crate::OutputFormat::Mp4)
                .convert(&source)
                .unwrap();
            let got = planes(&converted).map(|plane| plane[plane.len() / 2]);
            for (got, want) in got.into_iter().zip(want) {
                assert!(
                    got.abs_diff(want) <= 1,
                    "{format:?} {width}x{height}: got {got}, fast path {want}"
                );
            }
        }
    }

    #[test]
    fn only_yuvj420p_at_the_encoder_size_takes_the_fast_path() {
        let jpeg = |format| frame::Video::new(format, 64, 36);
        assert!(applies(&jpeg(Pixel::YUVJ420P), 64, 36));
        assert!(!applies(&jpeg(Pixel::YUVJ420P), 128, 72));
        assert!(!applies(&jpeg(Pixel::YUVJ444P), 64, 36));
        assert!(!applies(&jpeg(Pixel::YUV420P), 64, 36));
    }
}
