//! All-intra proxies of the videos a composition plays.
//!
//! A browser seeks by decoding from the keyframe before the target, so exact per-frame seeks in a
//! source with long GOPs cost up to a whole GOP of decoding each (measured: ~150–180 ms a 1080p
//! frame with keyframes every 2 s, against ~15 ms with every frame a keyframe). The renderer
//! therefore hands the page an H.264 copy in which every frame is a keyframe, with the source's
//! timestamps, made once per render.

use std::fs;
use std::path::Path;

use ffmpeg::codec::{self, encoder};
use ffmpeg::format::Pixel;
use ffmpeg::software::scaling;
use ffmpeg::{frame, media, Dictionary, Rational};
use ffmpeg_next as ffmpeg;

use crate::error::Cause;
use crate::{libav, packets, MediaError};

/// What a proxy holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProxyStats {
    pub frames: u64,
}

/// Writes an all-intra H.264 MP4 of `input`'s video to `output`. Returns `None`, writing nothing,
/// when the input has no video stream or its pixels carry alpha (H.264 would drop it; the page
/// then plays the source itself).
pub fn intra_proxy(input: &Path, output: &Path) -> Result<Option<ProxyStats>, MediaError> {
    libav::init();
    let result = write_proxy(input, output);
    if !matches!(result, Ok(Some(_))) {
        let _ = fs::remove_file(output);
    }
    result
}

fn write_proxy(input: &Path, output: &Path) -> Result<Option<ProxyStats>, MediaError> {
    let reading = |what: &str, e: ffmpeg::Error| MediaError::io(input, Cause::of(format!("cannot {what}"), e));
    let mut source = ffmpeg::format::input(input).map_err(|e| reading("open it as a media file", e))?;
    let Some(stream) = source.streams().best(media::Type::Video) else {
        return Ok(None);
    };
    if stream.metadata().get("alpha_mode").is_some_and(|v| v == "1") {
        return Ok(None);
    }
    let (index, time_base, rate) = (stream.index(), stream.time_base(), stream.avg_frame_rate());
    let mut context = codec::Context::from_parameters(stream.parameters()).map_err(|e| reading("read its video", e))?;
    context.set_threading(codec::threading::Config::kind(codec::threading::Type::Frame));
    let mut decoder = context
        .decoder()
        .video()
        .map_err(|e| reading("open its video decoder", e))?;
    // SAFETY: libav's pixel format descriptors are static.
    let has_alpha = decoder
        .format()
        .descriptor()
        .is_some_and(|d| unsafe { (*d.as_ptr()).flags } & ffmpeg::ffi::AV_PIX_FMT_FLAG_ALPHA as u64 != 0);
    if has_alpha {
        return Ok(None);
    }

    let mut target = ffmpeg::format::output_as(output, "mp4")
        .map_err(|e| MediaError::io(output, Cause::of("cannot create it", e)))?;
    let opening = "opening libx264 for a video proxy";
    let codec =
        encoder::find_by_name("libx264").ok_or_else(|| MediaError::libav(opening, "this libavcodec has no libx264"))?;
    let mut settings = codec::Context::new_with_codec(codec)
        .encoder()
        .video()
        .map_err(|e| MediaError::libav(opening, e))?;
    settings.set_width(decoder.width());
    settings.set_height(decoder.height());
    settings.set_format(Pixel::YUV420P);
    settings.set_time_base(time_base);
    settings.set_gop(1);
    settings.set_max_b_frames(0);
    // The same colour description, so the browser converts the proxy exactly as the source.
    settings.set_colorspace(decoder.color_space());
    settings.set_color_range(decoder.color_range());
    settings.set_color_primaries(decoder.color_primaries());
    settings.set_color_transfer_characteristic(decoder.color_transfer_characteristic());
    settings.set_flags(codec::Flags::GLOBAL_HEADER);
    let mut options = Dictionary::new();
    options.set("preset", "ultrafast");
    options.set("crf", "12");
    options.set("threads", "auto");
    let mut encoder = settings.open_with(options).map_err(|e| MediaError::libav(opening, e))?;
    let mut out_stream = target
        .add_stream(codec)
        .map_err(|e| MediaError::libav("adding the proxy's video stream", e))?;
    out_stream.set_parameters(&encoder);
    out_stream.set_time_base(time_base);
    out_stream.set_avg_frame_rate(rate);
    target
        .write_header()
        .map_err(|e| MediaError::io(output, Cause::of("cannot write the header", e)))?;
    let out_time_base = target.stream(0).expect("just added").time_base();
    // Each frame lasts one frame period, so the proxy lasts as long as the source.
    let frame_duration = if rate.numerator() > 0 {
        ffmpeg::Rescale::rescale(&1i64, rate.invert(), time_base).max(1)
    } else {
        1
    };

    let mut proxy = Proxy {
        scaler: None,
        encoder: &mut encoder,
        target: &mut target,
        time_base,
        out_time_base,
        frame_duration,
        frames: 0,
        output,
    };
    let mut decoded = frame::Video::empty();
    for (packet_stream, packet) in source.packets() {
        if packet_stream.index() != index {
            continue;
        }
        decoder
            .send_packet(&packet)
            .map_err(|e| reading("decode its video", e))?;
        while decoder.receive_frame(&mut decoded).is_ok() {
            proxy.encode(&mut decoded)?;
        }
    }
    decoder.send_eof().map_err(|e| reading("decode its video", e))?;
    while decoder.receive_frame(&mut decoded).is_ok() {
        proxy.encode(&mut decoded)?;
    }
    proxy.finish()?;
    let frames = proxy.frames;
    target
        .write_trailer()
        .map_err(|e| MediaError::io(output, Cause::of("cannot write the trailer", e)))?;
    Ok(Some(ProxyStats { frames }))
}

