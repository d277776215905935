//! The hls format: a joined MP4 (H.264, AAC) remuxed by stream copy into an HTTP Live Streaming
//! directory: `master.m3u8`, the media playlist `stream.m3u8` and MPEG-TS segments
//! `stream_00000.ts`... The muxer cuts a segment at the first keyframe at or past each
//! `segment_seconds`; the encoder puts a keyframe exactly there (see
//! [`crate::EncoderOptions::keyframe_interval`]), so every segment starts on one and lasts
//! `segment_seconds`, the last one excepted.

use std::fs;
use std::os::raw::c_int;
use std::path::Path;

use ffmpeg::ffi as sys;
use ffmpeg::{codec, encoder, media, Dictionary, Packet};
use ffmpeg_next as ffmpeg;

use crate::error::Cause;
use crate::{libav, MediaError};

pub const HLS_MASTER_PLAYLIST: &str = "master.m3u8";
pub const HLS_MEDIA_PLAYLIST: &str = "stream.m3u8";

/// What a packaging produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HlsStats {
    /// MPEG-TS segment files written.
    pub segments: u64,
    /// Video packets written, one a frame.
    pub frames: u64,
}

/// Writes the HLS playlists and segments of `input` into the existing, empty directory `dir`.
/// On error the directory is left for the caller to remove (it is the caller's temporary one).
pub fn package_hls(input: &Path, dir: &Path, segment_seconds: u32) -> Result<HlsStats, MediaError> {
    libav::init();
    if !(1..=60).contains(&segment_seconds) {
        return Err(MediaError::InvalidOptions(format!(
            "segmentSeconds must be a whole number from 1 to 60, got {segment_seconds}"
        )));
    }
    let mut source = ffmpeg::format::input(input)
        .map_err(|e| MediaError::io(input, Cause::of("cannot open the joined video", e)))?;
    let playlist = dir.join(HLS_MEDIA_PLAYLIST);
    // Declared before `output`, so it outlives every close the muxer makes (see `keep_close_failures`).
    let mut close_failure: c_int = 0;
    let mut output = ffmpeg::format::output_as(&playlist, "hls")
        .map_err(|e| MediaError::io(&playlist, Cause::of("cannot create the playlist", e)))?;
    keep_close_failures(&mut output, &mut close_failure);

    // Input stream index -> output stream index, for the video and audio streams.
    let mut mapping = vec![None; source.nb_streams() as usize];
    let mut video = None;
    for stream in source.streams() {
        let kind = stream.parameters().medium();
        if kind != media::Type::Video && kind != media::Type::Audio {
            continue;
        }
        let mut copy = output
            .add_stream(encoder::find(codec::Id::None))
            .map_err(|e| MediaError::libav("adding a stream to the playlist", e))?;
        copy.set_parameters(stream.parameters());
        // SAFETY: the parameters were just allocated by libav for this stream and nothing else
        // holds them. MPEG-TS picks its own stream types; an MP4 tag would be refused.
        unsafe { (*copy.parameters().as_mut_ptr()).codec_tag = 0 };
        copy.set_time_base(stream.time_base());
        if kind == media::Type::Video {
            video = Some(copy.index());
        }
        mapping[stream.index()] = Some(copy.index());
    }
    let video = video.ok_or_else(|| MediaError::io(input, "the joined video has no video stream"))?;

    let mut options = Dictionary::new();
    options.set("hls_time", &segment_seconds.to_string());
    options.set("hls_playlist_type", "vod");
    options.set("hls_flags", "independent_segments");
    options.set("hls_segment_type", "mpegts");
    options.set("master_pl_name", HLS_MASTER_PLAYLIST);
    options.set("hls_segment_filename", &dir.join("stream_%05d.ts").to_string_lossy());
    let writing =
        |what: &str, e: ffmpeg::Error| MediaError::io(&playlist, Cause::of(format!("cannot write {what}"), e));
    output
        .write_header_with(options)
        .map_err(|e| writing("the playlist header", e))?;

    let mut frames = 0;
    let time_bases: Vec<_> = source.streams().map(|s| s.time_base()).collect();
    let out_time_bases: Vec<_> = output.streams().map(|s| s.time_base()).collect();
    for (stream, mut packet) in source.packets() {
        let Some(target) = mapping[stream.index()] else {
            continue;
        };
        copy_packet(&mut packet, time_bases[stream.index()], out_time_bases[target], target);
        if target == video {
            frames += 1;
        }
        packet
            .write_interleaved(&mut output)
            .map_err(|e| writing("a segment", e))?;
    }
    output.write_trailer().map_err(|e| writing("the playlist", e))?;
    drop(output);
    if close_failure < 0 {
        return Err(writing(
            "a segment or the playlists",
            ffmpeg::Error::from(close_failure),
        ));
    }

    let segments = fs::read_dir(dir)
        .map_err(|e| MediaError::io(dir, e))?
        .filter_map(Result::ok)
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".ts"))
        .count() as u64;
    Ok(HlsStats { segments, frames })
}

/// libav's hls muxer logs a file it could not finish (a segment cut short by a full disk, a
/// playlist never flushed) as a warning and goes on, so a packaging on a full disk would end as a
/// success with a short segment and empty playlists. Every file it writes is closed through its
/// context's `io_close2`: this one closes it as libav's own does and keeps the first failure in
/// `failure`, which must outlive `output`.
fn keep_close_failures(output: &mut ffmpeg::format::context::Output, failure: &mut c_int) {
    // SAFETY: the context is a valid output context owned by `output`; `opaque` is libav's field
    // for the caller's own data, which the hls muxer hands on to its nested MPEG-TS muxer as is,
    // and the caller keeps `failure` alive until `output` is dropped.
    unsafe {
        let context = output.as_mut_ptr();
        (*context).opaque = (failure as *mut c_int).cast();
        (*context).io_close2 = Some(close_keeping_failure);
    }
}

/// `io_close2` of an hls packaging: `avio_close`, which returns the write error the file met,
/// with the first failure kept where the context's `opaque` points (see [`keep_close_failures`]).
unsafe extern "C" fn close_keeping_failure(context: *mut sys::AVFormatContext, pb: *mut sys::AVIOContext) -> c_int {
    // SAFETY: libav hands a context this packaging set up and an AVIOContext it opened and now
    // gives up; avio_close frees it.
    let result = unsafe { sys::avio_close(pb) };
    let failure = unsafe { (*context).opaque } as *mut c_int;
    if result < 0 && !failure.is_null() && unsafe { *failure } == 0 {
        // SAFETY: `opaque` points at the packaging's `close_failure`, alive while the muxer runs.
        unsafe { *failure = result };
    }
    result
}

fn copy_packet(packet: &mut Packet, from: ffmpeg::Rational, to: ffmpeg::Rational, stream: usize) {
    packet.rescale_ts(from, to);
    packet.set_stream(stream);
    packet.set_position(-1);
}
