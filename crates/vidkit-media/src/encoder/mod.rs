//! The frame encoder: encoded screenshots in, one segment of the [`OutputFormat`] out.
//!
//! ```text
//! push() ──jobs (unbounded)──► decode thread ──pictures (bounded)──► encode thread ──► segment
//!          JPEG/PNG bytes      decode + colour     output pixels        encoder + mux
//! ```
//!
//! `push` never blocks, so a caller on an event loop can hand frames over as they arrive. Memory
//! is bounded by the caller honouring backpressure: it waits ([`Encoder::wait_ready`] or
//! [`Encoder::on_ready`]) until fewer than `queue_capacity` pictures are in flight, and fewer
//! repeats than a bound of their own (a repeat holds no pixels: flow.rs).

mod decode;
mod encode;
mod flow;

use std::fs;
use std::io;
use std::path::PathBuf;
use std::sync::{mpsc, Arc};
use std::thread::{self, JoinHandle};

use ffmpeg_next as ffmpeg;

use crate::error::Cause;
use crate::{libav, MediaError, OutputFormat};
use decode::Job;
use flow::{Flow, Kind};
pub use flow::{ReadyCallback, REPEAT_CAPACITY};

/// The x264 presets, fastest first.
pub const X264_PRESETS: [&str; 10] = [
    "ultrafast",
    "superfast",
    "veryfast",
    "faster",
    "fast",
    "medium",
    "slow",
    "slower",
    "veryslow",
    "placebo",
];

/// More encoder threads than this stop paying off for one segment.
const MAX_THREADS: u32 = 64;

/// `key=value(:key=value)*` with plain option names and values, so nothing else reaches x264's
/// parser.
fn valid_x264_params(params: &str) -> bool {
    let word = |s: &str, extra: &[char]| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || extra.contains(&c))
    };
    params.split(':').all(|pair| match pair.split_once('=') {
        Some((key, value)) => word(key, &[]) && word(value, &['.', ',', '_']),
        None => false,
    })
}

/// Decoded pictures waiting for x264. Two keep both threads busy; each 1080p picture is ~3 MB.
const PICTURE_QUEUE: usize = 2;

/// How the pushed images are encoded: Chromium's screenshot formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFormat {
    Jpeg,
    Png,
}

impl InputFormat {
    pub(crate) fn label(self) -> &'static str {
        match self {
            InputFormat::Jpeg => "JPEG",
            InputFormat::Png => "PNG",
        }
    }
}

/// Encoder settings. Validation messages use the JavaScript option names, which is what users
/// of the Node binding see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncoderOptions {
    /// Written in the format's container whatever its extension; created (or truncated) by
    /// [`Encoder::start`].
    pub output: PathBuf,
    pub format: OutputFormat,
    pub width: u32,
    pub height: u32,
    pub fps_num: u32,
    pub fps_den: u32,
    /// Constant rate factor, 0 (lossless) to 51 (x264, x265, VP9; ProRes ignores it).
    pub crf: u8,
    /// One of [`X264_PRESETS`] (VP9 maps it to a libvpx speed; ProRes ignores it).
    pub preset: String,
    /// Extra x264 options as `key=value:key=value` (x264's `--x264-params`), after the preset;
    /// other formats ignore them.
    pub x264_params: Option<String>,
    /// Encoder threads; 0 lets the codec choose from the cores. Several encoders running side by
    /// side (one per worker) each do better with fewer threads than that.
    pub threads: u32,
    pub input: InputFormat,
    /// How many pushed pictures may be in flight before [`Encoder::wait_ready`] blocks (repeats
    /// have a larger bound of their own).
    pub queue_capacity: usize,
    /// A keyframe at every render frame that is a multiple of this (H.264 only), counting the
    /// segment's first frame as render frame `first_frame`: segments of one render then share one
    /// keyframe grid, which the hls format cuts its segments on.
    pub keyframe_interval: Option<u32>,
    /// The render frame of the segment's first frame (see `keyframe_interval`).
    pub first_frame: u64,
}

