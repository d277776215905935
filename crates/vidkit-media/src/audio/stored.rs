//! An encoded soundtrack kept in a file, so that the rows of a batch that share one soundtrack
//! have it mixed and encoded once, each row's concat muxing the same packets, and a re-run reads
//! it back instead of mixing it again. The file holds the packets as the encoder gave them
//! (timestamps, flags, side data such as Opus's trailing padding); the parameters the muxer needs
//! come from opening the encoder again as the encoding did ([`super::encode`]), so a concat of
//! the read-back soundtrack writes the bytes a concat of the one encoded in memory writes.

use std::fs;
use std::path::Path;

use ffmpeg::codec::packet::{side_data, Mut, Ref};
use ffmpeg::{Packet, Rational};
use ffmpeg_next as ffmpeg;

use super::encode::{open, EncodedAudio};
use crate::error::{Cause, ErrorCode};
use crate::{MediaError, OutputFormat};

const MAGIC: &[u8; 8] = b"VKSOUND1";
/// The side data the soundtrack's encoders attach, by the number the file stores for each.
const SIDE_DATA: [(u8, side_data::Type); 2] = [(0, side_data::Type::SkipSamples), (1, side_data::Type::NewExtraData)];

/// Writes `audio`, encoded for a `format` output, to `path` (replaced whole: written beside it
/// first, then renamed).
pub(crate) fn save(audio: &EncodedAudio, format: OutputFormat, path: &Path) -> Result<(), MediaError> {
    let mut out = Vec::with_capacity(audio.packets.iter().map(|p| p.size() + 40).sum::<usize>() + 32);
    out.extend_from_slice(MAGIC);
    let name = format.name().as_bytes();
    out.push(name.len() as u8);
    out.extend_from_slice(name);
    out.extend_from_slice(&audio.time_base.numerator().to_le_bytes());
    out.extend_from_slice(&audio.time_base.denominator().to_le_bytes());
    out.extend_from_slice(&(audio.packets.len() as u32).to_le_bytes());
    for p in &audio.packets {
        for t in [p.pts().unwrap_or(i64::MIN), p.dts().unwrap_or(i64::MIN), p.duration()] {
            out.extend_from_slice(&t.to_le_bytes());
        }
        // Every flag libav set, also those ffmpeg-next has no name for.
        // SAFETY: reading a field of a packet this function borrows.
        out.extend_from_slice(&unsafe { (*p.as_ptr()).flags }.to_le_bytes());
        let data = p.data().unwrap_or(&[]);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
        let sides: Vec<_> = p.side_data().collect();
        out.push(sides.len() as u8);
        for side in sides {
            let kind = SIDE_DATA.iter().find(|(_, t)| *t == side.kind()).ok_or_else(|| {
                MediaError::Usage(format!(
                    "the soundtrack's encoder attached side data {:?}, which cannot be kept in a file",
                    side.kind()
                ))
            })?;
            out.push(kind.0);
            out.extend_from_slice(&(side.data().len() as u32).to_le_bytes());
            out.extend_from_slice(side.data());
        }
    }
    let partial = path.with_extension("partial");
    fs::write(&partial, &out).map_err(|e| MediaError::io(&partial, Cause::of("cannot write the soundtrack", e)))?;
    fs::rename(&partial, path).map_err(|e| {
        let _ = fs::remove_file(&partial);
        MediaError::io(path, Cause::of("cannot write the soundtrack", e))
    })
}

/// Reads back what [`save`] wrote, for a `format` output.
pub(crate) fn load(path: &Path, format: OutputFormat, global_header: bool) -> Result<EncodedAudio, MediaError> {
    let bytes = fs::read(path).map_err(|e| MediaError::io(path, Cause::of("cannot read the soundtrack", e)))?;
    let damaged = |what: &str| {
        MediaError::io(
            path,
            Cause::from(format!(
                "it is not a soundtrack vidkit kept ({what}); remove it and it is mixed again"
            ))
            .or_code(ErrorCode::DecodeFailed),
        )
    };
    let mut r = Reader { bytes: &bytes, at: 0 };
    if r.take(MAGIC.len()) != Some(MAGIC.as_slice()) {
        return Err(damaged("no header"));
    }
    let name = r
        .u8()
        .and_then(|n| r.take(n as usize))
        .ok_or_else(|| damaged("cut short"))?;
    if name != format.name().as_bytes() {
        return Err(MediaError::Usage(format!(
            "the soundtrack in {} was encoded for {}, not for this {} output",
            path.display(),
            String::from_utf8_lossy(name),
            format.name()
        )));
    }
    let time_base = match (r.i32(), r.i32()) {
        (Some(num), Some(den)) if num > 0 && den > 0 => Rational::new(num, den),
        _ => return Err(damaged("no time base")),
    };
    let count = r.u32().ok_or_else(|| damaged("cut short"))?;
    let mut packets = Vec::new();
    for _ in 0..count {
        let packet = r.packet().ok_or_else(|| damaged("a packet is cut short or damaged"))?;
        packets.push(packet);
    }
    if r.at != bytes.len() {
        return Err(damaged("bytes after the last packet"));
    }
    let (encoder, _) = open(format, global_header)?;
    Ok(EncodedAudio {
        encoder,
        packets,
        time_base,
    })
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len())?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Some(slice)
    }

    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    fn i32(&mut self) -> Option<i32> {
        self.take(4).map(|b| i32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    fn i64(&mut self) -> Option<i64> {
        self.take(8).map(|b| i64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    fn packet(&mut self) -> Option<Packet> {
        let time = |t: i64| Some(t).filter(|&t| t != i64::MIN);
        let (pts, dts, duration) = (self.i64()?, self.i64()?, self.i64()?);
        let flags = self.i32()?;
        let size = self.u32()? as usize;
        let mut packet = Packet::copy(self.take(size)?);
        packet.set_pts(time(pts));
        packet.set_dts(time(dts));
        packet.set_duration(duration);
        // SAFETY: the packet is ours; the flags are those `save` read off the encoder's packet.
        unsafe { (*packet.as_mut_ptr()).flags = flags };
        for _ in 0..self.u8()? {
            let kind = self.u8()?;
            let kind = SIDE_DATA.iter().find(|(k, _)| *k == kind)?.1;
            let size = self.u32()? as usize;
            let data = self.take(size)?;
            // SAFETY: the packet is ours; libav allocates `size` bytes for the side data and returns
            // them (null when it cannot), and exactly that many are copied in.
            unsafe {
                let target = ffmpeg::ffi::av_packet_new_side_data(packet.as_mut_ptr(), kind.into(), size);
                if target.is_null() {
                    return None;
                }
                std::ptr::copy_nonoverlapping(data.as_ptr(), target, size);
            }
        }
        Some(packet)
    }
}