struct Proxy<'a> {
    scaler: Option<scaling::Context>,
    encoder: &'a mut encoder::Video,
    target: &'a mut ffmpeg::format::context::Output,
    time_base: Rational,
    out_time_base: Rational,
    frame_duration: i64,
    frames: u64,
    output: &'a Path,
}

impl Proxy<'_> {
    fn encode(&mut self, decoded: &mut frame::Video) -> Result<(), MediaError> {
        let pts = decoded.timestamp();
        let mut picture = if decoded.format() == Pixel::YUV420P {
            decoded.clone()
        } else {
            let scaler = match &mut self.scaler {
                Some(scaler) => scaler,
                None => self.scaler.insert(
                    scaling::Context::get(
                        decoded.format(),
                        decoded.width(),
                        decoded.height(),
                        Pixel::YUV420P,
                        decoded.width(),
                        decoded.height(),
                        scaling::Flags::BILINEAR | scaling::Flags::ACCURATE_RND,
                    )
                    .map_err(|e| MediaError::libav("converting a video for its proxy", e))?,
                ),
            };
            let mut converted = frame::Video::empty();
            scaler
                .run(decoded, &mut converted)
                .map_err(|e| MediaError::libav("converting a video for its proxy", e))?;
            converted
        };
        picture.set_pts(pts);
        picture.set_kind(ffmpeg::picture::Type::I);
        self.encoder
            .send_frame(&picture)
            .map_err(|e| MediaError::libav("encoding a video proxy", e))?;
        self.frames += 1;
        self.write_packets()
    }

    fn finish(&mut self) -> Result<(), MediaError> {
        self.encoder
            .send_eof()
            .map_err(|e| MediaError::libav("flushing a video proxy", e))?;
        self.write_packets()
    }

    fn write_packets(&mut self) -> Result<(), MediaError> {
        let target = packets::VideoTarget {
            output: self.target,
            path: self.output,
            time_base: self.time_base,
            stream_time_base: self.out_time_base,
            duration: self.frame_duration,
        };
        packets::write_video(self.encoder, target, "encoding a video proxy")
    }
}
