//! A decoded picture in the bytes the page paints: as decoded when it is 8-bit planar YUV (the
//! page wraps it in a WebCodecs `VideoFrame` with its matrix and range, and Chromium converts it
//! with the code that converts its own video: measured bit-exact against the browser's picture of
//! the same frame), turned by the display matrix; other pictures (10-bit, packed, RGB, turned
//! 4:2:2) as RGBA converted here the way Chromium's software path converts video (libyuv).

use std::os::raw::c_int;
use std::ptr;

use ffmpeg::ffi as sys;
use ffmpeg::format::Pixel;
use ffmpeg::util::color;
use ffmpeg_next as ffmpeg;

use super::source::{Display, Picture};
use crate::colour::{is_full_range, source_colour};

/// How a source's pictures are written, fixed from its first picture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PictureLayout {
    /// A WebCodecs `VideoPixelFormat` ("I420", "I420A", "I422", "I444", "I444A"...) of tightly
    /// packed planes, or "RGBA" for straight-alpha RGBA rows.
    pub format: &'static str,
    /// Size of the written picture (turned, before the sample aspect ratio).
    pub coded_width: u32,
    pub coded_height: u32,
    /// WebCodecs `VideoMatrixCoefficients` of YUV pictures ("bt709", "smpte170m", "bt2020-ncl").
    pub matrix: &'static str,
    pub full_range: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chroma {
    S420,
    S422,
    S444,
}

pub(crate) struct Converter {
    layout: PictureLayout,
    /// The planar layout's subsampling and alpha; `None` for RGBA.
    planar: Option<(Chroma, bool)>,
    pixel: Pixel,
    /// The first picture's size: later pictures of another size or format are scaled to it.
    width: u32,
    height: u32,
    scaler: Scaler,
    out: Vec<u8>,
    plane: Vec<u8>,
}

impl Converter {
    /// The layout for a source whose first picture is `first`.
    pub fn new(first: &Picture, display: &Display) -> Converter {
        let frame = &first.frame;
        let colour = source_colour(
            frame.color_space(),
            frame.color_range(),
            frame.color_primaries(),
            frame.color_transfer_characteristic(),
            frame.format(),
            display.codec,
            frame.height(),
        );
        let full_range = colour.range == color::Range::JPEG;
        let matrix = sws_matrix(colour.matrix);
        let chroma = match frame.format() {
            Pixel::YUV420P | Pixel::YUVJ420P | Pixel::YUVA420P => Some(Chroma::S420),
            Pixel::YUV422P | Pixel::YUVJ422P | Pixel::YUVA422P => Some(Chroma::S422),
            Pixel::YUV444P | Pixel::YUVJ444P | Pixel::YUVA444P => Some(Chroma::S444),
            _ => None,
        };
        let alpha =
            first.alpha.is_some() || matches!(frame.format(), Pixel::YUVA420P | Pixel::YUVA422P | Pixel::YUVA444P);
        let square = display.width == frame.width() && display.height == frame.height();
        let webcodecs_matrix = webcodecs_matrix(matrix);
        // A 4:2:2 picture turned a quarter is no longer 4:2:2.
        let planar = match (chroma, webcodecs_matrix) {
            (Some(Chroma::S422), Some(_)) if display.quarter_turns % 2 == 1 => None,
            (Some(chroma), Some(_)) => Some((chroma, alpha)),
            _ => None,
        };
        let turned = |w: u32, h: u32| if display.quarter_turns % 2 == 1 { (h, w) } else { (w, h) };
        let (layout, pixel) = match planar {
            Some((chroma, alpha)) => {
                let (coded_width, coded_height) = turned(frame.width(), frame.height());
                let format = match (chroma, alpha) {
                    (Chroma::S420, false) => ("I420", Pixel::YUV420P),
                    (Chroma::S420, true) => ("I420A", Pixel::YUVA420P),
                    (Chroma::S422, false) => ("I422", Pixel::YUV422P),
                    (Chroma::S422, true) => ("I422A", Pixel::YUVA422P),
                    (Chroma::S444, false) => ("I444", Pixel::YUV444P),
                    (Chroma::S444, true) => ("I444A", Pixel::YUVA444P),
                };
                let layout = PictureLayout {
                    format: format.0,
                    coded_width,
                    coded_height,
                    matrix: webcodecs_matrix.expect("planar layouts have one"),
                    full_range,
                };
                (layout, format.1)
            }
            None => {
                let (coded_width, coded_height) = turned(display.width, display.height);
                let layout = PictureLayout {
                    format: "RGBA",
                    coded_width,
                    coded_height,
                    matrix: "rgb",
                    full_range: true,
                };
                (layout, Pixel::RGBA)
            }
        };
        let (width, height) = if planar.is_some() || square {
            (frame.width(), frame.height())
        } else {
            (display.width, display.height)
        };
        Converter {
            layout,
            planar,
            pixel,
            width,
            height,
            scaler: Scaler::new(matrix),
            out: Vec::new(),
            plane: Vec::new(),
        }
    }

