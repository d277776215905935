//! Draining an encoder: the receive loop every encoder here runs after each frame and at the end.

use std::path::Path;

use ffmpeg::codec::encoder;
use ffmpeg::format::context::Output;
use ffmpeg::{Packet, Rational};
use ffmpeg_next as ffmpeg;

use crate::error::Cause;
use crate::MediaError;

/// Fills `packet` with the next packet `encoder` has ready. `Ok(false)` once it needs more input
/// (EAGAIN) or has been drained (EOF); `encoding` names the work in the error.
pub(crate) fn receive(encoder: &mut encoder::Encoder, packet: &mut Packet, encoding: &str) -> Result<bool, MediaError> {
    match encoder.receive_packet(packet) {
        Ok(()) => Ok(true),
        Err(ffmpeg::Error::Eof) => Ok(false),
        Err(ffmpeg::Error::Other { errno }) if errno == ffmpeg::util::error::EAGAIN => Ok(false),
        Err(e) => Err(MediaError::libav(encoding, e)),
    }
}

/// Where a video encoder's packets go: stream 0 of `output` (the file at `path`), each lasting
/// `duration` ticks of the encoder's `time_base`, rescaled to the stream's.
pub(crate) struct VideoTarget<'a> {
    pub(crate) output: &'a mut Output,
    pub(crate) path: &'a Path,
    pub(crate) time_base: Rational,
    pub(crate) stream_time_base: Rational,
    pub(crate) duration: i64,
}

/// Writes every packet the encoder has ready to the target.
pub(crate) fn write_video(
    encoder: &mut encoder::Video,
    target: VideoTarget<'_>,
    encoding: &str,
) -> Result<(), MediaError> {
    let mut packet = Packet::empty();
    while receive(encoder, &mut packet, encoding)? {
        packet.set_stream(0);
        packet.set_duration(target.duration);
        packet.rescale_ts(target.time_base, target.stream_time_base);
        packet
            .write_interleaved(target.output)
            .map_err(|e| MediaError::io(target.path, Cause::of("cannot write a video packet", e)))?;
    }
    Ok(())
}
