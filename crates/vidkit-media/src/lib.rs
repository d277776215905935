//! libav-backed media work for vidkit: the frame [`Encoder`] (browser screenshots to one segment of
//! an [`OutputFormat`]: H.264 MP4, VP9 WebM or ProRes MOV with alpha, HEVC HDR10/HLG MP4),
//! [`concat_segments`] (join segments by stream copy and mux the mixed soundtrack, [`AudioMix`]),
//! the delivery formats made from a render's frames or joined file ([`encode_gif`],
//! [`package_hls`]), [`probe`], and what the page plays for a media file ([`page_media`]: proxies,
//! or the file checked to decode). Every failure is a [`MediaError`] with an [`ErrorCode`].
//!
//! Everything goes through `ffmpeg-next` against the static libav of scripts/build-libav.sh, linked
//! into the addon; the few calls it does not wrap go through `ffmpeg_sys_next` in the module that
//! needs them.

mod audio;
mod colour;
mod concat;
mod encoder;
mod error;
mod format;
mod frames;
mod gif;
mod hls;
mod libav;
mod packets;
mod page_media;
mod probe;

pub use audio::{flac_proxy, AudioMix, AudioProxyStats, AudioTrack, EncodedSoundtrack, SAMPLE_RATE};
pub use colour::{rgbx_picture, source_colour, ChannelOrder, SourceColour};
pub use concat::{concat_segments, ConcatOptions, ConcatStats, Soundtrack};
pub use encoder::{EncodeStats, Encoder, EncoderOptions, InputFormat, ReadyCallback, REPEAT_CAPACITY, X264_PRESETS};
pub use error::{ErrorCode, MediaError};
pub use format::OutputFormat;
pub use frames::{FrameDone, PictureLayout, PictureStore, VideoInfo, VideoReader};
pub use gif::{encode_gif, GifOptions, GifStats};
pub use hls::{package_hls, HlsStats, HLS_MASTER_PLAYLIST, HLS_MEDIA_PLAYLIST};
pub use libav::{libav_versions, LibavVersions};
pub use page_media::{page_media, PageMedia};
pub use probe::{probe, ProbeResult, StreamInfo};
