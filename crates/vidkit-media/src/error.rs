//! The one error type of the media crate. Every variant carries a message that says what to do,
//! and each error has an [`ErrorCode`]: its kind, for a caller to branch on without reading the
//! message. It is `Clone` because one pipeline failure is reported to every waiting caller.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use ffmpeg_next as ffmpeg;

/// The kind of a failure, stable across libav versions and message wording. The addon hands it
/// to JavaScript as the error's `code` ([`ErrorCode::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// No space left on the device, or the disk quota is exceeded.
    DiskFull,
    /// Permission denied, or a read-only file system.
    PermissionDenied,
    /// Any other failure to create, read, write or remove a file.
    Io,
    /// A media file or frame that libav cannot read: not a media file, or damaged.
    DecodeFailed,
    /// A codec this libav build has no decoder or encoder for.
    UnsupportedCodec,
    /// An option or input out of range, or segments that cannot be joined.
    BadInput,
    /// Any other failure of the media work.
    Failed,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 7] = [
        ErrorCode::DiskFull,
        ErrorCode::PermissionDenied,
        ErrorCode::Io,
        ErrorCode::DecodeFailed,
        ErrorCode::UnsupportedCodec,
        ErrorCode::BadInput,
        ErrorCode::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::DiskFull => "VIDKIT_DISK_FULL",
            ErrorCode::PermissionDenied => "VIDKIT_PERMISSION_DENIED",
            ErrorCode::Io => "VIDKIT_IO",
            ErrorCode::DecodeFailed => "VIDKIT_DECODE_FAILED",
            ErrorCode::UnsupportedCodec => "VIDKIT_UNSUPPORTED_CODEC",
            ErrorCode::BadInput => "VIDKIT_BAD_INPUT",
            ErrorCode::Failed => "VIDKIT_MEDIA_FAILED",
        }
    }

    /// The code of a failed file operation.
    pub fn of_io(error: &io::Error) -> Self {
        ErrorCode::of_kind(error.kind()).unwrap_or(ErrorCode::Io)
    }

    /// The code an OS error's kind implies, if it implies one.
    fn of_kind(kind: io::ErrorKind) -> Option<Self> {
        match kind {
            io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => Some(ErrorCode::DiskFull),
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => Some(ErrorCode::PermissionDenied),
            _ => None,
        }
    }
}

impl AsRef<str> for ErrorCode {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// Why a file or libav call failed: the words for the message, and the code when the underlying
/// error says one (an errno, libav's "invalid data" or "decoder not found").
#[derive(Debug)]
pub struct Cause {
    message: String,
    code: Option<ErrorCode>,
}

impl Cause {
    /// `what` failed because of `error`: "what: error", with the error's code.
    pub(crate) fn of(what: impl fmt::Display, error: impl Into<Cause>) -> Self {
        let cause = error.into();
        Cause {
            message: format!("{what}: {}", cause.message),
            code: cause.code,
        }
    }

