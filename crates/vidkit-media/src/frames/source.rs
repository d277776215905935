//! A file's video stream decoded in presentation order, each picture with its media time, plus
//! the alpha channel that WebM's VP8/VP9 carry beside the picture (libavcodec's own decoders drop
//! it, so a second decoder of the same codec reads it).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use ffmpeg::ffi as sys;
use ffmpeg::packet::side_data::Type as SideData;
use ffmpeg::{codec, decoder, format, frame, media, Packet, Rational};
use ffmpeg_next as ffmpeg;

use super::select;
use crate::error::{Cause, ErrorCode};
use crate::{libav, MediaError};

/// What a page's `<video>` reports of its source.
#[derive(Debug, Clone, PartialEq)]
pub struct VideoInfo {
    /// The picture's size as a browser shows it: after the sample aspect ratio and rotation.
    pub width: u32,
    pub height: u32,
    /// The container's duration: what a browser reports as the element's `duration`.
    pub duration_seconds: f64,
    /// Where the video stream ends; a looping clip repeats at this length, as in HyperFrames.
    pub video_duration_seconds: f64,
    /// Whether pictures carry alpha (a pixel format with alpha, or WebM's `alpha_mode`).
    pub has_alpha: bool,
    /// libav's name of the video codec, e.g. "h264".
    pub codec: String,
}

/// How a decoded picture becomes the displayed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Display {
    /// Size after the sample aspect ratio, before rotation.
    pub width: u32,
    pub height: u32,
    /// Clockwise quarter turns from the container's display matrix.
    pub quarter_turns: u8,
    /// libav's codec id, for the colour matrix a browser assumes when the file names none.
    pub codec: codec::Id,
}

/// One decoded picture and its media time: seconds from the container's start, as a browser
/// counts `currentTime`.
pub(crate) struct Picture {
    pub time: f64,
    pub frame: frame::Video,
    pub alpha: Option<frame::Video>,
}

pub(crate) struct Source {
    path: PathBuf,
    input: format::context::Input,
    index: usize,
    time_base: f64,
    /// The container's start in seconds: a browser's media time 0.
    start: f64,
    /// Seconds a picture without a timestamp follows the one before it.
    frame_period: f64,
    decoder: decoder::Video,
    alpha: Option<AlphaDecoder>,
    /// End of file reached and the decoders told so.
    drained: bool,
    last_time: Option<f64>,
    /// See [`select::rounding_allowance`].
    pub allowance: f64,
    pub display: Display,
}

/// Pictures this large decode on two threads (4K H.264 or HEVC is too slow on one for 30 fps).
const LARGE_PICTURE: u32 = 3840 * 2160;

