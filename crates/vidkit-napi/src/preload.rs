//! The library vidkit preloads into Chromium (crates/vidkit-preload), built by build.rs.

use napi::bindgen_prelude::Buffer;
use napi_derive::napi;

static PRELOAD: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libvidkit_preload.so"));

/// The shared object vidkit preloads into Chromium on Linux (`LD_PRELOAD`) while it renders: it
/// keeps the pages Chromium's allocators give back and take again for every frame, and has
/// Chromium write its JPEG screenshots in one pass, or hand their pixels over raw (screenshots.rs).
#[napi]
pub fn browser_preload() -> Buffer {
    PRELOAD.to_vec().into()
}
