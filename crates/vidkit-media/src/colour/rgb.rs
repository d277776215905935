//! The raw-screenshot path: 8-bit R'G'B' pixels of four bytes (the browser's own picture, alpha or
//! padding ignored as its JPEG encoder ignores it) to the encoder's yuv420p (BT.709 matrix,
//! limited range), in fixed point that the compiler vectorises.
//!
//! Each luma sample comes from its own pixel. Each chroma sample comes from the sum of the 2x2
//! block it covers: the colour differences are linear in R', G' and B', so converting the block's
//! mean is converting each pixel and averaging, as a JPEG encoder's 4:2:0 downsampling does.

const KR: f64 = 0.2126;
const KB: f64 = 0.0722;
const KG: f64 = 1.0 - KR - KB;

/// Limited range: luma 16..235 (219 steps), chroma 16..240 (224 steps), for 0..255 full range.
const LUMA_SCALE: f64 = 219.0 / 255.0;
const CHROMA_SCALE: f64 = 224.0 / 255.0;

/// Fractional bits of the coefficients; each fits an i16, and a block's sum of four 8-bit samples
/// times three of them stays well inside an i32.
const SHIFT: u32 = 15;

const fn fixed(x: f64) -> i32 {
    let scaled = x * (1 << SHIFT) as f64;
    (if scaled < 0.0 { scaled - 0.5 } else { scaled + 0.5 }) as i32
}

/// Y from (R', G', B').
const Y: [i32; 3] = [fixed(LUMA_SCALE * KR), fixed(LUMA_SCALE * KG), fixed(LUMA_SCALE * KB)];
/// Cb = (B' - Y') / 2(1-Kb), from (R', G', B').
const CB: [i32; 3] = [
    fixed(CHROMA_SCALE * -KR / (2.0 * (1.0 - KB))),
    fixed(CHROMA_SCALE * -KG / (2.0 * (1.0 - KB))),
    fixed(CHROMA_SCALE * (1.0 - KB) / (2.0 * (1.0 - KB))),
];
/// Cr = (R' - Y') / 2(1-Kr), from (R', G', B').
const CR: [i32; 3] = [
    fixed(CHROMA_SCALE * (1.0 - KR) / (2.0 * (1.0 - KR))),
    fixed(CHROMA_SCALE * -KG / (2.0 * (1.0 - KR))),
    fixed(CHROMA_SCALE * -KB / (2.0 * (1.0 - KR))),
];

/// Where red, green and blue sit in a four-byte pixel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelOrder {
    /// B, G, R, then alpha or padding (Skia's native order on little-endian machines).
    Bgrx,
    /// R, G, B, then alpha or padding.
    Rgbx,
}

/// Bytes of a tightly packed yuv420p picture of an even `width`x`height`.
pub(crate) fn yuv420_len(width: usize, height: usize) -> usize {
    width * height * 3 / 2
}

/// Converts `pixels` (`height` rows of `width` four-byte pixels, tightly packed) into `output`,
/// a tightly packed yuv420p picture (Y plane, then Cb, then Cr). The size must be even.
pub(crate) fn rgbx_to_yuv420(pixels: &[u8], width: usize, height: usize, order: ChannelOrder, output: &mut [u8]) {
    assert!(
        width.is_multiple_of(2) && height.is_multiple_of(2),
        "4:2:0 needs an even size, got {width}x{height}"
    );
    assert_eq!(pixels.len(), width * height * 4, "pixels of a {width}x{height} picture");
    assert_eq!(
        output.len(),
        yuv420_len(width, height),
        "yuv420p of a {width}x{height} picture"
    );
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: this CPU has AVX2, checked just above.
        return unsafe { convert_avx2(pixels, width, order, output) };
    }
    convert_rows(pixels, width, order, output);
}

/// The same code compiled for AVX2: the conversion runs once a captured frame, on the CPU the
/// browsers and the encoder share (2.7 ms a 1080p frame on a 2-core Xeon VM, 9.4 ms before the
/// luma and chroma loops were split).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn convert_avx2(pixels: &[u8], width: usize, order: ChannelOrder, output: &mut [u8]) {
    convert_rows(pixels, width, order, output);
}

#[inline(always)]
fn convert_rows(pixels: &[u8], width: usize, order: ChannelOrder, output: &mut [u8]) {
    match order {
        ChannelOrder::Bgrx => convert_ordered::<2, 1, 0>(pixels, width, output),
        ChannelOrder::Rgbx => convert_ordered::<0, 1, 2>(pixels, width, output),
    }
}

