//! The decode thread: turns pushed JPEG/PNG bytes (or pictures the caller already converted) into
//! encoder-ready frames of the output format.

use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Arc;

use ffmpeg::codec::{self, decoder, packet};
use ffmpeg::{frame, Packet};
use ffmpeg_next as ffmpeg;

use super::flow::Flow;
use super::InputFormat;
use crate::colour::Converter;
use crate::{MediaError, OutputFormat};

/// What the caller pushed, numbered in push order.
pub(crate) enum Job {
    Image { index: u64, bytes: Arc<Vec<u8>> },
    Repeat { index: u64 },
}

/// What the encode thread receives. A repeat carries no pixels: the encode thread re-sends the
/// frame it already holds, so an undamaged browser frame costs neither a decode nor a copy.
pub(crate) enum Picture {
    New { index: u64, frame: frame::Video },
    Repeat { index: u64 },
}

/// Runs until the job channel closes (finish or abort) or the pipeline fails.
pub(crate) fn run(
    input: InputFormat,
    format: OutputFormat,
    width: u32,
    height: u32,
    jobs: Receiver<Job>,
    pictures: SyncSender<Picture>,
    flow: Arc<Flow>,
) {
    let mut decoder = match open_decoder(input) {
        Ok(decoder) => decoder,
        Err(error) => return flow.fail(error),
    };
    let mut converter = Converter::new(width, height, format);
    for job in jobs {
        if flow.has_failed() {
            return;
        }
        let picture = match job {
            Job::Image { index, bytes } => {
                let picture = match converter.planar(&bytes) {
                    Some(picture) => picture,
                    None => decode(&mut decoder, input, &bytes).and_then(|f| converter.convert(&f)),
                };
                match picture {
                    Ok(frame) => Picture::New { index, frame },
                    Err(message) => return flow.fail(MediaError::frame(index, message)),
                }
            }
            Job::Repeat { index } => Picture::Repeat { index },
        };
        if pictures.send(picture).is_err() {
            // The encode thread stopped, and it recorded why in `flow`.
            return;
        }
    }
}

fn open_decoder(input: InputFormat) -> Result<decoder::Video, MediaError> {
    let name = input.label();
    let id = match input {
        InputFormat::Jpeg => codec::Id::MJPEG,
        InputFormat::Png => codec::Id::PNG,
    };
    let codec = decoder::find(id).ok_or_else(|| {
        MediaError::libav(
            format!("opening the {name} decoder"),
            "this libavcodec has no such decoder",
        )
    })?;
    let mut context = codec::Context::new_with_codec(codec);
    // One thread: frame threading would hold pictures back, and each decode must yield its
    // picture immediately so repeats and frame numbers stay in push order.
    context.set_threading(codec::threading::Config::count(1));
    context
        .decoder()
        .video()
        .map_err(|e| MediaError::libav(format!("opening the {name} decoder"), e))
}

fn decode(decoder: &mut decoder::Video, input: InputFormat, bytes: &[u8]) -> Result<frame::Video, String> {
    let name = input.label();
    if bytes.is_empty() {
        return Err(format!("the pushed {name} is empty"));
    }
    // `copy` (not `borrow`): libav decoders read up to 64 bytes past the end of a packet, which a
    // copy pads with zeros.
    let mut packet = Packet::copy(bytes);
    // Every screenshot is a whole picture. Without the key flag libav's PNG decoder treats a
    // packet as a delta on the previous picture and adds the two.
    packet.set_flags(packet::Flags::KEY);
    decoder
        .send_packet(&packet)
        .map_err(|e| format!("cannot decode the pushed {name} ({} bytes): {e}", bytes.len()))?;
    let mut frame = frame::Video::empty();
    decoder
        .receive_frame(&mut frame)
        .map_err(|e| format!("the pushed {name} ({} bytes) decoded to no picture: {e}", bytes.len()))?;
    Ok(frame)
}
