//! Process-wide libav set-up and version reporting.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;
use std::ptr;
use std::sync::Once;

use ffmpeg::codec;
use ffmpeg::ffi::{self as sys, AVCodecContext, AVPixelFormat};
use ffmpeg_next as ffmpeg;

/// Initialises libav once and silences its logger: x264's per-file banner and statistics would
/// otherwise go to the host process's stderr for every segment, and a demuxer's own complaint
/// (`[mov,mp4,m4a,3gp,3g2,mj2 @ 0x…] moov atom not found`) ahead of the error vidkit prints for the
/// same failure, which carries libav's reason already.
pub(crate) fn init() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        // `init` only registers components, which cannot fail on libav 5+.
        let _ = ffmpeg::init();
        ffmpeg::log::set_level(ffmpeg::log::Level::Quiet);
    });
}

/// Whether the container's muxer takes codec headers once, in the file header (MP4, MOV and WebM
/// do), rather than in every keyframe: an encoder must know before it encodes.
pub(crate) fn container_global_header(container: &str) -> bool {
    init();
    let Ok(name) = CString::new(container) else {
        return false;
    };
    // SAFETY: av_guess_format reads the NUL-terminated name and returns a muxer description that
    // lives as long as the process, or null.
    let muxer = unsafe { sys::av_guess_format(name.as_ptr(), ptr::null(), ptr::null()) };
    // SAFETY: a non-null muxer is a valid, static AVOutputFormat.
    !muxer.is_null() && unsafe { (*muxer).flags } & sys::AVFMT_GLOBALHEADER != 0
}

/// The libav library versions this process is linked against, as "major.minor.micro".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibavVersions {
    pub libavcodec: String,
    pub libavformat: String,
}

pub fn libav_versions() -> LibavVersions {
    fn dotted(version: u32) -> String {
        format!("{}.{}.{}", version >> 16, (version >> 8) & 0xff, version & 0xff)
    }
    LibavVersions {
        libavcodec: dotted(ffmpeg::codec::version()),
        libavformat: dotted(ffmpeg::format::version()),
    }
}

/// Reads a stream's codec parameters through a codec context: AVCodecParameters stores its enums
/// as plain ints, which are only safe to read as Rust enums once libav has typed them.
pub(crate) fn with_typed_parameters<T>(
    parameters: &codec::Parameters,
    read: impl FnOnce(&AVCodecContext) -> T,
) -> Option<T> {
    let context = codec::Context::from_parameters(parameters.clone()).ok()?;
    // SAFETY: the context is alive for this borrow and only read.
    Some(read(unsafe { &*context.as_ptr() }))
}

/// libav's name of a stream's pixel format; empty when it has none (audio, unknown).
pub(crate) fn pixel_format_name(parameters: &codec::Parameters) -> String {
    with_typed_parameters(parameters, |raw| {
        if raw.pix_fmt == AVPixelFormat::AV_PIX_FMT_NONE {
            String::new()
        } else {
            static_name(unsafe { sys::av_get_pix_fmt_name(raw.pix_fmt) })
        }
    })
    .unwrap_or_default()
}

/// Copies one of libav's static name strings; null (no name) becomes empty.
pub(crate) fn static_name(pointer: *const c_char) -> String {
    if pointer.is_null() {
        return String::new();
    }
    // SAFETY: libav returns pointers to static NUL-terminated strings.
    unsafe { CStr::from_ptr(pointer) }.to_string_lossy().into_owned()
}
