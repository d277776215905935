//! `openVideoFrames`: a `<video>` element's pictures from the native decoder. Opening runs on the
//! libuv pool; each `frameAt` settles from the reader's own thread, so neither the event loop nor
//! a libuv worker waits on decoding.

use std::path::PathBuf;

use napi::bindgen_prelude::{AsyncTask, Object};
use napi::{Env, Task};
use napi_derive::napi;
use vidkit_media::{ErrorCode, PictureLayout, PictureStore, VideoInfo, VideoReader};

use crate::js::{Failure, Outcome};

#[napi(object)]
pub struct VideoFrameInfo {
    /// The picture's size as a browser shows it (sample aspect ratio and rotation applied).
    pub width: u32,
    pub height: u32,
    /// The container's duration, which a browser reports as the element's `duration`.
    pub duration_seconds: f64,
    /// Where the video stream ends.
    pub video_duration_seconds: f64,
    pub has_alpha: bool,
    pub codec: String,
    /// How each picture is written: a WebCodecs `VideoPixelFormat` of tightly packed planes
    /// ("I420", "I420A", "I422", "I444"...), or "RGBA".
    pub format: String,
    /// The written picture's size (turned; before the sample aspect ratio).
    pub coded_width: u32,
    pub coded_height: u32,
    /// WebCodecs `VideoMatrixCoefficients` of planar pictures ("bt709", "smpte170m", "bt2020-ncl").
    pub matrix: String,
    pub full_range: bool,
}

impl VideoFrameInfo {
    fn of(info: &VideoInfo, layout: &PictureLayout) -> Self {
        VideoFrameInfo {
            width: info.width,
            height: info.height,
            duration_seconds: info.duration_seconds,
            video_duration_seconds: info.video_duration_seconds,
            has_alpha: info.has_alpha,
            codec: info.codec.clone(),
            format: layout.format.into(),
            coded_width: layout.coded_width,
            coded_height: layout.coded_height,
            matrix: layout.matrix.into(),
            full_range: layout.full_range,
        }
    }
}

/// One element's reader; `close()` ends its thread.
#[napi]
pub struct VideoFrames {
    reader: Option<VideoReader>,
}

#[napi]
impl VideoFrames {
    #[napi(getter)]
    pub fn info(&self) -> napi::Result<VideoFrameInfo, ErrorCode> {
        let reader = self.reader()?;
        Ok(VideoFrameInfo::of(reader.info(), reader.layout()))
    }

    /// Writes the picture shown at media time `seconds` to `output` in the info's `format` and
    /// resolves to the file that holds it; resolves to null, writing nothing, when that is the
    /// picture answered last. With `store` (a folder for this source's pictures, shared by every
    /// reader of the process that names it), a picture kept there is answered without decoding,
    /// as the store's file, and a decoded one is kept there.
    #[napi(ts_return_type = "Promise<string | null>")]
    pub fn frame_at<'env>(
        &self,
        env: &'env Env,
        seconds: f64,
        output: String,
        store: Option<String>,
    ) -> napi::Result<Object<'env>> {
        type Settled = Option<String>;
        let (deferred, promise) = env.create_deferred::<Settled, Box<dyn FnOnce(Env) -> napi::Result<Settled>>>()?;
        // The JS error is made when the promise settles, on the JS thread, so that it has a code.
        let settle =
            move |outcome: Outcome<Settled>| deferred.resolve(Box::new(move |env| outcome.map_err(|f| f.into_js(env))));
        let store = store
            .map(|dir| PictureStore::open(&PathBuf::from(dir)))
            .transpose()
            .map_err(Failure::from);
        match (self.reader(), store) {
            (Err(failure), _) | (_, Err(failure)) => settle(Err(failure)),
            (Ok(reader), Ok(store)) => reader.frame_at(
                seconds,
                PathBuf::from(output),
                store,
                Box::new(move |outcome| {
                    settle(
                        outcome
                            .map(|file| file.map(|f| f.to_string_lossy().into_owned()))
                            .map_err(Failure::from),
                    )
                }),
            ),
        }
        Ok(promise)
    }

    /// Ends the reader; requests after this reject. Pictures already asked for are still answered.
    #[napi]
    pub fn close(&mut self) {
        self.reader = None;
    }

    fn reader(&self) -> Outcome<&VideoReader> {
        self.reader
            .as_ref()
            .ok_or_else(|| Failure::new(ErrorCode::Failed, "these video frames were closed; open the file again"))
    }
}

pub struct OpenVideoFrames {
    path: PathBuf,
}

impl Task for OpenVideoFrames {
    type Output = Outcome<Option<VideoReader>>;
    type JsValue = Option<VideoFrames>;

    fn compute(&mut self) -> napi::Result<Outcome<Option<VideoReader>>> {
        Ok(VideoReader::open(&self.path).map_err(Failure::from))
    }

    fn resolve(&mut self, env: Env, reader: Outcome<Option<VideoReader>>) -> napi::Result<Option<VideoFrames>> {
        let reader = reader.map_err(|f| f.into_js(env))?;
        Ok(reader.map(|reader| VideoFrames { reader: Some(reader) }))
    }
}

/// Opens a media file's video and decodes its first picture (a file libav cannot play fails
/// here, with its reason); null when the file has no video stream.
#[napi(ts_return_type = "Promise<VideoFrames | null>")]
pub fn open_video_frames(path: String) -> AsyncTask<OpenVideoFrames> {
    AsyncTask::new(OpenVideoFrames { path: path.into() })
}
