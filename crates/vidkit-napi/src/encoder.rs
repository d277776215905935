//! `NativeEncoder`: a push copies an encoded frame (or takes a converted picture) and returns at
//! once; the promise it returns settles from the encoder's own thread (through a threadsafe
//! function) once there is room, so waiting for backpressure holds neither the event loop nor a
//! libuv worker.

use std::sync::Arc;

use napi::bindgen_prelude::{AsyncTask, Either, Object};
use napi::{Env, Task};
use napi_derive::napi;
use vidkit_media::{EncodeStats, Encoder, EncoderOptions, ErrorCode, InputFormat, MediaError, OutputFormat};

use crate::js::{bad_input, whole, Failure, Outcome};
use crate::picture::Picture;

/// Pictures in flight before a push's promise waits, when the caller does not say.
const DEFAULT_QUEUE_CAPACITY: u32 = 8;
/// Generous bounds that still catch unit mistakes (e.g. a byte count passed as a size).
const MAX_DIMENSION: u32 = 16_384;
const MAX_QUEUE_CAPACITY: u32 = 1_024;

#[napi(object)]
pub struct NativeEncoderOptions {
    /// File to create (replaced if it exists), in the format's container.
    pub output: String,
    /// mp4 (default), webm, mov, hdr-pq or hdr-hlg.
    #[napi(ts_type = "'mp4' | 'webm' | 'mov' | 'hdr-pq' | 'hdr-hlg'")]
    pub format: Option<String>,
    pub width: f64,
    pub height: f64,
    pub fps_num: f64,
    pub fps_den: f64,
    /// x264 constant rate factor, 0 to 51.
    pub crf: f64,
    /// x264 preset name, e.g. "veryfast".
    pub preset: String,
    /// Extra x264 options, `key=value:key=value` (mp4 only), e.g. "me=dia:subme=1".
    pub x264_params: Option<String>,
    /// Encoder threads; 0 or none lets the codec choose from the cores.
    pub threads: Option<f64>,
    /// The encoding of the pushed screenshots.
    #[napi(ts_type = "'jpeg' | 'png'")]
    pub input: String,
    /// Pictures in flight before `push` waits; default 8. Repeats (`pushRepeat`) hold no pixels
    /// and have a bound of their own, 600.
    pub queue_capacity: Option<f64>,
    /// A keyframe at every render frame that is a multiple of this (mp4 only), the segment's
    /// first frame being render frame `firstFrame`: the hls format's segment grid.
    pub keyframe_interval: Option<f64>,
    /// The render frame of the segment's first frame; default 0.
    pub first_frame: Option<f64>,
}

#[napi(object)]
pub struct EncodeResult {
    pub frames: i64,
    pub bytes: i64,
}

impl NativeEncoderOptions {
    fn into_options(self) -> Outcome<EncoderOptions> {
        let input = match self.input.as_str() {
            "jpeg" => InputFormat::Jpeg,
            "png" => InputFormat::Png,
            other => return Err(bad_input(format!("input must be 'jpeg' or 'png', got '{other}'"))),
        };
        let queue_capacity = self
            .queue_capacity
            .map(|q| whole(q, "queueCapacity", MAX_QUEUE_CAPACITY))
            .transpose()?;
        Ok(EncoderOptions {
            output: self.output.into(),
            format: output_format(self.format.as_deref())?,
            width: whole(self.width, "width", MAX_DIMENSION)?,
            height: whole(self.height, "height", MAX_DIMENSION)?,
            fps_num: whole(self.fps_num, "fpsNum", i32::MAX as u32)?,
            fps_den: whole(self.fps_den, "fpsDen", i32::MAX as u32)?,
            crf: whole(self.crf, "crf", 51)? as u8,
            preset: self.preset,
            x264_params: self.x264_params,
            threads: self
                .threads
                .map(|t| whole(t, "threads", u32::MAX))
                .transpose()?
                .unwrap_or(0),
            input,
            queue_capacity: queue_capacity.unwrap_or(DEFAULT_QUEUE_CAPACITY) as usize,
            keyframe_interval: self
                .keyframe_interval
                .map(|k| whole(k, "keyframeInterval", u32::MAX))
                .transpose()?,
            first_frame: u64::from(
                self.first_frame
                    .map(|f| whole(f, "firstFrame", u32::MAX))
                    .transpose()?
                    .unwrap_or(0),
            ),
        })
    }
}

/// The named output format; none means mp4.
pub(crate) fn output_format(name: Option<&str>) -> Outcome<OutputFormat> {
    let name = name.unwrap_or("mp4");
    OutputFormat::parse(name).ok_or_else(|| {
        bad_input(format!(
            "format must be one of {}, got '{name}'",
            OutputFormat::NAMES.join(", ")
        ))
    })
}