    /// This cause, with `code` when the underlying error implied none.
    pub(crate) fn or_code(self, code: ErrorCode) -> Self {
        Cause {
            code: self.code.or(Some(code)),
            ..self
        }
    }
}

impl From<String> for Cause {
    fn from(message: String) -> Self {
        Cause { message, code: None }
    }
}

impl From<&str> for Cause {
    fn from(message: &str) -> Self {
        message.to_string().into()
    }
}

impl From<io::Error> for Cause {
    fn from(error: io::Error) -> Self {
        Cause {
            code: ErrorCode::of_kind(error.kind()),
            message: error.to_string(),
        }
    }
}

impl From<ffmpeg::Error> for Cause {
    fn from(error: ffmpeg::Error) -> Self {
        let code = match error {
            ffmpeg::Error::Other { errno } => ErrorCode::of_kind(io::Error::from_raw_os_error(errno).kind()),
            ffmpeg::Error::InvalidData | ffmpeg::Error::DemuxerNotFound => Some(ErrorCode::DecodeFailed),
            ffmpeg::Error::DecoderNotFound | ffmpeg::Error::EncoderNotFound => Some(ErrorCode::UnsupportedCodec),
            _ => None,
        };
        Cause {
            message: error.to_string(),
            code,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaError {
    /// An encoder option is out of range; the message names the option and the accepted values.
    InvalidOptions(String),
    /// Decoding, converting or encoding one pushed frame failed. Frames are numbered from 0 in
    /// push order, which is also their presentation timestamp.
    Frame { frame: u64, message: String },
    /// A file could not be created, read or removed.
    Io {
        path: PathBuf,
        message: String,
        code: ErrorCode,
    },
    /// A libav call that is not about one frame failed (opening a codec, writing a trailer...).
    Libav {
        context: String,
        message: String,
        code: ErrorCode,
    },
    /// A segment given to concat cannot be joined to the others.
    Segment {
        index: usize,
        path: PathBuf,
        message: String,
    },
    /// The API was used out of order (push after finish, repeat before any frame...).
    Usage(String),
}

impl MediaError {
    /// A failure on `path`; its code is the cause's, else [`ErrorCode::Io`].
    pub(crate) fn io(path: &Path, cause: impl Into<Cause>) -> Self {
        let cause = cause.into();
        MediaError::Io {
            path: path.to_path_buf(),
            message: cause.message,
            code: cause.code.unwrap_or(ErrorCode::Io),
        }
    }

    /// A failure of the libav work `context`; its code is the cause's, else [`ErrorCode::Failed`].
    pub(crate) fn libav(context: impl Into<String>, cause: impl Into<Cause>) -> Self {
        let cause = cause.into();
        MediaError::Libav {
            context: context.into(),
            message: cause.message,
            code: cause.code.unwrap_or(ErrorCode::Failed),
        }
    }

    /// What kind of failure this is.
    pub fn code(&self) -> ErrorCode {
        match self {
            MediaError::InvalidOptions(_) | MediaError::Segment { .. } => ErrorCode::BadInput,
            MediaError::Io { code, .. } | MediaError::Libav { code, .. } => *code,
            MediaError::Frame { .. } | MediaError::Usage(_) => ErrorCode::Failed,
        }
    }

    pub(crate) fn frame(frame: u64, message: impl Into<String>) -> Self {
        MediaError::Frame {
            frame,
            message: message.into(),
        }
    }
}

impl fmt::Display for MediaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MediaError::InvalidOptions(message) | MediaError::Usage(message) => f.write_str(message),
            MediaError::Frame { frame, message } => write!(f, "frame {frame} (0-based, in push order): {message}"),
            MediaError::Io { path, message, .. } => write!(f, "{}: {message}", path.display()),
            MediaError::Libav { context, message, .. } => write!(f, "{context}: {message}"),
            MediaError::Segment { index, path, message } => {
                write!(f, "segment {index} ({}): {message}", path.display())
            }
        }
    }
}

impl std::error::Error for MediaError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_or_quota_is_disk_full_whether_libav_or_std_reports_it() {
        for errno in [28, 122] {
            // ENOSPC, EDQUOT on Linux.
            let libav = MediaError::io(
                Path::new("/o.mp4"),
                Cause::of("cannot write", ffmpeg::Error::from(-errno)),
            );
            assert_eq!(libav.code(), ErrorCode::DiskFull, "{libav}");
            let std = MediaError::io(Path::new("/o.mp4"), io::Error::from_raw_os_error(errno));
            assert_eq!(std.code(), ErrorCode::DiskFull, "{std}");
        }
        assert_eq!(ErrorCode::DiskFull.as_str(), "VIDKIT_DISK_FULL");
    }

    #[test]
    fn libav_errors_keep_their_kind_through_a_message() {
        let code = |e: ffmpeg::Error| MediaError::io(Path::new("/i"), Cause::of("cannot open it", e)).code();
        assert_eq!(code(ffmpeg::Error::InvalidData), ErrorCode::DecodeFailed);
        assert_eq!(code(ffmpeg::Error::DecoderNotFound), ErrorCode::UnsupportedCodec);
        assert_eq!(code(ffmpeg::Error::from(-13)), ErrorCode::PermissionDenied); // EACCES
        assert_eq!(code(ffmpeg::Error::from(-2)), ErrorCode::Io); // ENOENT
        let error = MediaError::io(Path::new("/i"), Cause::of("cannot open it", ffmpeg::Error::InvalidData));
        assert_eq!(
            error.to_string(),
            "/i: cannot open it: Invalid data found when processing input"
        );
    }

    #[test]
    fn a_message_alone_takes_the_constructor_s_default() {
        assert_eq!(MediaError::io(Path::new("/i"), "gone").code(), ErrorCode::Io);
        assert_eq!(
            MediaError::libav("opening", "no such encoder").code(),
            ErrorCode::Failed
        );
        assert_eq!(MediaError::InvalidOptions("crf".into()).code(), ErrorCode::BadInput);
    }

    #[test]
    fn every_code_is_a_distinct_vidkit_name() {
        let names: std::collections::HashSet<_> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names.len(), ErrorCode::ALL.len());
        assert!(names.iter().all(|n| n.starts_with("VIDKIT_")));
    }
}
