//! Encodes the mixed soundtrack once: AAC for MP4 and MOV, Opus for WebM (which has no AAC).

use ffmpeg::codec::{self, encoder};
use ffmpeg::format::{sample, Sample};
use ffmpeg::{frame, ChannelLayout, Dictionary, Packet, Rational};
use ffmpeg_next as ffmpeg;

use super::{CHANNELS, SAMPLE_RATE};
use crate::{MediaError, OutputFormat};

const BIT_RATE: usize = 192_000;

/// The encoded soundtrack, held in memory (192 kb/s is 1.4 MB a minute) until the concat
/// interleaves it with the video.
pub(crate) struct EncodedAudio {
    pub(crate) encoder: encoder::Audio,
    pub(crate) packets: Vec<Packet>,
    pub(crate) time_base: Rational,
}

pub(crate) fn encode(samples: &[f32], format: OutputFormat, global_header: bool) -> Result<EncodedAudio, MediaError> {
    let (mut encoder, sample_format) = open(format, global_header)?;
    let time_base = Rational::new(1, SAMPLE_RATE as i32);
    let frame_size = match encoder.frame_size() as usize {
        0 => 1024,
        n => n,
    };
    let mut packets = Vec::new();
    let total = samples.len() / CHANNELS;
    let mut position = 0;
    while position < total {
        let count = frame_size.min(total - position);
        let mut audio = frame::Audio::new(sample_format, count, ChannelLayout::STEREO);
        audio.set_rate(SAMPLE_RATE);
        let chunk = &samples[position * CHANNELS..(position + count) * CHANNELS];
        if sample_format.is_planar() {
            for c in 0..CHANNELS {
                let plane = audio.plane_mut::<f32>(c);
                for (i, value) in plane.iter_mut().take(count).enumerate() {
                    *value = chunk[i * CHANNELS + c];
                }
            }
        } else {
            let plane = audio.plane_mut::<(f32, f32)>(0);
            for (i, value) in plane.iter_mut().take(count).enumerate() {
                *value = (chunk[i * CHANNELS], chunk[i * CHANNELS + 1]);
            }
        }
        audio.set_pts(Some(position as i64));
        encoder
            .send_frame(&audio)
            .map_err(|e| MediaError::libav(format!("encoding audio at sample {position}"), e))?;
        receive(&mut encoder, &mut packets)?;
        position += count;
    }
    encoder
        .send_eof()
        .map_err(|e| MediaError::libav("flushing the audio encoder", e))?;
    receive(&mut encoder, &mut packets)?;
    Ok(EncodedAudio {
        encoder,
        packets,
        time_base,
    })
}

/// The encoder of a `format` output's soundtrack, opened, and the sample layout it takes. Its
/// parameters (codec, rate, extradata, priming) are what the muxer is given, so a soundtrack read
/// back from a file ([`load`]) gets them from an encoder opened the same way.
pub(crate) fn open(format: OutputFormat, global_header: bool) -> Result<(encoder::Audio, Sample), MediaError> {
    let (name, sample_format) = match format {
        OutputFormat::Webm => ("libopus", Sample::F32(sample::Type::Packed)),
        _ => ("aac", Sample::F32(sample::Type::Planar)),
    };
    let opening = format!("opening the {name} audio encoder");
    let codec = encoder::find_by_name(name)
        .ok_or_else(|| MediaError::libav(&opening, format!("this libavcodec was built without {name}")))?;
    let mut context = codec::Context::new_with_codec(codec)
        .encoder()
        .audio()
        .map_err(|e| MediaError::libav(&opening, e))?;
    context.set_rate(SAMPLE_RATE as i32);
    context.set_format(sample_format);
    context.set_channel_layout(ChannelLayout::STEREO);
    context.set_time_base(Rational::new(1, SAMPLE_RATE as i32));
    context.set_bit_rate(BIT_RATE);
    if global_header {
        context.set_flags(codec::Flags::GLOBAL_HEADER);
    }
    let encoder = context
        .open_with(Dictionary::new())
        .map_err(|e| MediaError::libav(&opening, e))?;
    Ok((encoder, sample_format))
}

fn receive(encoder: &mut encoder::Audio, packets: &mut Vec<Packet>) -> Result<(), MediaError> {
    let mut packet = Packet::empty();
    while crate::packets::receive(encoder, &mut packet, "encoding audio")? {
        packets.push(packet);
        packet = Packet::empty();
    }
    Ok(())
}