/// Encodes screenshots into one closed-GOP segment of the output format.
#[napi]
pub struct NativeEncoder {
    /// `None` once finish() or abort() has been called.
    encoder: Option<Encoder>,
}

#[napi]
impl NativeEncoder {
    /// Creates the output file and starts the decode and encode threads.
    #[napi(constructor)]
    pub fn new(options: NativeEncoderOptions) -> napi::Result<Self, ErrorCode> {
        let encoder = Encoder::start(options.into_options()?).map_err(Failure::from)?;
        Ok(NativeEncoder { encoder: Some(encoder) })
    }

    /// Queues one frame: a copy of an encoded screenshot, or a converted picture, which is the
    /// encoder's from then on (a pushed picture's handle is empty). Frames are encoded in call
    /// order. Resolves when fewer than `queueCapacity` pictures are in flight; rejects if the
    /// pipeline has failed.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn push<'env>(&mut self, env: &'env Env, frame: Either<&[u8], &mut Picture>) -> napi::Result<Object<'env>> {
        let bytes = match frame {
            Either::A(encoded) => Arc::new(encoded.to_vec()),
            Either::B(picture) => match picture.take() {
                Some(bytes) => bytes,
                None => {
                    return Err(napi::Error::from_reason(
                        "internal error: a picture was pushed after it had been pushed or released",
                    ))
                }
            },
        };
        self.enqueue(env, |encoder| encoder.push_shared(bytes))
    }

    /// Queues the previous screenshot again without decoding it (the page did not change).
    /// Resolves when fewer than `queueCapacity` pictures and 600 repeats are in flight: a repeat
    /// holds no pixels, so the capture of a still page runs ahead of the encoder.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn push_repeat<'env>(&mut self, env: &'env Env) -> napi::Result<Object<'env>> {
        self.enqueue(env, Encoder::push_repeat)
    }

    fn enqueue<'env>(
        &mut self,
        env: &'env Env,
        push: impl FnOnce(&mut Encoder) -> Result<u64, MediaError>,
    ) -> napi::Result<Object<'env>> {
        let (deferred, promise) = env.create_deferred::<(), Box<dyn FnOnce(Env) -> napi::Result<()>>>()?;
        let queued = match self.encoder.as_mut() {
            None => Err(ended()),
            Some(encoder) => push(encoder).map(|_| encoder).map_err(Failure::from),
        };
        // The JS error is made when the promise settles, on the JS thread, so that it has a code.
        let settle =
            move |outcome: Outcome<()>| deferred.resolve(Box::new(move |env| outcome.map_err(|f| f.into_js(env))));
        match queued {
            Err(failure) => settle(Err(failure)),
            Ok(encoder) => encoder.on_ready(Box::new(move |ready| settle(ready.map_err(Failure::from)))),
        }
        Ok(promise)
    }

    /// Encodes everything queued, writes the container's trailer and closes the file. On failure the
    /// partial file is deleted and the first error (naming the frame) rejects the promise.
    #[napi(ts_return_type = "Promise<EncodeResult>")]
    pub fn finish(&mut self) -> AsyncTask<Finish> {
        AsyncTask::new(Finish {
            encoder: self.encoder.take(),
        })
    }

    /// Stops the encoder and deletes the partial output. Does nothing after finish() or abort().
    #[napi]
    pub fn abort(&mut self) -> napi::Result<(), ErrorCode> {
        match self.encoder.take() {
            Some(encoder) => Ok(encoder.abort().map_err(Failure::from)?),
            None => Ok(()),
        }
    }
}

fn ended() -> Failure {
    Failure::new(
        ErrorCode::Failed,
        "this NativeEncoder was already finished or aborted; create a new one for another segment",
    )
}

pub struct Finish {
    encoder: Option<Encoder>,
}

impl Task for Finish {
    type Output = Outcome<EncodeStats>;
    type JsValue = EncodeResult;

    fn compute(&mut self) -> napi::Result<Outcome<EncodeStats>> {
        Ok(match self.encoder.take() {
            None => Err(ended()),
            Some(encoder) => encoder.finish().map_err(Failure::from),
        })
    }

    fn resolve(&mut self, env: Env, stats: Outcome<EncodeStats>) -> napi::Result<EncodeResult> {
        let stats = stats.map_err(|f| f.into_js(env))?;
        Ok(EncodeResult {
            frames: stats.frames as i64,
            bytes: stats.bytes as i64,
        })
    }
}
