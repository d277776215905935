//! `encodeGif` and `packageHls`: the delivery formats made from a render's frames or joined file,
//! on the libuv pool.

use std::path::PathBuf;

use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;
use vidkit_media::{encode_gif, package_hls, GifOptions, GifStats, HlsStats};

use crate::js::{failure, whole};

#[napi(object)]
pub struct EncodeGifOptions {
    pub fps_num: f64,
    pub fps_den: f64,
    /// Repeats after the first play; 0 (default) loops for ever.
    pub loop_count: Option<f64>,
}

#[napi(object)]
pub struct GifResult {
    pub frames: i64,
    pub bytes: i64,
}

pub struct EncodeGif {
    frames: Vec<PathBuf>,
    output: PathBuf,
    options: napi::Result<GifOptions>,
}

impl Task for EncodeGif {
    type Output = GifStats;
    type JsValue = GifResult;

    fn compute(&mut self) -> napi::Result<GifStats> {
        let options = std::mem::replace(&mut self.options, Err(failure("encodeGif ran twice")))?;
        encode_gif(&self.frames, &self.output, &options).map_err(failure)
    }

    fn resolve(&mut self, _env: Env, stats: GifStats) -> napi::Result<GifResult> {
        Ok(GifResult {
            frames: stats.frames as i64,
            bytes: stats.bytes as i64,
        })
    }
}

/// Encodes PNG frame files, in order, into one animated GIF with one palette for all of them.
#[napi(js_name = "encodeGif", ts_return_type = "Promise<GifResult>")]
pub fn encode_gif_frames(frames: Vec<String>, output: String, options: EncodeGifOptions) -> AsyncTask<EncodeGif> {
    let parsed = (|| -> napi::Result<GifOptions> {
        Ok(GifOptions {
            fps_num: whole(options.fps_num, "fpsNum", i32::MAX as u32)?,
            fps_den: whole(options.fps_den, "fpsDen", i32::MAX as u32)?,
            loop_count: whole(options.loop_count.unwrap_or(0.0), "loopCount", u32::from(u16::MAX))? as u16,
        })
    })();
    AsyncTask::new(EncodeGif {
        frames: frames.into_iter().map(PathBuf::from).collect(),
        output: output.into(),
        options: parsed,
    })
}

#[napi(object)]
pub struct HlsResult {
    pub segments: i64,
    pub frames: i64,
}

pub struct PackageHls {
    input: PathBuf,
    dir: PathBuf,
    segment_seconds: napi::Result<u32>,
}

impl Task for PackageHls {
    type Output = HlsStats;
    type JsValue = HlsResult;

    fn compute(&mut self) -> napi::Result<HlsStats> {
        let seconds = std::mem::replace(&mut self.segment_seconds, Err(failure("packageHls ran twice")))?;
        package_hls(&self.input, &self.dir, seconds).map_err(failure)
    }

    fn resolve(&mut self, _env: Env, stats: HlsStats) -> napi::Result<HlsResult> {
        Ok(HlsResult {
            segments: stats.segments as i64,
            frames: stats.frames as i64,
        })
    }
}

/// Remuxes a joined H.264 MP4 into an HLS directory (master.m3u8, stream.m3u8, stream_NNNNN.ts).
#[napi(js_name = "packageHls", ts_return_type = "Promise<HlsResult>")]
pub fn package_hls_dir(input: String, dir: String, segment_seconds: f64) -> AsyncTask<PackageHls> {
    AsyncTask::new(PackageHls {
        input: input.into(),
        dir: dir.into(),
        segment_seconds: whole(segment_seconds, "segmentSeconds", 60),
    })
}