impl Source {
    /// Opens `path`'s best video stream and its decoder; `None` when the file has no video.
    pub fn open(path: &Path) -> Result<Option<(Source, VideoInfo)>, MediaError> {
        libav::init();
        let fail = |what: &str, e: ffmpeg::Error| {
            MediaError::io(
                path,
                Cause::of(format!("cannot {what}"), e).or_code(ErrorCode::DecodeFailed),
            )
        };
        let input = ffmpeg::format::input(path).map_err(|e| fail("open it as a media file", e))?;
        let Some(stream) = input.streams().best(media::Type::Video) else {
            return Ok(None);
        };
        let index = stream.index();
        let time_base = f64::from(stream.time_base());
        let codec_id = stream.parameters().id();
        let mut context =
            codec::Context::from_parameters(stream.parameters()).map_err(|e| fail("read its video", e))?;
        if area(&stream) >= LARGE_PICTURE {
            context.set_threading(codec::threading::Config {
                kind: codec::threading::Type::Frame,
                count: 2,
                ..Default::default()
            });
        }
        let decoder = context.decoder().video().map_err(|e| {
            fail(
                &format!(
                    "decode its {} video (this build of libav has no decoder for it)",
                    codec_id.name()
                ),
                e,
            )
        })?;
        let alpha_mode = stream.metadata().get("alpha_mode").is_some_and(|v| v == "1");
        let alpha = if alpha_mode {
            Some(AlphaDecoder::open(&stream).map_err(|e| fail("decode its alpha channel", e))?)
        } else {
            None
        };
        // SAFETY: the context is open; start_time is a plain field.
        let container_start = unsafe { (*input.as_ptr()).start_time };
        let start = if container_start != sys::AV_NOPTS_VALUE {
            container_start as f64 / f64::from(sys::AV_TIME_BASE)
        } else if stream.start_time() != sys::AV_NOPTS_VALUE {
            stream.start_time() as f64 * time_base
        } else {
            0.0
        };
        let rate = stream.avg_frame_rate();
        let frame_period = if rate.numerator() > 0 && rate.denominator() > 0 {
            1.0 / f64::from(rate)
        } else {
            1.0 / 25.0
        };
        let container_duration = if input.duration() > 0 {
            input.duration() as f64 / f64::from(sys::AV_TIME_BASE)
        } else {
            0.0
        };
        let stream_end = if stream.duration() > 0 {
            let stream_start = if stream.start_time() != sys::AV_NOPTS_VALUE {
                stream.start_time()
            } else {
                0
            };
            (stream_start + stream.duration()) as f64 * time_base - start
        } else {
            container_duration
        };
        let (width, height) = natural_size(decoder.width(), decoder.height(), sample_aspect(&stream, &decoder));
        let display = Display {
            width,
            height,
            quarter_turns: quarter_turns(&stream),
            codec: codec_id,
        };
        let (shown_width, shown_height) = if display.quarter_turns % 2 == 1 {
            (height, width)
        } else {
            (width, height)
        };
        let info = VideoInfo {
            width: shown_width,
            height: shown_height,
            duration_seconds: if container_duration > 0.0 {
                container_duration
            } else {
                stream_end
            },
            video_duration_seconds: stream_end,
            has_alpha: alpha_mode || has_alpha_pixels(decoder.format()),
            codec: codec_id.name().to_owned(),
        };
        let source = Source {
            path: path.to_path_buf(),
            input,
            index,
            time_base,
            start,
            frame_period,
            decoder,
            alpha,
            drained: false,
            last_time: None,
            allowance: select::rounding_allowance(time_base),
            display,
        };
        Ok(Some((source, info)))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next picture in presentation order; `None` after the last.
    pub fn next(&mut self) -> Result<Option<Picture>, MediaError> {
        loop {
            let mut decoded = frame::Video::empty();
            if self.decoder.receive_frame(&mut decoded).is_ok() {
                return Ok(Some(self.picture(decoded)));
            }
            if self.drained {
                return Ok(None);
            }
            self.feed()?;
        }
    }

    /// Moves to the keyframe at or before media time `seconds`; the next picture comes from there.
    pub fn seek(&mut self, seconds: f64) -> Result<(), MediaError> {
        let target = ((seconds.max(0.0) + self.start) / self.time_base).floor() as i64;
        // SAFETY: the context is open; seeking only moves its read position.
        let status =
            unsafe { sys::avformat_seek_file(self.input.as_mut_ptr(), self.index as i32, i64::MIN, target, target, 0) };
        if status < 0 {
            // Formats without an index still seek by their own means to the stream's start.
            let status = unsafe {
                sys::av_seek_frame(
                    self.input.as_mut_ptr(),
                    self.index as i32,
                    target,
                    sys::AVSEEK_FLAG_BACKWARD,
                )
            };
            if status < 0 {
                return Err(MediaError::io(
                    &self.path,
                    Cause::of(format!("cannot seek to {seconds:.3} s"), ffmpeg::Error::from(status))
                        .or_code(ErrorCode::DecodeFailed),
                ));
            }
        }
        self.decoder.flush();
        if let Some(alpha) = &mut self.alpha {
            alpha.flush();
        }
        self.drained = false;
        self.last_time = None;
        Ok(())
    }

    /// Reads packets until one of the video stream went to the decoder, or the file ended.
    fn feed(&mut self) -> Result<(), MediaError> {
        let mut packet = Packet::empty();
        loop {
            match packet.read(&mut self.input) {
                Ok(()) => {
                    if packet.stream() != self.index {
                        continue;
                    }
                    if let Some(alpha) = &mut self.alpha {
                        alpha.send(&packet);
                    }
                    // A damaged packet loses its picture, not the video.
                    let _ = self.decoder.send_packet(&packet);
                    return Ok(());
                }
                Err(ffmpeg::Error::Eof) => {
                    let _ = self.decoder.send_eof();
                    if let Some(alpha) = &mut self.alpha {
                        alpha.finish();
                    }
                    self.drained = true;
                    return Ok(());
                }
                Err(e) => {
                    return Err(MediaError::io(
                        &self.path,
                        Cause::of("cannot read its video", e).or_code(ErrorCode::DecodeFailed),
                    ))
                }
            }
        }
    }

    fn picture(&mut self, frame: frame::Video) -> Picture {
        let stamp = frame.timestamp();
        let time = match stamp {
            Some(ts) => ts as f64 * self.time_base - self.start,
            None => self.last_time.map_or(0.0, |t| t + self.frame_period),
        };
        self.last_time = Some(time);
        let alpha = match (&mut self.alpha, stamp) {
            (Some(alpha), Some(ts)) => alpha.take(ts),
            _ => None,
        };
        Picture { time, frame, alpha }
    }
}

fn area(stream: &format::stream::Stream) -> u32 {
    libav::with_typed_parameters(&stream.parameters(), |raw| {
        (raw.width.max(0) as u32).saturating_mul(raw.height.max(0) as u32)
    })
    .unwrap_or(0)
}

fn sample_aspect(stream: &format::stream::Stream, decoder: &decoder::Video) -> Rational {
    let from_stream = stream.parameters();
    let sar = libav::with_typed_parameters(&from_stream, |raw| Rational::from(raw.sample_aspect_ratio))
        .unwrap_or(Rational(0, 1));
    if sar.numerator() > 0 && sar.denominator() > 0 {
        sar
    } else {
        decoder.aspect_ratio()
    }
}

/// A browser's natural size of a picture: a sample aspect ratio above 1 widens it, one below 1
/// makes it taller, so no picture line is lost.
fn natural_size(width: u32, height: u32, sar: Rational) -> (u32, u32) {
    if sar.numerator() <= 0 || sar.denominator() <= 0 || sar.numerator() == sar.denominator() {
        return (width, height);
    }
    let ratio = f64::from(sar);
    if ratio > 1.0 {
        (((f64::from(width) * ratio).round() as u32).max(1), height)
    } else {
        (width, ((f64::from(height) / ratio).round() as u32).max(1))
    }
}

/// Clockwise quarter turns a player applies from the stream's display matrix (phones record
/// portrait video as landscape pictures with a 90 degree rotation).
fn quarter_turns(stream: &format::stream::Stream) -> u8 {
    for side in stream.side_data() {
        if side.kind() != SideData::DisplayMatrix || side.data().len() < 9 * 4 {
            continue;
        }
        // SAFETY: the matrix is 9 int32 values, checked above; libav only reads them.
        let counter_clockwise = unsafe { sys::av_display_rotation_get(side.data().as_ptr() as *const i32) };
        if counter_clockwise.is_nan() {
            return 0;
        }
        let clockwise = (-counter_clockwise).rem_euclid(360.0);
        return ((clockwise / 90.0).round() as u32 % 4) as u8;
    }
    0
}

fn has_alpha_pixels(format: ffmpeg::format::Pixel) -> bool {
    // SAFETY: libav's pixel format descriptors are static.
    format
        .descriptor()
        .is_some_and(|d| unsafe { (*d.as_ptr()).flags } & sys::AV_PIX_FMT_FLAG_ALPHA as u64 != 0)
}

/// The alpha pictures of a WebM stream with `alpha_mode`: each packet's BlockAdditional 1 is a
/// picture of the same codec whose luma is the alpha channel.
struct AlphaDecoder {
    decoder: decoder::Video,
    /// Decoded alpha pictures by the timestamp of the packet they came with.
    ready: VecDeque<(i64, frame::Video)>,
}

/// Matroska's BlockAddID of the alpha channel.
const ALPHA_BLOCK_ADDITIONAL: u64 = 1;

impl AlphaDecoder {
    fn open(stream: &format::stream::Stream) -> Result<Self, ffmpeg::Error> {
        let decoder = codec::Context::from_parameters(stream.parameters())?
            .decoder()
            .video()?;
        Ok(AlphaDecoder {
            decoder,
            ready: VecDeque::new(),
        })
    }