    pub fn layout(&self) -> &PictureLayout {
        &self.layout
    }

    /// The picture's bytes in the layout.
    pub fn convert(&mut self, picture: &Picture, display: &Display) -> Result<&[u8], String> {
        let frame = &picture.frame;
        self.out.clear();
        let same_shape = frame.width() == self.width
            && frame.height() == self.height
            && base_format(frame.format()) == base_format(self.pixel);
        match self.planar {
            Some((chroma, alpha)) if same_shape => {
                for index in 0..3 {
                    let (w, h) = plane_size(chroma, index, self.width, self.height);
                    copy_plane(
                        frame_plane(frame, index),
                        w,
                        h,
                        display.quarter_turns,
                        &mut self.plane,
                        &mut self.out,
                    );
                }
                if alpha {
                    let (w, h) = (self.width as usize, self.height as usize);
                    match alpha_plane(picture) {
                        Some(plane) => copy_plane(plane, w, h, display.quarter_turns, &mut self.plane, &mut self.out),
                        // A picture that came without its alpha is opaque.
                        None => self.out.resize(self.out.len() + w * h, 255),
                    }
                }
                Ok(&self.out)
            }
            _ => {
                let (planes, strides) = self.scaler.run(picture, self.pixel, self.width, self.height)?;
                // Each plane's size in pixels and bytes per pixel.
                let shapes: Vec<(usize, usize, usize)> = match self.planar {
                    Some((chroma, alpha)) => (0..3 + usize::from(alpha))
                        .map(|i| {
                            let (w, h) = plane_size(chroma, i, self.width, self.height);
                            (w, h, 1)
                        })
                        .collect(),
                    None => vec![(self.width as usize, self.height as usize, 4)],
                };
                for (index, (w, h, bytes)) in shapes.into_iter().enumerate() {
                    let plane = Plane {
                        data: planes[index],
                        stride: strides[index] as usize,
                    };
                    copy_turned(
                        plane,
                        w,
                        h,
                        bytes,
                        display.quarter_turns,
                        &mut self.plane,
                        &mut self.out,
                    );
                }
                Ok(&self.out)
            }
        }
    }
}

/// A plane of a decoded picture: its first byte and its row stride.
#[derive(Clone, Copy)]
struct Plane {
    data: *const u8,
    stride: usize,
}

fn frame_plane(frame: &ffmpeg::frame::Video, index: usize) -> Plane {
    // SAFETY: the frame is decoded; its data pointers and line sizes describe its planes.
    unsafe {
        let raw = &*frame.as_ptr();
        Plane {
            data: raw.data[index],
            stride: raw.linesize[index] as usize,
        }
    }
}

/// The alpha plane: the picture's own fourth plane, or the luma of WebM's separate alpha picture.
fn alpha_plane(picture: &Picture) -> Option<Plane> {
    match &picture.alpha {
        Some(alpha) => Some(frame_plane(alpha, 0)),
        None if matches!(
            picture.frame.format(),
            Pixel::YUVA420P | Pixel::YUVA422P | Pixel::YUVA444P
        ) =>
        {
            Some(frame_plane(&picture.frame, 3))
        }
        None => None,
    }
}

fn plane_size(chroma: Chroma, index: usize, width: u32, height: u32) -> (usize, usize) {
    let (w, h) = (width as usize, height as usize);
    match (index, chroma) {
        (1 | 2, Chroma::S420) => (w.div_ceil(2), h.div_ceil(2)),
        (1 | 2, Chroma::S422) => (w.div_ceil(2), h),
        _ => (w, h),
    }
}

/// Appends a `width x height` byte plane to `out`, turned by `quarter_turns`.
fn copy_plane(plane: Plane, width: usize, height: usize, quarter_turns: u8, scratch: &mut Vec<u8>, out: &mut Vec<u8>) {
    copy_turned(plane, width, height, 1, quarter_turns, scratch, out);
}

