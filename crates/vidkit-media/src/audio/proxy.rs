//! FLAC copies of audio in a codec the browser does not play (WMA, AC-3, E-AC-3, ALAC…). The page's
//! `<audio>` needs its metadata and duration, and a page may decode it with WebAudio; the
//! soundtrack itself is mixed from the source. FLAC keeps every sample of the decoded audio at
//! little cost: 48 kHz stereo, as the mix hears it, at FLAC's fastest setting.

use std::fs;
use std::path::Path;

use ffmpeg::codec::{self, encoder};
use ffmpeg::format::{sample, Sample};
use ffmpeg::{frame, ChannelLayout, Dictionary, Packet, Rational};
use ffmpeg_next as ffmpeg;

use super::decode::decode_each;
use super::{CHANNELS, SAMPLE_RATE};
use crate::error::Cause;
use crate::{libav, MediaError};

/// What an audio proxy holds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AudioProxyStats {
    pub seconds: f64,
}

/// Writes `input`'s audio as FLAC to `output`. Returns `None`, writing nothing, when it has no
/// audio stream; fails naming libav's reason when it cannot be decoded.
pub fn flac_proxy(input: &Path, output: &Path) -> Result<Option<AudioProxyStats>, MediaError> {
    libav::init();
    let result = write_proxy(input, output);
    if !matches!(result, Ok(Some(_))) {
        let _ = fs::remove_file(output);
    }
    result
}

fn write_proxy(input: &Path, output: &Path) -> Result<Option<AudioProxyStats>, MediaError> {
    let mut target = ffmpeg::format::output_as(output, "flac")
        .map_err(|e| MediaError::io(output, Cause::of("cannot create it", e)))?;
    let opening = "opening the FLAC encoder for an audio proxy";
    let codec =
        encoder::find_by_name("flac").ok_or_else(|| MediaError::libav(opening, "this libavcodec has no flac"))?;
    let mut settings = codec::Context::new_with_codec(codec)
        .encoder()
        .audio()
        .map_err(|e| MediaError::libav(opening, e))?;
    let time_base = Rational::new(1, SAMPLE_RATE as i32);
    settings.set_rate(SAMPLE_RATE as i32);
    settings.set_format(Sample::I16(sample::Type::Packed));
    settings.set_channel_layout(ChannelLayout::STEREO);
    settings.set_time_base(time_base);
    let mut options = Dictionary::new();
    options.set("compression_level", "0");
    let mut encoder = settings.open_with(options).map_err(|e| MediaError::libav(opening, e))?;
    let mut stream = target
        .add_stream(codec)
        .map_err(|e| MediaError::libav("adding the audio proxy's stream", e))?;
    stream.set_parameters(&encoder);
    stream.set_time_base(time_base);
    target
        .write_header()
        .map_err(|e| MediaError::io(output, Cause::of("cannot write the header", e)))?;
    let stream_time_base = target.stream(0).expect("just added").time_base();

    let mut writer = Writer {
        encoder: &mut encoder,
        target: &mut target,
        output,
        time_base,
        stream_time_base,
        frame_size: 0,
        pending: Vec::new(),
        written: 0,
    };
    writer.frame_size = match writer.encoder.frame_size() as usize {
        0 => 4608,
        n => n,
    };
    if !decode_each(input, 1.0, |samples| writer.push(samples))? {
        return Ok(None);
    }
    writer.finish()?;
    let seconds = writer.written as f64 / SAMPLE_RATE as f64;
    target
        .write_trailer()
        .map_err(|e| MediaError::io(output, Cause::of("cannot write the trailer", e)))?;
    Ok(Some(AudioProxyStats { seconds }))
}

/// Cuts the decoded samples into the encoder's frames and writes what it encodes.
struct Writer<'a> {
    encoder: &'a mut encoder::Audio,
    target: &'a mut ffmpeg::format::context::Output,
    output: &'a Path,
    time_base: Rational,
    stream_time_base: Rational,
    /// Sample frames (one sample of each channel) the encoder takes at a time.
    frame_size: usize,
    /// Interleaved samples not yet sent: less than one frame's worth.
    pending: Vec<f32>,
    /// Sample frames sent so far.
    written: usize,
}

impl Writer<'_> {
    fn push(&mut self, samples: &[f32]) -> Result<(), MediaError> {
        self.pending.extend_from_slice(samples);
        let whole = self.frame_size * CHANNELS;
        let ready = self.pending.len() / whole * whole;
        if ready == 0 {
            return Ok(());
        }
        let rest = self.pending.split_off(ready);
        let full = std::mem::replace(&mut self.pending, rest);
        for chunk in full.chunks(whole) {
            self.send(chunk)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), MediaError> {
        // FLAC takes a short last frame.
        let last = std::mem::take(&mut self.pending);
        if !last.is_empty() {
            self.send(&last)?;
        }
        self.encoder
            .send_eof()
            .map_err(|e| MediaError::libav("flushing an audio proxy", e))?;
        self.write_packets()
    }

    fn send(&mut self, interleaved: &[f32]) -> Result<(), MediaError> {
        let count = interleaved.len() / CHANNELS;
        let mut audio = frame::Audio::new(Sample::I16(sample::Type::Packed), count, ChannelLayout::STEREO);
        audio.set_rate(SAMPLE_RATE);
        let quantise = |value: f32| (value.clamp(-1.0, 1.0) * i16::MAX as f32).round() as i16;
        for (out, pair) in audio
            .plane_mut::<(i16, i16)>(0)
            .iter_mut()
            .zip(interleaved.chunks(CHANNELS))
        {
            *out = (quantise(pair[0]), quantise(pair[1]));
        }
        audio.set_pts(Some(self.written as i64));
        self.encoder
            .send_frame(&audio)
            .map_err(|e| MediaError::libav("encoding an audio proxy", e))?;
        self.written += count;
        self.write_packets()
    }

    fn write_packets(&mut self) -> Result<(), MediaError> {
        let mut packet = Packet::empty();
        while crate::packets::receive(self.encoder, &mut packet, "encoding an audio proxy")? {
            packet.set_stream(0);
            packet.rescale_ts(self.time_base, self.stream_time_base);
            packet
                .write_interleaved(self.target)
                .map_err(|e| MediaError::io(self.output, Cause::of("cannot write an audio packet", e)))?;
        }
        Ok(())
    }
}
