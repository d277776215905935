//! Conversions at the JavaScript boundary: JS numbers to integers, and errors to JS errors.

use napi::{Error, Status};

/// JS numbers are doubles; an option that counts something must be a whole number in range.
pub(crate) fn whole(value: f64, name: &str, max: u32) -> napi::Result<u32> {
    if value.fract() == 0.0 && (0.0..=f64::from(max)).contains(&value) {
        Ok(value as u32)
    } else {
        Err(invalid_arg(format!(
            "{name} must be a whole number from 0 to {max}, got {value}"
        )))
    }
}

pub(crate) fn invalid_arg(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

/// A failure of the native work itself; its message already says what to do.
pub(crate) fn failure(error: impl std::fmt::Display) -> Error {
    Error::from_reason(error.to_string())
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
            let error = whole(value, "crf", 10).unwrap_err();
            assert_eq!(error.status, Status::InvalidArg);
            assert_eq!(
                error.reason,
                format!("crf must be a whole number from 0 to 10, got {value}")
            );
        }
    }
}
