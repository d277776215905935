//! A decoded picture as a browser paints it: RGBA with straight alpha (what the page's
//! `putImageData` takes), converted with the matrix and range the file declares (or the matrix
//! Chromium assumes when it declares none), at the natural size, turned by the display matrix.

use std::os::raw::c_int;
use std::ptr;

use ffmpeg::codec;
use ffmpeg::ffi as sys;
use ffmpeg::format::Pixel;
use ffmpeg::util::color;
use ffmpeg_next as ffmpeg;

use super::source::{Display, Picture};

/// The scaler a picture needs: rebuilt only when one of these changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    format: Pixel,
    width: u32,
    height: u32,
    out_width: u32,
    out_height: u32,
    matrix: c_int,
    full_range: bool,
}

pub(crate) struct Converter {
    scaler: *mut sys::SwsContext,
    key: Option<Key>,
    rgba: Vec<u8>,
    turned: Vec<u8>,
}

// SAFETY: the scaler is only ever used by the thread that owns the converter.
unsafe impl Send for Converter {}

impl Drop for Converter {
    fn drop(&mut self) {
        // SAFETY: the scaler came from sws_getContext (or is null, which libav accepts).
        unsafe { sys::sws_freeContext(self.scaler) };
    }
}

impl Converter {
    pub fn new() -> Self {
        Converter {
            scaler: ptr::null_mut(),
            key: None,
            rgba: Vec::new(),
            turned: Vec::new(),
        }
    }

    /// The picture's RGBA bytes, rows top to bottom, `width x 4` bytes each, at the shown size.
    pub fn convert(&mut self, picture: &Picture, display: &Display) -> Result<&[u8], String> {
        let frame = &picture.frame;
        let with_alpha = picture.alpha.as_ref().and_then(|a| alpha_format(frame.format()).map(|f| (a, f)));
        let format = with_alpha.map_or(frame.format(), |(_, f)| f);
        let key = Key {
            format,
            width: frame.width(),
            height: frame.height(),
            out_width: display.width,
            out_height: display.height,
            matrix: matrix_of(frame.color_space(), display.codec, frame.height()),
            full_range: frame.color_range() == color::Range::JPEG || is_full_range_format(frame.format()),
        };
        if self.key != Some(key) {
            self.rebuild(key)?;
        }
        let mut planes: [*mut u8; 4] = [ptr::null_mut(); 4];
        let mut strides: [c_int; 4] = [0; 4];
        // SAFETY: the frame is decoded; its data pointers and line sizes describe its planes.
        unsafe {
            let raw = frame.as_ptr();
            let raw = &*raw;
            planes.copy_from_slice(&raw.data[..4]);
            strides.copy_from_slice(&raw.linesize[..4]);
            if let Some((alpha, _)) = with_alpha {
                let raw_alpha = alpha.as_ptr();
                planes[3] = (*raw_alpha).data[0];
                strides[3] = (*raw_alpha).linesize[0];
            }
        }
        let row = display.width as usize * 4;
        self.rgba.resize(row * display.height as usize, 0);
        let out_planes: [*mut u8; 4] = [self.rgba.as_mut_ptr(), ptr::null_mut(), ptr::null_mut(), ptr::null_mut()];
        let out_strides: [c_int; 4] = [row as c_int, 0, 0, 0];
        // SAFETY: the scaler was built for this input format and size; the output buffer holds
        // height rows of `row` bytes.
        let rows = unsafe {
            sys::sws_scale(
                self.scaler,
                planes.as_ptr() as *const *const u8,
                strides.as_ptr(),
                0,
                frame.height() as c_int,
                out_planes.as_ptr(),
                out_strides.as_ptr(),
            )
        };
        if rows != display.height as c_int {
            return Err(format!("converting a {:?} picture to RGBA gave {rows} rows", frame.format()));
        }
        if display.quarter_turns == 0 {
            return Ok(&self.rgba);
        }
        turn(&self.rgba, display.width as usize, display.height as usize, display.quarter_turns, &mut self.turned);
        Ok(&self.turned)
    }

