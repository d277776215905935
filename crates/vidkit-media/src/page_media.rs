//! What the browser is given for a media file a page loads itself (an `<audio>`, a fetch for
//! WebAudio, a video file played as audio; `<video>` pictures come from the native decoder,
//! frames.rs): a FLAC proxy of audio in a codec the browser does not play (audio/proxy.rs), or the
//! file itself once libav has decoded its first frame. Every such file passes here first, so one
//! that cannot be decoded fails at once with libav's reason, where the page would only wait for it.

use std::path::{Path, PathBuf};

use ffmpeg::format::stream::Disposition;
use ffmpeg::{codec, frame, media};
use ffmpeg_next as ffmpeg;

use crate::audio::flac_proxy;
use crate::error::{Cause, ErrorCode};
use crate::{libav, MediaError};

/// Containers (libav's demuxer names) and audio codecs that Debian's Chromium plays in an
/// `<audio>` and decodes with WebAudio, as measured with the headless shell (PCM in f64, ALAC,
/// AC-3, E-AC-3 and WMA it does not; MPEG-TS it does not open).
const BROWSER_CONTAINERS: &[&str] = &[
    "mov,mp4,m4a,3gp,3g2,mj2",
    "matroska,webm",
    "ogg",
    "wav",
    "mp3",
    "flac",
    "aac",
];
const BROWSER_AUDIO_CODECS: &[&str] = &[
    "aac",
    "mp3",
    "opus",
    "vorbis",
    "flac",
    "pcm_u8",
    "pcm_s16le",
    "pcm_s16be",
    "pcm_s24le",
    "pcm_s32le",
    "pcm_f32le",
];

/// Packets of a stream read for its first frame before the file counts as undecodable.
const FIRST_FRAME_PACKETS: usize = 64;

/// What the page gets instead of a media file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PageMedia {
    /// The file itself: the browser plays it (audio it knows, or a file with video and no audio).
    Source,
    /// A FLAC copy of its audio, written at the returned path.
    AudioProxy(PathBuf),
}

/// Decides what the page plays for `input` and writes the proxy it needs, at `proxy_stem` with
/// the extension `.flac`. Fails naming libav's reason when the file cannot be decoded or holds
/// neither audio nor video.
pub fn page_media(input: &Path, proxy_stem: &Path) -> Result<PageMedia, MediaError> {
    libav::init();
    let mut source = ffmpeg::format::input(input)
        .map_err(|e| MediaError::io(input, Cause::of("cannot open it as a media file", e)))?;
    // A picture attached to an audio file (cover art) is not a video to play.
    let video = source
        .streams()
        .filter(|s| s.parameters().medium() == media::Type::Video)
        .find(|s| !s.disposition().contains(Disposition::ATTACHED_PIC))
        .map(|s| s.index());
    let Some(audio) = source.streams().best(media::Type::Audio) else {
        // A video without sound, played as audio: the page plays it once its pictures decode.
        let Some(index) = video else {
            return Err(MediaError::io(
                input,
                Cause::from("has no audio or video stream that libav can read").or_code(ErrorCode::DecodeFailed),
            ));
        };
        first_frame(input, &mut source, index)?;
        return Ok(PageMedia::Source);
    };
    let (index, codec) = (audio.index(), audio.parameters().id().name());
    if BROWSER_CONTAINERS.contains(&source.format().name()) && BROWSER_AUDIO_CODECS.contains(&codec) {
        first_frame(input, &mut source, index)?;
        return Ok(PageMedia::Source);
    }
    let proxy = with_suffix(proxy_stem, ".flac");
    flac_proxy(input, &proxy)?;
    Ok(PageMedia::AudioProxy(proxy))
}

/// Decodes packets of stream `index` until one gives a frame.
fn first_frame(input: &Path, source: &mut ffmpeg::format::context::Input, index: usize) -> Result<(), MediaError> {
    let fail = |what: &str, e: ffmpeg::Error| MediaError::io(input, Cause::of(format!("cannot {what}"), e));
    let parameters = source.stream(index).expect("a stream of this input").parameters();
    let id = parameters.id();
    let codec = ffmpeg::decoder::find(id).ok_or_else(|| {
        MediaError::io(
            input,
            Cause::from(format!("cannot decode it: this libav has no {} decoder", id.name()))
                .or_code(ErrorCode::UnsupportedCodec),
        )
    })?;
    let mut decoder = codec::Context::from_parameters(parameters)
        .and_then(|c| c.decoder().open_as(codec))
        .map_err(|e| fail("open its decoder", e))?;
    // SAFETY: an empty frame owns its allocation; the decoder fills it with a frame of either kind.
    let mut decoded = unsafe { frame::Frame::empty() };
    let mut rejected = None;
    let mut read = 0;
    for (packet_stream, packet) in source.packets() {
        if packet_stream.index() != index {
            continue;
        }
        if let Err(e) = decoder.send_packet(&packet) {
            rejected = Some(e);
        } else if decoder.receive_frame(&mut decoded).is_ok() {
            return Ok(());
        }
        read += 1;
        if read == FIRST_FRAME_PACKETS {
            break;
        }
    }
    let _ = decoder.send_eof();
    if decoder.receive_frame(&mut decoded).is_ok() {
        return Ok(());
    }
    Err(match rejected {
        Some(e) => MediaError::io(input, Cause::of("cannot decode it", e).or_code(ErrorCode::DecodeFailed)),
        None => MediaError::io(
            input,
            Cause::from("cannot decode it: no frame in its first packets").or_code(ErrorCode::DecodeFailed),
        ),
    })
}

fn with_suffix(stem: &Path, suffix: &str) -> PathBuf {
    let mut path = stem.as_os_str().to_owned();
    path.push(suffix);
    PathBuf::from(path)
}