    fn send(&mut self, packet: &Packet) {
        let Some(payload) = packet.side_data().find_map(|side| {
            let data = side.data();
            (side.kind() == SideData::MatroskaBlockAdditional
                && data.len() > 8
                && u64::from_be_bytes(data[..8].try_into().expect("8 bytes")) == ALPHA_BLOCK_ADDITIONAL)
                .then(|| data[8..].to_vec())
        }) else {
            return;
        };
        let mut alpha = Packet::copy(&payload);
        alpha.set_pts(packet.pts());
        alpha.set_dts(packet.dts());
        if self.decoder.send_packet(&alpha).is_ok() {
            self.drain();
        }
    }

    fn finish(&mut self) {
        let _ = self.decoder.send_eof();
        self.drain();
    }

    fn drain(&mut self) {
        let mut decoded = frame::Video::empty();
        while self.decoder.receive_frame(&mut decoded).is_ok() {
            if let Some(ts) = decoded.timestamp() {
                self.ready
                    .push_back((ts, std::mem::replace(&mut decoded, frame::Video::empty())));
            }
        }
    }

    /// The alpha picture of the picture stamped `ts`; older ones (pictures that had none) go.
    fn take(&mut self, ts: i64) -> Option<frame::Video> {
        while let Some((stamp, _)) = self.ready.front() {
            if *stamp < ts {
                self.ready.pop_front();
            } else {
                break;
            }
        }
        match self.ready.front() {
            Some((stamp, _)) if *stamp == ts => self.ready.pop_front().map(|(_, f)| f),
            _ => None,
        }
    }

    fn flush(&mut self) {
        self.decoder.flush();
        self.ready.clear();
    }
}