impl EncoderOptions {
    fn validate(&self) -> Result<(), MediaError> {
        let invalid = |message: String| Err(MediaError::InvalidOptions(message));
        for (name, value) in [("width", self.width), ("height", self.height)] {
            if value == 0 || value % 2 != 0 {
                return invalid(format!(
                    "{name} must be a positive even number of pixels (4:2:0 needs even sizes), got {value}"
                ));
            }
        }
        if self.fps_num == 0 || self.fps_den == 0 || self.fps_num > i32::MAX as u32 || self.fps_den > i32::MAX as u32 {
            return invalid(format!(
                "fpsNum/fpsDen must both be positive (30 fps is 30/1, 29.97 is 30000/1001), got {}/{}",
                self.fps_num, self.fps_den
            ));
        }
        if self.crf > 51 {
            return invalid(format!(
                "crf must be 0 to 51 (lower is higher quality, 18 to 23 is typical), got {}",
                self.crf
            ));
        }
        if !X264_PRESETS.contains(&self.preset.as_str()) {
            return invalid(format!(
                "preset must be one of {}, got \"{}\"",
                X264_PRESETS.join(", "),
                self.preset
            ));
        }
        if let Some(params) = &self.x264_params {
            if !valid_x264_params(params) {
                return invalid(format!(
                    "x264Params must be key=value pairs joined by ':' (e.g. \"me=dia:subme=1\"), got \"{params}\""
                ));
            }
        }
        if self.threads > MAX_THREADS {
            return invalid(format!(
                "threads must be 0 (automatic) to {MAX_THREADS}, got {}",
                self.threads
            ));
        }
        if self.queue_capacity == 0 {
            return invalid("queueCapacity must be at least 1".into());
        }
        if self.keyframe_interval == Some(0) {
            return invalid("keyframeInterval must be at least 1 frame".into());
        }
        if self.keyframe_interval.is_some() && self.format != OutputFormat::Mp4 {
            return invalid(format!(
                "keyframeInterval is for the mp4 format (H.264) only, got format {}",
                self.format.name()
            ));
        }
        Ok(())
    }
}

/// What a finished encode produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeStats {
    pub frames: u64,
    /// Size of the finished file.
    pub bytes: u64,
}

/// A running encode. Dropping it without [`Encoder::finish`] aborts it.
pub struct Encoder {
    output: PathBuf,
    flow: Arc<Flow>,
    jobs: Option<mpsc::Sender<Job>>,
    decode_thread: Option<JoinHandle<()>>,
    encode_thread: Option<JoinHandle<Option<u64>>>,
    next_index: u64,
}

impl Encoder {
    /// Validates the options, creates the output file and starts both threads. Codec set-up
    /// happens on the threads; if it fails, the next push, wait or finish reports it.
    pub fn start(options: EncoderOptions) -> Result<Self, MediaError> {
        options.validate()?;
        libav::init();
        let output = ffmpeg::format::output_as(&options.output, options.format.container())
            .map_err(|e| MediaError::io(&options.output, Cause::of("cannot create the output file", e)))?;

        let flow = Arc::new(Flow::new(options.queue_capacity));
        let (jobs, job_queue) = mpsc::channel();
        let (pictures, picture_queue) = mpsc::sync_channel(PICTURE_QUEUE);
        let settings = encode::Settings {
            format: options.format,
            path: options.output.clone(),
            width: options.width,
            height: options.height,
            fps_num: options.fps_num,
            fps_den: options.fps_den,
            crf: options.crf,
            preset: options.preset.clone(),
            x264_params: options.x264_params.clone(),
            threads: options.threads,
            keyframes: options.keyframe_interval.map(|every| (every, options.first_frame)),
        };
        let spawn_failed = |e: io::Error| MediaError::libav("starting the encoder threads", e);
        let decode_flow = Arc::clone(&flow);
        let decode_thread = thread::Builder::new()
            .name("vidkit-decode".into())
            .spawn(move || {
                decode::run(
                    options.input,
                    options.format,
                    options.width,
                    options.height,
                    job_queue,
                    pictures,
                    decode_flow,
                )
            })
            .map_err(spawn_failed)?;
        let encode_flow = Arc::clone(&flow);
        let encode_thread = thread::Builder::new()
            .name("vidkit-encode".into())
            .spawn(move || encode::run(settings, output, picture_queue, encode_flow))
            .map_err(spawn_failed)?;

        Ok(Encoder {
            output: options.output,
            flow,
            jobs: Some(jobs),
            decode_thread: Some(decode_thread),
            encode_thread: Some(encode_thread),
            next_index: 0,
        })
    }

