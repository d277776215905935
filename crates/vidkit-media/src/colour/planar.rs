//! A screenshot pushed already converted: the browser's raw pixels turned into the encoder's
//! yuv420p by the caller as they arrive ([`rgbx_picture`]), tagged so that the decode thread takes
//! it as it is ([`Converter::planar`](super::Converter::planar)) instead of decoding it. No JPEG or
//! PNG starts with the tag.

use super::rgb::{rgbx_to_yuv420, yuv420_len, ChannelOrder};

const TAG: [u8; 8] = *b"vkyuv420";
/// The tag, then the width and height as little-endian 32-bit words.
const HEADER: usize = 16;

/// The tagged yuv420p picture (BT.709, limited range) of `pixels`, `height` rows of `width`
/// four-byte pixels in `order`. The size must be even.
pub fn rgbx_picture(pixels: &[u8], width: u32, height: u32, order: ChannelOrder) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let mut picture = vec![0; HEADER + yuv420_len(w, h)];
    picture[..8].copy_from_slice(&TAG);
    picture[8..12].copy_from_slice(&width.to_le_bytes());
    picture[12..16].copy_from_slice(&height.to_le_bytes());
    rgbx_to_yuv420(pixels, w, h, order, &mut picture[HEADER..]);
    picture
}

/// A tagged picture's width, height and planes, or why they do not fit together.
pub(crate) type Parsed<'a> = Result<(u32, u32, &'a [u8]), String>;

/// The width, height and planes of a tagged picture; `None` for anything else.
pub(crate) fn parse(bytes: &[u8]) -> Option<Parsed<'_>> {
    if bytes.len() < HEADER || bytes[..8] != TAG {
        return None;
    }
    let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"));
    let (width, height) = (word(8), word(12));
    let planes = &bytes[HEADER..];
    Some(
        if width.is_multiple_of(2)
            && height.is_multiple_of(2)
            && planes.len() == yuv420_len(width as usize, height as usize)
        {
            Ok((width, height, planes))
        } else {
            Err(format!(
                "a converted picture of {width}x{height} with {} bytes of planes",
                planes.len()
            ))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picture_reads_back_with_its_size_and_planes() {
        let pixels: Vec<u8> = [0u8, 0, 255, 255].repeat(4 * 2);
        let picture = rgbx_picture(&pixels, 4, 2, ChannelOrder::Bgrx);
        let (width, height, planes) = parse(&picture).unwrap().unwrap();
        assert_eq!((width, height), (4, 2));
        // Red: Y 63, Cb 102, Cr 240.
        assert_eq!(planes, &[63, 63, 63, 63, 63, 63, 63, 63, 102, 102, 240, 240]);
    }

    #[test]
    fn encoded_images_are_not_pictures_and_a_short_picture_is_an_error() {
        assert!(parse(b"\xff\xd8\xff\xe0 a JPEG's first bytes").is_none());
        assert!(parse(b"\x89PNG\r\n\x1a\n and a PNG's").is_none());
        let mut picture = rgbx_picture(&[0; 4 * 2 * 4], 4, 2, ChannelOrder::Rgbx);
        picture.pop();
        assert!(parse(&picture).unwrap().is_err());
    }
}
