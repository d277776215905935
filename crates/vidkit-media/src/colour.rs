//! Colour conversion of decoded screenshots to the output format's pixels: BT.709 limited-range
//! yuv420p (MP4), yuva420p (WebM) or yuva444p10le (MOV) with the screenshot's alpha, or 10-bit
//! BT.2020 PQ/HLG ([`hdr`]).
//!
//! Chromium's JPEG screenshots decode to yuvj4xxp, which by the JFIF convention is BT.601
//! matrix, full range; PNG screenshots decode to sRGB (full range RGB). swscale's defaults would
//! keep the BT.601 matrix and only squeeze the range, shifting hues once a player reads the stream
//! as BT.709, so the matrices and ranges are set explicitly on both sides. JPEGs at the encoder's
//! size take a faster fixed-point path ([`jfif`]) instead of swscale.

mod hdr;
mod jfif;
mod planar;
mod rgb;
mod source;

pub use planar::rgbx_picture;
pub use rgb::ChannelOrder;
pub(crate) use source::is_full_range;
pub use source::{source_colour, SourceColour};

use std::os::raw::c_int;

use ffmpeg::color;
use ffmpeg::format::Pixel;
use ffmpeg::frame;
use ffmpeg::software::scaling;
use ffmpeg::sys;
use ffmpeg_next as ffmpeg;

use crate::format::OutputFormat;

/// Converts decoded frames of any size and format to `width`x`height` frames of the output
/// format, keeping one swscale context per input format and size.
pub(crate) struct Converter {
    width: u32,
    height: u32,
    format: OutputFormat,
    /// What swscale produces: the output pixels, or full-range RGB for the HDR step.
    scaled: Pixel,
    hdr: Option<hdr::HdrConverter>,
    scaler: Option<scaling::Context>,
}

impl Converter {
    pub(crate) fn new(width: u32, height: u32, format: OutputFormat) -> Self {
        let hdr = format.hdr().map(hdr::HdrConverter::new);
        Converter {
            width,
            height,
            format,
            scaled: if hdr.is_some() { Pixel::RGB24 } else { format.pixel() },
            hdr,
            scaler: None,
        }
    }

    pub(crate) fn convert(&mut self, source: &frame::Video) -> Result<frame::Video, String> {
        let mut output = frame::Video::new(self.format.pixel(), self.width, self.height);
        if self.format == OutputFormat::Mp4 && jfif::applies(source, self.width, self.height) {
            jfif::convert(source, &mut output);
        } else if self.hdr.is_some() {
            let mut rgb = frame::Video::new(Pixel::RGB24, self.width, self.height);
            self.scale(source, &mut rgb)?;
            self.hdr.as_ref().expect("checked above").convert(&rgb, &mut output);
        } else {
            self.scale(source, &mut output)?;
        }
        tag(&mut output, self.format);
        Ok(output)
    }

    /// The picture of `bytes` when the caller pushed one already converted ([`rgbx_picture`]);
    /// `None` for encoded bytes. It must be of the output's size and the mp4 encoder's yuv420p.
    pub(crate) fn planar(&self, bytes: &[u8]) -> Option<Result<frame::Video, String>> {
        let parsed = planar::parse(bytes)?;
        Some(parsed.and_then(|(width, height, planes)| {
            if self.format != OutputFormat::Mp4 || (width, height) != (self.width, self.height) {
                return Err(format!(
                    "a converted {width}x{height} yuv420p picture, for a {}x{} {:?} encoder",
                    self.width, self.height, self.format
                ));
            }
            let mut output = frame::Video::new(Pixel::YUV420P, width, height);
            let mut rest = planes;
            for plane in 0..3 {
                let (w, h) = (output.plane_width(plane) as usize, output.plane_height(plane) as usize);
                let stride = output.stride(plane);
                let (samples, after) = rest.split_at(w * h);
                for (line, row) in output.data_mut(plane).chunks_mut(stride).zip(samples.chunks_exact(w)) {
                    line[..w].copy_from_slice(row);
                }
                rest = after;
            }
            tag(&mut output, self.format);
            Ok(output)
        }))
    }

    fn scale(&mut self, source: &frame::Video, output: &mut frame::Video) -> Result<(), String> {
        self.scaler_for(source)?
            .run(source, output)
            .map_err(|e| format!("colour conversion failed: {e}"))
    }

    fn scaler_for(&mut self, source: &frame::Video) -> Result<&mut scaling::Context, String> {
        let reusable = self.scaler.as_ref().is_some_and(|s| {
            let input = s.input();
            (input.format, input.width, input.height) == (source.format(), source.width(), source.height())
        });
        if !reusable {
            self.scaler = Some(self.new_scaler(source)?);
        }
        Ok(self.scaler.as_mut().expect("scaler was just created"))
    }

    fn new_scaler(&self, source: &frame::Video) -> Result<scaling::Context, String> {
        // ACCURATE_RND costs ~6 ms a 1080p frame (it bypasses swscale's SIMD paths) but keeps
        // the matrix conversion within ~1 code value; without it white lands 3 values low.
        // Bilinear beat bicubic here on both speed and accuracy; the filter only matters for
        // chroma and for screenshots taken at another size (device scale factor).
        let flags = scaling::Flags::BILINEAR | scaling::Flags::ACCURATE_RND;
        let mut scaler = scaling::Context::get(
            source.format(),
            source.width(),
            source.height(),
            self.scaled,
            self.width,
            self.height,
            flags,
        )
        .map_err(|e| {
            format!(
                "no conversion from {:?} {}x{} to {:?}: {e}",
                source.format(),
                source.width(),
                source.height(),
                self.scaled
            )
        })?;
        // RGB to RGB (the HDR step) has no matrix to set.
        if self.hdr.is_none() {
            set_colorspace(&mut scaler)?;
        }
        Ok(scaler)
    }
}

/// Declares the source as BT.601 full range and the destination as BT.709 limited range. For a
/// YUV (JPEG) source swscale then converts through RGB, so the matrix change is real and not just
/// a range squeeze; for an RGB (PNG) source the source matrix is unused and RGB is full range.
fn set_colorspace(scaler: &mut scaling::Context) -> Result<(), String> {
    const FULL_RANGE: c_int = 1;
    const LIMITED_RANGE: c_int = 0;
    const NEUTRAL_BRIGHTNESS: c_int = 0;
    const UNIT: c_int = 1 << 16; // contrast and saturation are 16.16 fixed point
                                 // SAFETY: the context pointer is valid for the scaler's lifetime, and sws_getCoefficients
                                 // returns pointers to static tables.
    let status = unsafe {
        sys::sws_setColorspaceDetails(
            scaler.as_mut_ptr(),
            sys::sws_getCoefficients(sys::SWS_CS_ITU601 as c_int),
            FULL_RANGE,
            sys::sws_getCoefficients(sys::SWS_CS_ITU709 as c_int),
            LIMITED_RANGE,
            NEUTRAL_BRIGHTNESS,
            UNIT,
            UNIT,
        )
    };
    if status < 0 {
        return Err("this libswscale cannot convert BT.601 full range to BT.709 limited range".into());
    }
    Ok(())
}

/// Tags a frame with the format's primaries, transfer and matrix, limited range.
pub(crate) fn tag(frame: &mut frame::Video, format: OutputFormat) {
    let (space, primaries, transfer) = format.colour();
    frame.set_color_range(color::Range::MPEG);
    frame.set_color_space(space);
    frame.set_color_primaries(primaries);
    frame.set_color_transfer_characteristic(transfer);
}