    /// Queues one encoded image. Returns its frame index (= presentation timestamp), taken now:
    /// frames are encoded in push order. Never blocks; fails if the pipeline has failed.
    pub fn push(&mut self, bytes: Vec<u8>) -> Result<u64, MediaError> {
        self.push_shared(Arc::new(bytes))
    }

    /// [`push`](Self::push) of bytes the caller may hold on to as well (a picture it may send
    /// again): the encoder reads them without a copy and lets go once the frame is decoded.
    pub fn push_shared(&mut self, bytes: Arc<Vec<u8>>) -> Result<u64, MediaError> {
        self.enqueue(Kind::Picture, |index| Job::Image { index, bytes })
    }

    /// Queues the previous image again without decoding it, for frames the browser reports as
    /// unchanged.
    pub fn push_repeat(&mut self) -> Result<u64, MediaError> {
        if self.next_index == 0 {
            return Err(MediaError::Usage(
                "pushRepeat() repeats the previous frame, but no frame has been pushed yet; push one first".into(),
            ));
        }
        self.enqueue(Kind::Repeat, |index| Job::Repeat { index })
    }

    fn enqueue(&mut self, kind: Kind, job: impl FnOnce(u64) -> Job) -> Result<u64, MediaError> {
        let jobs = self
            .jobs
            .as_ref()
            .expect("jobs is only taken by finish and abort, which consume the encoder");
        self.flow.admit(kind)?;
        let index = self.next_index;
        if jobs.send(job(index)).is_err() {
            // The decode thread only leaves early after recording a failure.
            return Err(self
                .flow
                .failure()
                .unwrap_or_else(|| MediaError::Usage("the encoder's decode thread stopped unexpectedly".into())));
        }
        self.next_index += 1;
        Ok(index)
    }

    /// Blocks until there is room (fewer than `queue_capacity` pictures and the repeats' bound in
    /// flight), or returns the failure.
    pub fn wait_ready(&self) -> Result<(), MediaError> {
        self.flow.wait_ready()
    }

    /// Calls `callback` as soon as there is room, as for [`wait_ready`](Self::wait_ready) (possibly
    /// right away, on this thread; otherwise on a pipeline thread), or with the failure.
    pub fn on_ready(&self, callback: ReadyCallback) {
        self.flow.on_ready(callback)
    }

    /// Frames pushed but not yet handed to x264.
    pub fn in_flight(&self) -> usize {
        self.flow.in_flight()
    }

    /// Encodes everything pushed, writes the trailer and closes the file. On failure the partial
    /// file is deleted and the first error is returned.
    pub fn finish(mut self) -> Result<EncodeStats, MediaError> {
        drop(self.jobs.take());
        let decode_thread = self.decode_thread.take().expect("threads are only taken once");
        let encode_thread = self.encode_thread.take().expect("threads are only taken once");
        let decoded = decode_thread.join();
        let encoded = encode_thread.join();
        let frames = match (decoded, encoded, self.flow.failure()) {
            (_, _, Some(failure)) => return Err(self.discard_output(failure)),
            (Ok(()), Ok(Some(frames)), None) => frames,
            _ => {
                return Err(self.discard_output(MediaError::Usage(
                    "an encoder thread panicked; the segment was discarded".into(),
                )))
            }
        };
        let bytes = fs::metadata(&self.output)
            .map_err(|e| MediaError::io(&self.output, e))?
            .len();
        Ok(EncodeStats { frames, bytes })
    }

    /// Stops both threads at their next frame and deletes the output file. The threads are not
    /// joined, so this returns at once; they hold no path, only an already-unlinked file.
    pub fn abort(mut self) -> Result<(), MediaError> {
        self.abort_in_place()
    }

    fn abort_in_place(&mut self) -> Result<(), MediaError> {
        self.flow.fail(MediaError::Usage("the encoder was aborted".into()));
        drop(self.jobs.take());
        self.decode_thread.take();
        self.encode_thread.take();
        remove_if_present(&self.output)
    }

    fn discard_output(&self, failure: MediaError) -> MediaError {
        // The failure is what the caller needs to see; a failed cleanup is secondary.
        let _ = remove_if_present(&self.output);
        failure
    }
}

impl Drop for Encoder {
    fn drop(&mut self) {
        if self.encode_thread.is_some() {
            let _ = self.abort_in_place();
        }
    }
}

fn remove_if_present(path: &std::path::Path) -> Result<(), MediaError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(MediaError::io(path, Cause::of("cannot delete the partial output", e)))
        }
        _ => Ok(()),
    }
}
