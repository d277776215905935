use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    napi_build::setup();
    build_preload();
}

/// Compiles crates/vidkit-preload as the shared object Chromium preloads, with this build's own
/// rustc, target and linker; src/preload.rs carries its bytes.
fn build_preload() {
    let sources = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../vidkit-preload/src");
    println!("cargo:rerun-if-changed={}", sources.display());
    let source = sources.join("lib.rs");
    let output = PathBuf::from(env::var("OUT_DIR").unwrap()).join("libvidkit_preload.so");
    let mut rustc = Command::new(env::var("RUSTC").unwrap_or_else(|_| "rustc".into()));
    rustc
        .args([
            "--crate-name",
            "vidkit_preload",
            "--crate-type",
            "cdylib",
            "--edition",
            "2021",
        ])
        .args([
            "--cfg",
            "vidkit_preload_export",
            "-C",
            "panic=abort",
            "-C",
            "opt-level=2",
            "-C",
            "strip=symbols",
        ])
        .args(["--target", &env::var("TARGET").unwrap()])
        .arg("-o")
        .arg(&output)
        .arg(&source);
    if let Ok(linker) = env::var("RUSTC_LINKER") {
        rustc.arg(format!("-Clinker={linker}"));
    }
    let status = rustc.status().expect("running rustc for vidkit-preload");
    assert!(status.success(), "rustc could not build vidkit-preload ({status})");
}