/// Appends a plane of `width x height` pixels of `pixel_bytes` bytes to `out`, tightly packed and
/// turned clockwise by `quarter_turns`.
fn copy_turned(
    plane: Plane,
    width: usize,
    height: usize,
    pixel_bytes: usize,
    quarter_turns: u8,
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) {
    let row = width * pixel_bytes;
    let rows = |y: usize| {
        // SAFETY: the plane holds `height` rows of at least `row` bytes, `stride` apart.
        unsafe { std::slice::from_raw_parts(plane.data.add(y * plane.stride), row) }
    };
    if quarter_turns.is_multiple_of(4) {
        for y in 0..height {
            out.extend_from_slice(rows(y));
        }
        return;
    }
    scratch.clear();
    for y in 0..height {
        scratch.extend_from_slice(rows(y));
    }
    let start = out.len();
    out.resize(start + scratch.len(), 0);
    turn(scratch, width, height, pixel_bytes, quarter_turns, &mut out[start..]);
}

/// `pixels` (`width x height`, `pixel_bytes` each) turned clockwise by `quarter_turns` into `out`.
fn turn(pixels: &[u8], width: usize, height: usize, pixel_bytes: usize, quarter_turns: u8, out: &mut [u8]) {
    let (out_width, out_height) = if quarter_turns % 2 == 1 {
        (height, width)
    } else {
        (width, height)
    };
    for y in 0..out_height {
        for x in 0..out_width {
            let (sx, sy) = match quarter_turns % 4 {
                1 => (y, height - 1 - x),
                2 => (width - 1 - x, height - 1 - y),
                _ => (width - 1 - y, x),
            };
            let from = (sy * width + sx) * pixel_bytes;
            let to = (y * out_width + x) * pixel_bytes;
            out[to..to + pixel_bytes].copy_from_slice(&pixels[from..from + pixel_bytes]);
        }
    }
}

/// A picture's pixel format without the full-range (J) variants, which hold the same planes.
fn base_format(format: Pixel) -> Pixel {
    match format {
        Pixel::YUVJ420P => Pixel::YUV420P,
        Pixel::YUVJ422P => Pixel::YUV422P,
        Pixel::YUVJ444P => Pixel::YUV444P,
        other => other,
    }
}

/// swscale's matrix for a source's matrix (declared, or guessed by colour/source.rs).
fn sws_matrix(space: color::Space) -> c_int {
    match space {
        color::Space::BT709 => sys::SWS_CS_ITU709,
        color::Space::FCC => sys::SWS_CS_FCC,
        color::Space::SMPTE240M => sys::SWS_CS_SMPTE240M,
        color::Space::BT2020NCL | color::Space::BT2020CL => sys::SWS_CS_BT2020,
        _ => sys::SWS_CS_ITU601,
    }
}

/// The WebCodecs name of a matrix the page can hand to `VideoFrame`.
fn webcodecs_matrix(matrix: c_int) -> Option<&'static str> {
    match matrix {
        sys::SWS_CS_ITU709 => Some("bt709"),
        sys::SWS_CS_ITU601 => Some("smpte170m"),
        sys::SWS_CS_BT2020 => Some("bt2020-ncl"),
        _ => None,
    }
}

/// libyuv's limited-range matrices, which Chromium converts video with in software: chroma
/// coefficients in 64ths, the blue one capped at 2.0 (BT.709's is 2.112). As swscale's tables:
/// Cr to R, Cb to B, Cb to G, Cr to G, in 65536ths. Measured against the browser's picture of a
/// BT.709 source: 63 dB, against 39 dB with swscale's exact BT.709.
fn libyuv_limited(matrix: c_int) -> Option<[c_int; 4]> {
    let in_64ths: [c_int; 4] = match matrix {
        sys::SWS_CS_ITU601 => [102, 128, 25, 52],
        sys::SWS_CS_ITU709 => [115, 128, 14, 34],
        sys::SWS_CS_BT2020 => [107, 128, 12, 42],
        _ => return None,
    };
    Some(in_64ths.map(|c| c << 10))
}

/// swscale for the pictures the planar copy cannot take.
struct Scaler {
    context: *mut sys::SwsContext,
    key: Option<(Pixel, u32, u32, Pixel, u32, u32, bool)>,
    matrix: c_int,
    /// The converted picture's planes.
    buffer: Vec<u8>,
}

// SAFETY: the scaler is only ever used by the thread that owns the converter.
unsafe impl Send for Scaler {}

impl Drop for Scaler {
    fn drop(&mut self) {
        // SAFETY: the context came from sws_getContext (or is null, which libav accepts).
        unsafe { sys::sws_freeContext(self.context) };
    }
}

impl Scaler {
    fn new(matrix: c_int) -> Self {
        Scaler {
            context: ptr::null_mut(),
            key: None,
            matrix,
            buffer: Vec::new(),
        }
    }

