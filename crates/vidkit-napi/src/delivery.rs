//! `encodeGif` and `packageHls`: the delivery formats made from a render's frames or joined file,
//! on the libuv pool.

use std::path::PathBuf;

use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;
use vidkit_media::{encode_gif, package_hls, GifOptions, GifStats, HlsStats};

use vidkit_media::ErrorCode;

use crate::js::{whole, Failure, Outcome};

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
    /// Taken by the one compute.
    options: Option<Outcome<GifOptions>>,
}

impl Task for EncodeGif {
    type Output = Outcome<GifStats>;
    type JsValue = GifResult;

    fn compute(&mut self) -> napi::Result<Outcome<GifStats>> {
        let options = self.options.take().unwrap_or_else(|| Err(ran_twice("encodeGif")));
        Ok(options.and_then(|options| encode_gif(&self.frames, &self.output, &options).map_err(Failure::from)))
    }

    fn resolve(&mut self, env: Env, stats: Outcome<GifStats>) -> napi::Result<GifResult> {
        let stats = stats.map_err(|f| f.into_js(env))?;
        Ok(GifResult {
            frames: stats.frames as i64,
            bytes: stats.bytes as i64,
        })
    }
}

/// Encodes PNG frame files, in order, into one animated GIF with one palette for all of them.
#[napi(js_name = "encodeGif", ts_return_type = "Promise<GifResult>")]
pub fn encode_gif_frames(frames: Vec<String>, output: String, options: EncodeGifOptions) -> AsyncTask<EncodeGif> {
    let parsed = (|| -> Outcome<GifOptions> {
        Ok(GifOptions {
            fps_num: whole(options.fps_num, "fpsNum", i32::MAX as u32)?,
            fps_den: whole(options.fps_den, "fpsDen", i32::MAX as u32)?,
            loop_count: whole(options.loop_count.unwrap_or(0.0), "loopCount", u32::from(u16::MAX))? as u16,
        })
    })();
    AsyncTask::new(EncodeGif {
        frames: frames.into_iter().map(PathBuf::from).collect(),
        output: output.into(),
        options: Some(parsed),
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
    /// Taken by the one compute.
    segment_seconds: Option<Outcome<u32>>,
}

impl Task for PackageHls {
    type Output = Outcome<HlsStats>;
    type JsValue = HlsResult;

    fn compute(&mut self) -> napi::Result<Outcome<HlsStats>> {
        let seconds = self
            .segment_seconds
            .take()
            .unwrap_or_else(|| Err(ran_twice("packageHls")));
        Ok(seconds.and_then(|seconds| package_hls(&self.input, &self.dir, seconds).map_err(Failure::from)))
    }

    fn resolve(&mut self, env: Env, stats: Outcome<HlsStats>) -> napi::Result<HlsResult> {
        let stats = stats.map_err(|f| f.into_js(env))?;
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
        segment_seconds: Some(whole(segment_seconds, "segmentSeconds", 60)),
    })
}

/// libuv computes a task once; a second compute would be a bug of napi's, reported, not a panic.
fn ran_twice(name: &str) -> Failure {
    Failure::new(ErrorCode::Failed, format!("{name} ran twice"))
}
