//! The one error type of the media crate. Every variant carries a message that says what to do.
//! It is `Clone` because one pipeline failure is reported to every waiting caller.

use std::fmt;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MediaError {
    /// An encoder option is out of range; the message names the option and the accepted values.
    InvalidOptions(String),
    /// Decoding, converting or encoding one pushed frame failed. Frames are numbered from 0 in
    /// push order, which is also their presentation timestamp.
    Frame { frame: u64, message: String },
    /// A file could not be created, read or removed.
    Io { path: PathBuf, message: String },
    /// A libav call that is not about one frame failed (opening a codec, writing a trailer...).
    Libav { context: String, message: String },
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
    pub(crate) fn io(path: &Path, error: impl fmt::Display) -> Self {
        MediaError::Io {
            path: path.to_path_buf(),
            message: error.to_string(),
        }
    }

    pub(crate) fn libav(context: impl Into<String>, error: impl fmt::Display) -> Self {
        MediaError::Libav {
            context: context.into(),
            message: error.to_string(),
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
            MediaError::Io { path, message } => write!(f, "{}: {message}", path.display()),
            MediaError::Libav { context, message } => write!(f, "{context}: {message}"),
            MediaError::Segment { index, path, message } => {
                write!(f, "segment {index} ({}): {message}", path.display())
            }
        }
    }
}

impl std::error::Error for MediaError {}