    /// Converts `picture` (and its separate alpha) to `pixel` at `width x height`; the planes'
    /// pointers and strides, valid until the next call.
    fn run(
        &mut self,
        picture: &Picture,
        pixel: Pixel,
        width: u32,
        height: u32,
    ) -> Result<([*const u8; 4], [c_int; 4]), String> {
        let frame = &picture.frame;
        let alpha = picture
            .alpha
            .as_ref()
            .and_then(|a| alpha_format(frame.format()).map(|f| (a, f)));
        let source = alpha.map_or(frame.format(), |(_, f)| f);
        let full_range = is_full_range(frame.color_range(), frame.format());
        let key = (source, frame.width(), frame.height(), pixel, width, height, full_range);
        if self.key != Some(key) {
            self.rebuild(key)?;
        }
        let mut planes: [*const u8; 4] = [ptr::null(); 4];
        let mut strides: [c_int; 4] = [0; 4];
        for (index, plane) in planes.iter_mut().enumerate() {
            let p = frame_plane(frame, index);
            *plane = p.data;
            strides[index] = p.stride as c_int;
        }
        if let Some((alpha, _)) = alpha {
            let p = frame_plane(alpha, 0);
            planes[3] = p.data;
            strides[3] = p.stride as c_int;
        }
        // SAFETY: av_image_fill_arrays lays the output planes out in `buffer`, sized for them.
        let (out_planes, out_strides) = unsafe {
            let size = sys::av_image_get_buffer_size(pixel.into(), width as c_int, height as c_int, 1);
            if size < 0 {
                return Err(format!("no picture of {pixel:?} at {width}x{height}"));
            }
            self.buffer.resize(size as usize, 0);
            let mut out_planes: [*mut u8; 4] = [ptr::null_mut(); 4];
            let mut out_strides: [c_int; 4] = [0; 4];
            sys::av_image_fill_arrays(
                out_planes.as_mut_ptr(),
                out_strides.as_mut_ptr(),
                self.buffer.as_ptr(),
                pixel.into(),
                width as c_int,
                height as c_int,
                1,
            );
            let rows = sys::sws_scale(
                self.context,
                planes.as_ptr(),
                strides.as_ptr(),
                0,
                frame.height() as c_int,
                out_planes.as_ptr(),
                out_strides.as_ptr(),
            );
            if rows != height as c_int {
                return Err(format!(
                    "converting a {:?} picture to {pixel:?} gave {rows} rows",
                    frame.format()
                ));
            }
            (out_planes, out_strides)
        };
        Ok((out_planes.map(|p| p as *const u8), out_strides))
    }

    fn rebuild(&mut self, key: (Pixel, u32, u32, Pixel, u32, u32, bool)) -> Result<(), String> {
        let (source, width, height, pixel, out_width, out_height, full_range) = key;
        // SAFETY: frees the previous context (or null) and builds one for the key's sizes.
        unsafe {
            sys::sws_freeContext(self.context);
            self.key = None;
            // Each chroma sample for its 2x2 pixels, as libyuv does, with accurate rounding.
            let flags = sys::SWS_POINT | sys::SWS_ACCURATE_RND | sys::SWS_FULL_CHR_H_INT;
            self.context = sys::sws_getContext(
                width as c_int,
                height as c_int,
                source.into(),
                out_width as c_int,
                out_height as c_int,
                pixel.into(),
                flags as c_int,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null(),
            );
            if self.context.is_null() {
                return Err(format!("no conversion from {source:?} {width}x{height} to {pixel:?}"));
            }
            const UNIT: c_int = 1 << 16; // contrast and saturation are 16.16 fixed point
            let standard = sys::sws_getCoefficients(self.matrix);
            let libyuv = if full_range { None } else { libyuv_limited(self.matrix) };
            let coefficients = libyuv.as_ref().map_or(standard, |table| table.as_ptr());
            // YUV to YUV keeps the source's matrix and range; RGB sources have none to set.
            sys::sws_setColorspaceDetails(
                self.context,
                coefficients,
                full_range as c_int,
                standard,
                full_range as c_int,
                0,
                UNIT,
                UNIT,
            );
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turns_move_each_corner_clockwise() {
        // 3x2 picture, each pixel's value is its index.
        let picture: Vec<u8> = (0..6u8).collect();
        let turned = |turns| {
            let mut out = vec![0; 6];
            turn(&picture, 3, 2, 1, turns, &mut out);
            out
        };
        // 0 1 2      clockwise: 3 0      half: 5 4 3      counter: 2 5
        // 3 4 5                 4 1            2 1 0               1 4
        //                       5 2                                0 3
        assert_eq!(turned(1), [3, 0, 4, 1, 5, 2]);
        assert_eq!(turned(2), [5, 4, 3, 2, 1, 0]);
        assert_eq!(turned(3), [2, 5, 1, 4, 0, 3]);
    }
}
