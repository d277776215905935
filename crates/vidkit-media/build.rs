//! Relinks the native core when scripts/build-libav.sh has built another libav.
//!
//! `.libav` holds static libraries only, so the addon's link step takes them from there whichever
//! prefix it points at. ffmpeg-sys-next's `static` feature is not used: it would copy the archives
//! into its own rlib, where a rebuilt libav would not reach the addon until `cargo clean`. Cargo
//! does not track the archives, but the prefix's completion stamp changes with every build.
//! (A new FFmpeg major version also needs `cargo clean -p ffmpeg-sys-next` for its bindings.)
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let stamp = Path::new(&manifest).join("../../.libav/.complete");
    println!("cargo:rerun-if-changed={}", stamp.display());
}
