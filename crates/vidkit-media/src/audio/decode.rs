//! Decodes a media file's audio to interleaved stereo f32 at the output rate. A playback rate is
//! applied by resampling: declaring the source rate as `rate × playbackRate` makes it play faster
//! or slower (and higher or lower).

use std::path::Path;
use std::ptr;

use ffmpeg::ffi as sys;
use ffmpeg::{codec, frame, media};
use ffmpeg_next as ffmpeg;

use super::{CHANNELS, SAMPLE_RATE};
use crate::error::Cause;
use crate::{libav, MediaError};

/// The audio of `path` at output speed, or `None` when it has no audio stream.
pub(super) fn decode(path: &Path, playback_rate: f64) -> Result<Option<Vec<f32>>, MediaError> {
    let mut out = Vec::new();
    let found = decode_each(path, playback_rate, |samples| {
        out.extend_from_slice(samples);
        Ok(())
    })?;
    Ok(found.then_some(out))
}

/// Streams the audio of `path` at output speed to `sink`, a run of interleaved samples at a
/// time. Returns false, calling nothing, when it has no audio stream.
pub(super) fn decode_each(
    path: &Path,
    playback_rate: f64,
    mut sink: impl FnMut(&[f32]) -> Result<(), MediaError>,
) -> Result<bool, MediaError> {
    libav::init();
    let fail = |what: &str, e: ffmpeg::Error| MediaError::io(path, Cause::of(format!("cannot {what}"), e));
    let mut input = ffmpeg::format::input(path).map_err(|e| fail("open it as a media file", e))?;
    let Some(stream) = input.streams().best(media::Type::Audio) else {
        return Ok(false);
    };
    let index = stream.index();
    let mut decoder = codec::Context::from_parameters(stream.parameters())
        .and_then(|c| c.decoder().audio())
        .map_err(|e| fail("open its audio decoder", e))?;
    let mut resampler: Option<Resampler> = None;
    let mut out = Vec::new();
    let mut frame = frame::Audio::empty();
    let mut drain = |decoder: &mut ffmpeg::decoder::Audio, out: &mut Vec<f32>| -> Result<(), MediaError> {
        while decoder.receive_frame(&mut frame).is_ok() {
            if resampler.is_none() {
                resampler = Some(Resampler::new(&frame, playback_rate).map_err(|e| fail("resample its audio", e))?);
            }
            resampler
                .as_mut()
                .expect("just created")
                .push(Some(&frame), out)
                .map_err(|e| fail("resample its audio", e))?;
        }
        Ok(())
    };
    let mut rejected = None;
    for (packet_stream, packet) in input.packets() {
        if packet_stream.index() != index {
            continue;
        }
        // A damaged packet loses its few milliseconds, not the whole track.
        match decoder.send_packet(&packet) {
            Ok(()) => {
                drain(&mut decoder, &mut out)?;
                sink(&out)?;
                out.clear();
            }
            Err(e) => {
                rejected.get_or_insert(e);
            }
        }
    }
    let _ = decoder.send_eof();
    drain(&mut decoder, &mut out)?;
    let Some(mut resampler) = resampler else {
        // Not one packet decoded: the stream is not what its header says.
        return match rejected {
            Some(e) => Err(fail("decode its audio", e)),
            None => Ok(true),
        };
    };
    resampler
        .push(None, &mut out)
        .map_err(|e| fail("resample its audio", e))?;
    sink(&out)?;
    Ok(true)
}

/// libswresample to packed stereo f32 at the output rate.
struct Resampler {
    context: *mut sys::SwrContext,
}

impl Resampler {
    fn new(first: &frame::Audio, playback_rate: f64) -> Result<Self, ffmpeg::Error> {
        // SAFETY: the layouts live for the call; swr copies them. The frame pointer is valid.
        unsafe {
            let source = first.as_ptr();
            let mut in_layout: sys::AVChannelLayout = std::mem::zeroed();
            if first.channel_layout().is_empty() || (*source).ch_layout.nb_channels == 0 {
                sys::av_channel_layout_default(&mut in_layout, (*source).ch_layout.nb_channels.max(1));
            } else {
                sys::av_channel_layout_copy(&mut in_layout, &(*source).ch_layout);
            }
            let mut out_layout: sys::AVChannelLayout = std::mem::zeroed();
            sys::av_channel_layout_default(&mut out_layout, CHANNELS as i32);
            let declared_rate = ((*source).sample_rate as f64 * playback_rate).round() as i32;
            let mut context = ptr::null_mut();
            let status = sys::swr_alloc_set_opts2(
                &mut context,
                &mut out_layout,
                sys::AVSampleFormat::AV_SAMPLE_FMT_FLT,
                SAMPLE_RATE as i32,
                &mut in_layout,
                std::mem::transmute::<i32, sys::AVSampleFormat>((*source).format),
                declared_rate,
                0,
                ptr::null_mut(),
            );
            let mono = in_layout.nb_channels == 1;
            sys::av_channel_layout_uninit(&mut in_layout);
            sys::av_channel_layout_uninit(&mut out_layout);
            let resampler = Resampler { context };
            if status < 0 {
                return Err(ffmpeg::Error::from(status));
            }
            if mono {
                // A mono source plays at full level on both sides, as in a browser and HyperFrames;
                // swr's own upmix would lower it by 3 dB.
                let both = [1.0f64; CHANNELS];
                let status = sys::swr_set_matrix(context, both.as_ptr(), 1);
                if status < 0 {
                    return Err(ffmpeg::Error::from(status));
                }
            }
            let status = sys::swr_init(context);
            if status < 0 {
                return Err(ffmpeg::Error::from(status));
            }
            Ok(resampler)
        }
    }

    /// Converts `frame` (or, with `None`, what the resampler still holds) and appends it.
    fn push(&mut self, frame: Option<&frame::Audio>, out: &mut Vec<f32>) -> Result<(), ffmpeg::Error> {
        // SAFETY: the output buffer has room for `capacity` frames of CHANNELS floats; the input
        // pointers come from a decoded frame that outlives the call.
        unsafe {
            let (input, count) = match frame {
                Some(f) => ((*f.as_ptr()).extended_data as *mut *const u8, (*f.as_ptr()).nb_samples),
                None => (ptr::null_mut(), 0),
            };
            let capacity = sys::swr_get_out_samples(self.context, count).max(0) as usize + 32;
            let start = out.len();
            out.resize(start + capacity * CHANNELS, 0.0);
            let mut output = out[start..].as_mut_ptr() as *mut u8;
            let written = sys::swr_convert(self.context, &mut output, capacity as i32, input, count);
            if written < 0 {
                out.truncate(start);
                return Err(ffmpeg::Error::from(written));
            }
            out.truncate(start + written as usize * CHANNELS);
            Ok(())
        }
    }
}

impl Drop for Resampler {
    fn drop(&mut self) {
        // SAFETY: the context was allocated by swr_alloc_set_opts2 and is freed once.
        unsafe { sys::swr_free(&mut self.context) };
    }
}
