//! How a source video's pixels are read: the one rule the native decoder's pictures follow
//! (frames/convert.rs).
//!
//! As HyperFrames converts them: the tagged matrix and range, an untagged matrix guessed as
//! Chromium guesses it (BT.601 for VP9 and AV1; for other codecs BT.709 from 720 lines up, BT.601
//! below), an untagged range as limited; the primaries and transfer of an SDR source are not
//! converted but taken as the display's (BT.709 primaries, sRGB transfer), whatever the file says
//! or leaves out. A source whose transfer is PQ or HLG is HDR and keeps its own description.

use ffmpeg::codec;
use ffmpeg::color;
use ffmpeg::format::Pixel;
use ffmpeg_next as ffmpeg;

/// What a decoded picture's colour is taken to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceColour {
    pub matrix: color::Space,
    pub range: color::Range,
    pub primaries: color::Primaries,
    pub transfer: color::TransferCharacteristic,
}

/// The colour of a source's pictures from what its stream declares.
pub fn source_colour(
    matrix: color::Space,
    range: color::Range,
    primaries: color::Primaries,
    transfer: color::TransferCharacteristic,
    format: Pixel,
    codec: codec::Id,
    height: u32,
) -> SourceColour {
    let range = if is_full_range(range, format) {
        color::Range::JPEG
    } else {
        color::Range::MPEG
    };
    let hdr = matches!(
        transfer,
        color::TransferCharacteristic::SMPTE2084 | color::TransferCharacteristic::ARIB_STD_B67
    );
    if hdr {
        return SourceColour {
            matrix: declared_or_guessed(matrix, codec, height),
            range,
            primaries,
            transfer,
        };
    }
    SourceColour {
        matrix: declared_or_guessed(matrix, codec, height),
        range,
        primaries: color::Primaries::BT709,
        transfer: color::TransferCharacteristic::IEC61966_2_1,
    }
}

/// Whether pictures of this declared range and pixel format are full range (JPEG's `yuvj` formats are).
pub(crate) fn is_full_range(range: color::Range, format: Pixel) -> bool {
    range == color::Range::JPEG
        || matches!(
            format,
            Pixel::YUVJ420P | Pixel::YUVJ422P | Pixel::YUVJ444P | Pixel::YUVJ440P | Pixel::YUVJ411P
        )
}

fn declared_or_guessed(matrix: color::Space, codec: codec::Id, height: u32) -> color::Space {
    match matrix {
        color::Space::Unspecified | color::Space::Reserved => {
            if matches!(codec, codec::Id::VP9 | codec::Id::AV1) || height < 720 {
                color::Space::SMPTE170M
            } else {
                color::Space::BT709
            }
        }
        declared => declared,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use color::{Primaries as P, Range as R, Space as S, TransferCharacteristic as T};

    fn colour(matrix: S, range: R, primaries: P, transfer: T, codec: codec::Id, height: u32) -> SourceColour {
        source_colour(matrix, range, primaries, transfer, Pixel::YUV420P, codec, height)
    }

    #[test]
    fn an_untagged_matrix_is_guessed_from_the_codec_and_height() {
        let h264 = codec::Id::H264;
        assert_eq!(
            colour(
                S::Unspecified,
                R::Unspecified,
                P::Unspecified,
                T::Unspecified,
                h264,
                720
            )
            .matrix,
            S::BT709
        );
        assert_eq!(
            colour(
                S::Unspecified,
                R::Unspecified,
                P::Unspecified,
                T::Unspecified,
                h264,
                719
            )
            .matrix,
            S::SMPTE170M
        );
        assert_eq!(
            colour(S::Unspecified, R::Unspecified, P::BT709, T::BT709, codec::Id::VP9, 1080).matrix,
            S::SMPTE170M
        );
        assert_eq!(
            colour(S::BT709, R::Unspecified, P::Unspecified, T::Unspecified, h264, 360).matrix,
            S::BT709
        );
        assert_eq!(
            colour(S::SMPTE170M, R::MPEG, P::Unspecified, T::Unspecified, h264, 1080).matrix,
            S::SMPTE170M
        );
    }

    #[test]
    fn sdr_primaries_and_transfer_are_the_displays_and_the_range_limited_unless_full() {
        let c = colour(
            S::BT709,
            R::Unspecified,
            P::Unspecified,
            T::Unspecified,
            codec::Id::H264,
            1080,
        );
        assert_eq!((c.range, c.primaries, c.transfer), (R::MPEG, P::BT709, T::IEC61966_2_1));
        let c = colour(S::Unspecified, R::JPEG, P::BT470BG, T::GAMMA22, codec::Id::H264, 360);
        assert_eq!((c.range, c.primaries, c.transfer), (R::JPEG, P::BT709, T::IEC61966_2_1));
        let full = source_colour(
            S::BT709,
            R::Unspecified,
            P::BT709,
            T::BT709,
            Pixel::YUVJ420P,
            codec::Id::MJPEG,
            360,
        );
        assert_eq!(full.range, R::JPEG);
    }

    #[test]
    fn hdr_sources_keep_their_primaries_and_transfer() {
        let c = colour(S::BT2020NCL, R::MPEG, P::BT2020, T::ARIB_STD_B67, codec::Id::HEVC, 2160);
        assert_eq!(
            (c.matrix, c.primaries, c.transfer),
            (S::BT2020NCL, P::BT2020, T::ARIB_STD_B67)
        );
    }
}
