//! The output formats: which codec, pixel format, colour tags and container each one means.

use ffmpeg::color;
use ffmpeg::format::Pixel;
use ffmpeg_next as ffmpeg;

/// What a render writes. Segments and the joined file of one render share one format, so that
/// segments join by stream copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// H.264 (x264) yuv420p BT.709 in MP4.
    Mp4,
    /// VP9 (libvpx) yuva420p BT.709 with an alpha channel, in WebM.
    Webm,
    /// ProRes 4444 (prores_ks) yuva444p10le BT.709 with an alpha channel, in MOV.
    Mov,
    /// 10-bit HEVC (x265 Main 10), BT.2020 non-constant luminance, PQ (SMPTE ST 2084) with HDR10
    /// static metadata, in MP4.
    HdrPq,
    /// 10-bit HEVC (x265 Main 10), BT.2020 non-constant luminance, HLG (ARIB STD-B67), in MP4.
    HdrHlg,
}

/// The transfer function of an HDR format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HdrTransfer {
    Pq,
    Hlg,
}

impl OutputFormat {
    pub const NAMES: [&'static str; 5] = ["mp4", "webm", "mov", "hdr-pq", "hdr-hlg"];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "mp4" => OutputFormat::Mp4,
            "webm" => OutputFormat::Webm,
            "mov" => OutputFormat::Mov,
            "hdr-pq" => OutputFormat::HdrPq,
            "hdr-hlg" => OutputFormat::HdrHlg,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Mp4 => "mp4",
            OutputFormat::Webm => "webm",
            OutputFormat::Mov => "mov",
            OutputFormat::HdrPq => "hdr-pq",
            OutputFormat::HdrHlg => "hdr-hlg",
        }
    }

    /// The libavformat muxer name.
    pub fn container(self) -> &'static str {
        match self {
            OutputFormat::Mp4 | OutputFormat::HdrPq | OutputFormat::HdrHlg => "mp4",
            OutputFormat::Webm => "webm",
            OutputFormat::Mov => "mov",
        }
    }

    pub fn has_alpha(self) -> bool {
        matches!(self, OutputFormat::Webm | OutputFormat::Mov)
    }

    pub(crate) fn encoder_name(self) -> &'static str {
        match self {
            OutputFormat::Mp4 => "libx264",
            OutputFormat::Webm => "libvpx-vp9",
            OutputFormat::Mov => "prores_ks",
            OutputFormat::HdrPq | OutputFormat::HdrHlg => "libx265",
        }
    }

    pub(crate) fn pixel(self) -> Pixel {
        match self {
            OutputFormat::Mp4 => Pixel::YUV420P,
            OutputFormat::Webm => Pixel::YUVA420P,
            OutputFormat::Mov => Pixel::YUVA444P10LE,
            OutputFormat::HdrPq | OutputFormat::HdrHlg => Pixel::YUV420P10LE,
        }
    }

    pub(crate) fn hdr(self) -> Option<HdrTransfer> {
        match self {
            OutputFormat::HdrPq => Some(HdrTransfer::Pq),
            OutputFormat::HdrHlg => Some(HdrTransfer::Hlg),
            _ => None,
        }
    }

    pub(crate) fn colour(self) -> (color::Space, color::Primaries, color::TransferCharacteristic) {
        match self {
            OutputFormat::Mp4 | OutputFormat::Webm | OutputFormat::Mov => (
                color::Space::BT709,
                color::Primaries::BT709,
                color::TransferCharacteristic::BT709,
            ),
            OutputFormat::HdrPq => (
                color::Space::BT2020NCL,
                color::Primaries::BT2020,
                color::TransferCharacteristic::SMPTE2084,
            ),
            OutputFormat::HdrHlg => (
                color::Space::BT2020NCL,
                color::Primaries::BT2020,
                color::TransferCharacteristic::ARIB_STD_B67,
            ),
        }
    }
}