    fn rebuild(&mut self, key: Key) -> Result<(), String> {
        // SAFETY: frees the previous scaler (or null) and builds one for the key's sizes.
        unsafe {
            sys::sws_freeContext(self.scaler);
            self.key = None;
            // Bilinear chroma up-sampling, both directions, with accurate rounding: within one
            // code value of the browser's own conversion of the same picture.
            let flags = sys::SWS_BILINEAR | sys::SWS_ACCURATE_RND | sys::SWS_FULL_CHR_H_INT;
            self.scaler = sys::sws_getContext(
                key.width as c_int,
                key.height as c_int,
                key.format.into(),
                key.out_width as c_int,
                key.out_height as c_int,
                sys::AVPixelFormat::AV_PIX_FMT_RGBA,
                flags as c_int,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null(),
            );
            if self.scaler.is_null() {
                return Err(format!("no conversion from {:?} {}x{} to RGBA", key.format, key.width, key.height));
            }
            const UNIT: c_int = 1 << 16; // contrast and saturation are 16.16 fixed point
            let coefficients = sys::sws_getCoefficients(key.matrix);
            // RGB sources have no matrix: swscale ignores the call's YUV side for them.
            sys::sws_setColorspaceDetails(self.scaler, coefficients, key.full_range as c_int, coefficients, 1, 0, UNIT, UNIT);
        }
        self.key = Some(key);
        Ok(())
    }
}

/// The YUV format with an alpha plane beside `format`'s planes, for WebM's separate alpha.
fn alpha_format(format: Pixel) -> Option<Pixel> {
    match format {
        Pixel::YUV420P => Some(Pixel::YUVA420P),
        Pixel::YUV422P => Some(Pixel::YUVA422P),
        Pixel::YUV444P => Some(Pixel::YUVA444P),
        _ => None,
    }
}

fn is_full_range_format(format: Pixel) -> bool {
    matches!(format, Pixel::YUVJ420P | Pixel::YUVJ422P | Pixel::YUVJ444P | Pixel::YUVJ440P | Pixel::YUVJ411P)
}

/// swscale's matrix for the file's declared one. Undeclared, Chromium's assumption: BT.601 for
/// VP9 and AV1, and for other codecs BT.709 from 720 lines up, BT.601 below.
fn matrix_of(space: color::Space, codec: codec::Id, height: u32) -> c_int {
    let matrix = match space {
        color::Space::BT709 => sys::SWS_CS_ITU709,
        color::Space::FCC => sys::SWS_CS_FCC,
        color::Space::BT470BG | color::Space::SMPTE170M => sys::SWS_CS_ITU601,
        color::Space::SMPTE240M => sys::SWS_CS_SMPTE240M,
        color::Space::BT2020NCL | color::Space::BT2020CL => sys::SWS_CS_BT2020,
        _ if matches!(codec, codec::Id::VP9 | codec::Id::AV1) => sys::SWS_CS_ITU601,
        _ if height >= 720 => sys::SWS_CS_ITU709,
        _ => sys::SWS_CS_ITU601,
    };
    matrix as c_int
}

/// `rgba` (`width x height`) turned clockwise by `quarter_turns` quarter turns into `out`.
fn turn(rgba: &[u8], width: usize, height: usize, quarter_turns: u8, out: &mut Vec<u8>) {
    out.resize(rgba.len(), 0);
    let (out_width, out_height) = if quarter_turns % 2 == 1 { (height, width) } else { (width, height) };
    for y in 0..out_height {
        for x in 0..out_width {
            let (sx, sy) = match quarter_turns % 4 {
                1 => (y, height - 1 - x),
                2 => (width - 1 - x, height - 1 - y),
                _ => (width - 1 - y, x),
            };
            let from = (sy * width + sx) * 4;
            let to = (y * out_width + x) * 4;
            out[to..to + 4].copy_from_slice(&rgba[from..from + 4]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turns_move_each_corner_clockwise() {
        // 3x2 picture, each pixel's red is its index.
        let picture: Vec<u8> = (0..6u8).flat_map(|i| [i, 0, 0, 255]).collect();
        let reds = |turns| {
            let mut out = Vec::new();
            turn(&picture, 3, 2, turns, &mut out);
            out.chunks(4).map(|p| p[0]).collect::<Vec<_>>()
        };
        // 0 1 2      clockwise: 3 0      half: 5 4 3      counter: 2 5
        // 3 4 5                 4 1            2 1 0               1 4
        //                       5 2                                0 3
        assert_eq!(reds(1), [3, 0, 4, 1, 5, 2]);
        assert_eq!(reds(2), [5, 4, 3, 2, 1, 0]);
        assert_eq!(reds(3), [2, 5, 1, 4, 0, 3]);
    }

    #[test]
    fn undeclared_matrices_follow_chromium() {
        assert_eq!(matrix_of(color::Space::Unspecified, codec::Id::H264, 1080), sys::SWS_CS_ITU709 as c_int);
        assert_eq!(matrix_of(color::Space::Unspecified, codec::Id::H264, 480), sys::SWS_CS_ITU601 as c_int);
        assert_eq!(matrix_of(color::Space::Unspecified, codec::Id::VP9, 1080), sys::SWS_CS_ITU601 as c_int);
        assert_eq!(matrix_of(color::Space::BT709, codec::Id::VP9, 480), sys::SWS_CS_ITU709 as c_int);
    }
}