/// Luma row by row, then chroma row pair by row pair: two plain loops the compiler vectorises
/// (one pass doing both did not). `R`, `G`, `B` are the channels' byte offsets in a pixel.
#[inline(always)]
fn convert_ordered<const R: usize, const G: usize, const B: usize>(pixels: &[u8], width: usize, output: &mut [u8]) {
    let height = pixels.len() / (width * 4);
    let (luma, chroma) = output.split_at_mut(width * height);
    let (cb, cr) = chroma.split_at_mut(width * height / 4);
    for (input, output) in pixels.chunks_exact(width * 4).zip(luma.chunks_exact_mut(width)) {
        for (pixel, output) in input.chunks_exact(4).zip(output.iter_mut()) {
            let (r, g, b) = (i32::from(pixel[R]), i32::from(pixel[G]), i32::from(pixel[B]));
            *output = descale(
                Y[0] * r + Y[1] * g + Y[2] * b + (16 << SHIFT) + (1 << (SHIFT - 1)),
                SHIFT,
            );
        }
    }
    let rows = pixels.chunks_exact(2 * width * 4);
    for (input, (cb, cr)) in rows.zip(cb.chunks_exact_mut(width / 2).zip(cr.chunks_exact_mut(width / 2))) {
        let (top, bottom) = input.split_at(width * 4);
        let blocks = top.chunks_exact(8).zip(bottom.chunks_exact(8));
        for ((top, bottom), (cb, cr)) in blocks.zip(cb.iter_mut().zip(cr.iter_mut())) {
            let sum =
                |c: usize| i32::from(top[c]) + i32::from(top[c + 4]) + i32::from(bottom[c]) + i32::from(bottom[c + 4]);
            let (r, g, b) = (sum(R), sum(G), sum(B));
            // Two more fractional bits divide the block's sum by four.
            let bias = (128 << (SHIFT + 2)) + (1 << (SHIFT + 1));
            *cb = descale(CB[0] * r + CB[1] * g + CB[2] * b + bias, SHIFT + 2);
            *cr = descale(CR[0] * r + CR[1] * g + CR[2] * b + bias, SHIFT + 2);
        }
    }
}

#[inline(always)]
fn descale(value: i32, shift: u32) -> u8 {
    (value >> shift).clamp(0, 255) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(rgb: [u8; 3], order: ChannelOrder) -> [u8; 3] {
        let (width, height) = (34, 6);
        let pixel = match order {
            ChannelOrder::Bgrx => [rgb[2], rgb[1], rgb[0], 255],
            ChannelOrder::Rgbx => [rgb[0], rgb[1], rgb[2], 255],
        };
        let pixels: Vec<u8> = pixel.iter().copied().cycle().take(width * height * 4).collect();
        let mut out = vec![0; yuv420_len(width, height)];
        rgbx_to_yuv420(&pixels, width, height, order, &mut out);
        let (y, chroma) = out.split_at(width * height);
        let (cb, cr) = chroma.split_at(width * height / 4);
        assert!(y.iter().all(|&v| v == y[0]) && cb.iter().all(|&v| v == cb[0]) && cr.iter().all(|&v| v == cr[0]));
        [y[0], cb[0], cr[0]]
    }

    /// Exact BT.709 limited-range Y'CbCr of full-range R'G'B', rounded.
    fn exact([r, g, b]: [u8; 3]) -> [u8; 3] {
        let (r, g, b) = (f64::from(r), f64::from(g), f64::from(b));
        let y = KR * r + KG * g + KB * b;
        [
            16.0 + LUMA_SCALE * y,
            128.0 + CHROMA_SCALE * (b - y) / (2.0 * (1.0 - KB)),
            128.0 + CHROMA_SCALE * (r - y) / (2.0 * (1.0 - KR)),
        ]
        .map(|v| v.round() as u8)
    }

    #[test]
    fn nominal_colours_land_on_their_bt709_limited_values() {
        for order in [ChannelOrder::Bgrx, ChannelOrder::Rgbx] {
            assert_eq!(solid([0, 0, 0], order), [16, 128, 128]);
            assert_eq!(solid([255, 255, 255], order), [235, 128, 128]);
            assert_eq!(solid([255, 0, 0], order), [63, 102, 240]);
            assert_eq!(solid([0, 255, 0], order), [173, 42, 26]);
            assert_eq!(solid([0, 0, 255], order), [32, 240, 118]);
        }
    }

    #[test]
    fn every_colour_is_within_one_step_of_the_exact_conversion() {
        for r in (0..=255).step_by(15) {
            for g in (0..=255).step_by(17) {
                for b in (0..=255).step_by(51) {
                    let got = solid([r, g, b], ChannelOrder::Bgrx);
                    let want = exact([r, g, b]);
                    for c in 0..3 {
                        assert!(
                            got[c].abs_diff(want[c]) <= 1,
                            "{:?}: {got:?} against {want:?}",
                            [r, g, b]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn chroma_is_the_mean_of_its_block_and_luma_is_per_pixel() {
        // Columns alternate black and white; the rows are alike.
        let (width, height) = (4, 2);
        let mut pixels = Vec::new();
        for _ in 0..height {
            for x in 0..width {
                let v = if x % 2 == 0 { 0 } else { 255 };
                pixels.extend_from_slice(&[v, v, v, 255]);
            }
        }
        let mut out = vec![0; yuv420_len(width, height)];
        rgbx_to_yuv420(&pixels, width, height, ChannelOrder::Bgrx, &mut out);
        assert_eq!(&out[..8], &[16, 235, 16, 235, 16, 235, 16, 235]);
        assert_eq!(&out[8..], &[128, 128, 128, 128]);
    }

    #[test]
    fn channel_order_picks_red_and_blue() {
        let red_first = solid([200, 40, 10], ChannelOrder::Rgbx);
        assert_eq!(red_first, solid([200, 40, 10], ChannelOrder::Bgrx));
        assert_eq!(red_first, exact([200, 40, 10]));
    }
}
