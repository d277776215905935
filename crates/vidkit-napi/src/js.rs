//! Conversions at the JavaScript boundary: JS numbers to integers, and failures to JS errors whose
//! `code` is the failure's [`ErrorCode`] (`VIDKIT_DISK_FULL`, ...), so callers never read messages.

use napi::bindgen_prelude::JsError;
use napi::Env;
use vidkit_media::{ErrorCode, MediaError};

/// A failure of a native call: its code and a message that already says what to do.
#[derive(Debug)]
pub struct Failure {
    pub(crate) code: ErrorCode,
    pub(crate) message: String,
}

/// What native work returns; a #[napi] function turns its `Failure` into a JS error.
pub type Outcome<T> = Result<T, Failure>;

impl Failure {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }

    /// The JS Error itself, made on the JS thread: a promise rejected with it carries the code,
    /// which a napi `Error` built off that thread (always `Status`-coded) could not.
    pub(crate) fn into_js(self, env: Env) -> napi::Error {
        let error: napi::Error<ErrorCode> = self.into();
        napi::Error::from(JsError::from(error).into_unknown(env))
    }
}

impl From<MediaError> for Failure {
    fn from(error: MediaError) -> Self {
        Failure::new(error.code(), error.to_string())
    }
}

/// A napi call of our own (creating a promise) that failed: not the user's to fix.
impl From<napi::Error> for Failure {
    fn from(error: napi::Error) -> Self {
        Failure::new(ErrorCode::Failed, error.reason)
    }
}

/// What a synchronous #[napi] function returns: napi throws it with the code as `code`.
impl From<Failure> for napi::Error<ErrorCode> {
    fn from(failure: Failure) -> Self {
        napi::Error::new(failure.code, failure.message)
    }
}

pub(crate) fn bad_input(message: impl Into<String>) -> Failure {
    Failure::new(ErrorCode::BadInput, message)
}

/// JS numbers are doubles; an option that counts something must be a whole number in range.
pub(crate) fn whole(value: f64, name: &str, max: u32) -> Outcome<u32> {
    if value.fract() == 0.0 && (0.0..=f64::from(max)).contains(&value) {
        Ok(value as u32)
    } else {
        Err(bad_input(format!(
            "{name} must be a whole number from 0 to {max}, got {value}"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_accepts_integers_in_range() {
        assert_eq!(whole(0.0, "n", 10).unwrap(), 0);
        assert_eq!(whole(10.0, "n", 10).unwrap(), 10);
        assert_eq!(whole(4_294_967_295.0, "n", u32::MAX).unwrap(), u32::MAX);
    }

    #[test]
    fn whole_refuses_fractions_negatives_overflow_and_nan() {
        for value in [2.5, -1.0, 11.0, f64::NAN, f64::INFINITY] {
            let failure = whole(value, "crf", 10).unwrap_err();
            assert_eq!(failure.code, ErrorCode::BadInput);
            assert_eq!(
                failure.message,
                format!("crf must be a whole number from 0 to 10, got {value}")
            );
        }
    }

    #[test]
    fn a_failure_thrown_synchronously_carries_its_code_as_the_status() {
        let error: napi::Error<ErrorCode> = Failure::new(ErrorCode::DiskFull, "full").into();
        assert_eq!(error.status.as_ref(), "VIDKIT_DISK_FULL");
        assert_eq!(error.reason, "full");
    }
}
