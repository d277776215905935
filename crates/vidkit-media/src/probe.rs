//! Describes a media file: container, duration and per-stream codec, size, rate, frame count
//! and colour tags, using libav's own names.

use std::collections::HashMap;
use std::path::Path;

use ffmpeg::ffi::{self as sys, AVCodecContext};
use ffmpeg::{color, media, Rational};
use ffmpeg_next as ffmpeg;

use crate::error::Cause;
use crate::libav::{self, pixel_format_name, static_name as name, with_typed_parameters};
use crate::MediaError;

#[derive(Debug, Clone, PartialEq)]
pub struct ProbeResult {
    /// libav's demuxer name, e.g. "mov,mp4,m4a,3gp,3g2,mj2".
    pub format_name: String,
    /// 0 when the container does not say.
    pub duration_seconds: f64,
    pub streams: Vec<StreamInfo>,
}

/// One stream. Video-only fields are 0 or empty for other kinds; names are empty when the file
/// leaves them unspecified.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamInfo {
    pub index: u32,
    /// "video", "audio" or "other".
    pub kind: String,
    pub codec: String,
    pub profile: String,
    pub width: u32,
    pub height: u32,
    pub pix_fmt: String,
    pub fps: f64,
    /// From the container when it records it, else counted by demuxing the file.
    pub frame_count: u64,
    pub duration_seconds: f64,
    pub color_space: String,
    pub color_transfer: String,
    pub color_primaries: String,
    /// "tv" (limited) or "pc" (full).
    pub color_range: String,
}

pub fn probe(path: &Path) -> Result<ProbeResult, MediaError> {
    libav::init();
    let mut input = ffmpeg::format::input(path)
        .map_err(|e| MediaError::io(path, Cause::of("cannot open it as a media file", e)))?;
    let format_name = input.format().name().to_owned();
    let duration_seconds = seconds(input.duration(), Rational::new(1, sys::AV_TIME_BASE)).unwrap_or(0.0);
    let mut streams: Vec<StreamInfo> = input
        .streams()
        .map(|stream| describe(&stream, duration_seconds))
        .collect();

    if streams.iter().any(|s| s.frame_count == 0) {
        let counts = count_packets(&mut input);
        for stream in streams.iter_mut().filter(|s| s.frame_count == 0) {
            stream.frame_count = counts.get(&(stream.index as usize)).copied().unwrap_or(0);
        }
    }
    Ok(ProbeResult {
        format_name,
        duration_seconds,
        streams,
    })
}

fn describe(stream: &ffmpeg::format::stream::Stream, container_duration: f64) -> StreamInfo {
    let parameters = stream.parameters();
    let kind = match parameters.medium() {
        media::Type::Video => "video",
        media::Type::Audio => "audio",
        _ => "other",
    };
    let fps = [stream.avg_frame_rate(), stream.rate()]
        .into_iter()
        .find(|r| r.numerator() > 0 && r.denominator() > 0)
        .map_or(0.0, f64::from);
    let duration_seconds = seconds(stream.duration(), stream.time_base()).unwrap_or(container_duration);

    let typed = with_typed_parameters(&parameters, Typed::read).unwrap_or_default();
    StreamInfo {
        index: stream.index() as u32,
        kind: kind.into(),
        codec: parameters.id().name().into(),
        profile: typed.profile,
        width: typed.width,
        height: typed.height,
        pix_fmt: pixel_format_name(&parameters),
        fps,
        frame_count: stream.frames().max(0) as u64,
        duration_seconds,
        color_space: typed.color_space,
        color_transfer: typed.color_transfer,
        color_primaries: typed.color_primaries,
        color_range: typed.color_range,
    }
}

/// The fields read from libav's typed view of a stream; unspecified colour tags stay empty.
#[derive(Default)]
struct Typed {
    profile: String,
    width: u32,
    height: u32,
    color_space: String,
    color_transfer: String,
    color_primaries: String,
    color_range: String,
}

impl Typed {
    fn read(raw: &AVCodecContext) -> Typed {
        // ffmpeg-next names a colour tag only when it is specified; an unspecified one stays empty.
        let named = |name: Option<&'static str>| name.unwrap_or_default().to_string();
        Typed {
            // SAFETY: libav's profile name lookup accepts any codec and profile and returns a static string.
            profile: name(unsafe { sys::avcodec_profile_name(raw.codec_id, raw.profile) }),
            width: raw.width.max(0) as u32,
            height: raw.height.max(0) as u32,
            color_space: named(color::Space::from(raw.colorspace).name()),
            color_transfer: named(color::TransferCharacteristic::from(raw.color_trc).name()),
            color_primaries: named(color::Primaries::from(raw.color_primaries).name()),
            color_range: named(color::Range::from(raw.color_range).name()),
        }
    }
}

fn count_packets(input: &mut ffmpeg::format::context::Input) -> HashMap<usize, u64> {
    let mut counts = HashMap::new();
    for (stream, _) in input.packets() {
        *counts.entry(stream.index()).or_insert(0) += 1;
    }
    counts
}

fn seconds(value: i64, time_base: Rational) -> Option<f64> {
    (value != sys::AV_NOPTS_VALUE && value > 0).then(|| value as f64 * f64::from(time_base))
}
