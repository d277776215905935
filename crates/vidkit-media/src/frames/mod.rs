//! Video pictures for the page: the frame a source shows at a media time, decoded by libav on a
//! thread of its own and written raw (planar YUV as decoded, or RGBA) for the browser to paint
//! (docs/reference/formats.md, "Media on the timeline").
//!
//! ```text
//! frame_at(t) ──requests──► reader thread: demux + decode ahead (bounded) ──► pick the frame
//!                           shown at t ──► planes (turned) or RGBA ──► file
//! ```
//!
//! One [`VideoReader`] serves one `<video>` element of one page: requests arrive in rising time
//! order, so the thread keeps decoding forward while the page draws, and seeks only when a request
//! falls behind what it holds or far ahead of it.

mod convert;
mod reader;
mod select;
mod source;
mod store;

pub use convert::PictureLayout;
pub use reader::{FrameDone, VideoReader};
pub use source::VideoInfo;
pub use store::PictureStore;
