//! One `<video>` element's reader: a thread that decodes ahead of the page while it draws and
//! answers each request with the picture shown at the request's time, written as RGBA.

use std::collections::VecDeque;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, TryRecvError};
use std::sync::Arc;
use std::thread;

use super::convert::{Converter, PictureLayout};
use super::select::{shown_at, started_by, EPSILON};
use super::source::{Picture, Source, VideoInfo};
use super::store::PictureStore;
use crate::error::{Cause, ErrorCode};
use crate::MediaError;

/// Settles a request: the file holding the picture shown, or `None` when it is the one answered
/// last (it still shows).
pub type FrameDone = Box<dyn FnOnce(Result<Option<PathBuf>, MediaError>) + Send>;

/// Decoded pictures one reader keeps: the one shown and those decoded ahead. Requests come one
/// capture apart (tens of milliseconds) and a picture decodes in a few, so two pictures ahead
/// already hide decoding; a few more absorb keyframes and fast playback rates. The byte bound
/// keeps 4K sources at two pictures (1080p 4:2:0 holds 5, 15 MB; 4K holds 2, 25 MB).
const MAX_PICTURES: usize = 5;
const MIN_PICTURES: usize = 2;
const MAX_DECODED_BYTES: usize = 32 << 20;

/// A request further ahead of the last decoded picture than this seeks instead of decoding
/// through (a start offset, a loop's wrap, a jump made by a script).
const SEEK_AHEAD_SECONDS: f64 = 2.0;

enum Request {
    Frame {
        seconds: f64,
        output: PathBuf,
        store: Option<Arc<PictureStore>>,
        done: FrameDone,
    },
}

pub struct VideoReader {
    info: VideoInfo,
    layout: PictureLayout,
    requests: mpsc::Sender<Request>,
}

impl VideoReader {
    /// Opens `path` and decodes its first picture on the calling thread, so a file that cannot be
    /// played fails here with libav's reason; then starts the reader thread. `None` when the file
    /// has no video stream.
    pub fn open(path: &Path) -> Result<Option<VideoReader>, MediaError> {
        let Some((source, info)) = Source::open(path)? else {
            return Ok(None);
        };
        let cursor = Cursor::start(source)?;
        let layout = cursor.converter.layout().clone();
        let (requests, incoming) = mpsc::channel();
        thread::Builder::new()
            .name("vidkit-video".into())
            .spawn(move || cursor.run(incoming))
            .map_err(|e| MediaError::io(path, Cause::of("cannot start its reader thread", e)))?;
        Ok(Some(VideoReader { info, layout, requests }))
    }

    pub fn info(&self) -> &VideoInfo {
        &self.info
    }

    /// How pictures are written.
    pub fn layout(&self) -> &PictureLayout {
        &self.layout
    }

    /// Writes the picture shown at media time `seconds` to `output` in the [`PictureLayout`],
    /// unless it is the picture answered last; `done` is called on the reader thread with the file.
    /// With a `store`, the picture comes from it when kept there (no decoding) and is kept there
    /// when decoded, and the store's file is answered instead of `output`. Requests are answered
    /// in order. Dropping the reader ends the thread.
    pub fn frame_at(&self, seconds: f64, output: PathBuf, store: Option<Arc<PictureStore>>, done: FrameDone) {
        if let Err(mpsc::SendError(Request::Frame { done, .. })) = self.requests.send(Request::Frame {
            seconds,
            output,
            store,
            done,
        }) {
            done(Err(MediaError::Usage("this video reader has stopped".into())));
        }
    }
}

struct Cursor {
    source: Source,
    converter: Converter,
    /// Decoded pictures in time order; the first is the one shown last, or the earliest kept.
    queue: VecDeque<Picture>,
    /// No picture follows the queue's last.
    ended: bool,
    /// The time of the stream's first picture.
    first_time: f64,
    /// The time of the picture answered last.
    written: Option<f64>,
    capacity: usize,
    /// A decoding failure while reading ahead, reported to the next request.
    failed: Option<MediaError>,
}

impl Cursor {
    /// Decodes the first picture, which fixes how pictures are written; converting it fails now,
    /// rather than at frame 0, a source whose pictures cannot be.
    fn start(mut source: Source) -> Result<Self, MediaError> {
        let Some(first) = source.next()? else {
            return Err(MediaError::io(
                source.path(),
                Cause::from("its video stream holds no picture that libav can decode").or_code(ErrorCode::DecodeFailed),
            ));
        };
        let mut converter = Converter::new(&first, &source.display);
        converter
            .convert(&first, &source.display)
            .map_err(|e| MediaError::io(source.path(), Cause::from(e).or_code(ErrorCode::DecodeFailed)))?;
        let bytes = picture_bytes(&first).max(1);
        Ok(Cursor {
            converter,
            ended: false,
            first_time: first.time,
            written: None,
            capacity: (MAX_DECODED_BYTES / bytes).clamp(MIN_PICTURES, MAX_PICTURES),
            failed: None,
            queue: VecDeque::from([first]),
            source,
        })
    }

    fn run(mut self, incoming: mpsc::Receiver<Request>) {
        loop {
            let request = if self.failed.is_none() && !self.ended && self.queue.len() < self.capacity {
                match incoming.try_recv() {
                    Ok(request) => request,
                    Err(TryRecvError::Empty) => {
                        if let Err(e) = self.decode_one() {
                            self.failed = Some(e);
                        }
                        continue;
                    }
                    Err(TryRecvError::Disconnected) => return,
                }
            } else {
                match incoming.recv() {
                    Ok(request) => request,
                    Err(_) => return,
                }
            };
            let Request::Frame {
                seconds,
                output,
                store,
                done,
            } = request;
            done(self.answer(seconds, output, store.as_deref()));
        }
    }

    fn answer(
        &mut self,
        seconds: f64,
        output: PathBuf,
        store: Option<&PictureStore>,
    ) -> Result<Option<PathBuf>, MediaError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if let Some((time, file)) = store.and_then(|s| s.shown_at(seconds, self.source.allowance, self.first_time)) {
            return Ok(self.answered(time, file));
        }
        self.move_to(seconds)?;
        let picture = self.queue.front().expect("move_to leaves the shown picture first");
        let time = picture.time;
        if self.written == Some(time) {
            return Ok(None);
        }
        // What the decoder gives after this picture, when already known: a store keeps a picture
        // only with it, since only then does it know which times the picture is shown at.
        let next = match (self.queue.get(1), self.ended) {
            (Some(next), _) => Some(Some(next.time)),
            (None, true) => Some(None),
            (None, false) => None,
        };
        let bytes = self
            .converter
            .convert(picture, &self.source.display)
            .map_err(|e| MediaError::io(self.source.path(), Cause::from(e).or_code(ErrorCode::DecodeFailed)))?;
        if let (Some(store), Some(next)) = (store, next) {
            if let Some(file) = store.keep(time, next, bytes)? {
                return Ok(self.answered(time, file));
            }
        }
        write_over(&output, bytes)
            .map_err(|e| MediaError::io(&output, Cause::of("cannot write a video picture", e)))?;
        Ok(self.answered(time, output))
    }

    /// Answers the picture of `time`, held in `file`: `None` when it is the one answered last.
    fn answered(&mut self, time: f64, file: PathBuf) -> Option<PathBuf> {
        if self.written == Some(time) {
            return None;
        }
        self.written = Some(time);
        Some(file)
    }

    /// Leaves the picture shown at `t` first in the queue.
    fn move_to(&mut self, t: f64) -> Result<(), MediaError> {
        let allowance = self.source.allowance;
        let behind = self
            .queue
            .front()
            .is_some_and(|front| !started_by(front.time, allowance, t) && front.time > self.first_time + EPSILON);
        let far_ahead = !self.ended && self.queue.back().is_some_and(|back| t - back.time > SEEK_AHEAD_SECONDS);
        if behind || far_ahead || self.queue.is_empty() {
            self.seek_to(t)?;
        }
        while !self.ended && self.queue.back().is_none_or(|back| started_by(back.time, allowance, t)) {
            self.decode_one()?;
        }
        if self.queue.is_empty() {
            return Err(MediaError::io(
                self.source.path(),
                Cause::from(format!("no picture decodes at {t:.3} s")).or_code(ErrorCode::DecodeFailed),
            ));
        }
        let shown = shown_at(self.queue.iter().map(|p| p.time), allowance, t);
        self.queue.drain(..shown);
        Ok(())
    }

    /// Seeks so that the queue starts at or before `t`: libav lands on a keyframe at or before
    /// the target, but some files' indexes land after it, so each miss aims further back.
    fn seek_to(&mut self, t: f64) -> Result<(), MediaError> {
        let mut target = t;
        for back in [1.0, 4.0, f64::INFINITY] {
            self.source.seek(target)?;
            self.queue.clear();
            self.ended = false;
            self.decode_one()?;
            match self.queue.front() {
                Some(first)
                    if first.time > self.first_time + EPSILON && !started_by(first.time, self.source.allowance, t) =>
                {
                    target = (t - back).max(0.0);
                }
                _ => return Ok(()),
            }
        }
        Ok(())
    }

    fn decode_one(&mut self) -> Result<(), MediaError> {
        match self.source.next()? {
            Some(picture) => {
                // A picture stamped earlier than one already held (a damaged stream) replaces nothing.
                if self.queue.back().is_none_or(|back| picture.time > back.time) {
                    self.queue.push_back(picture);
                }
            }
            None => self.ended = true,
        }
        Ok(())
    }
}

/// Bytes a decoded picture holds, all planes.
fn picture_bytes(picture: &Picture) -> usize {
    let frame = &picture.frame;
    (0..frame.planes())
        .map(|i| frame.stride(i) * frame.plane_height(i) as usize)
        .sum()
}

/// Writes `bytes` over the file at `path` in place. The renderer hands a video the same file for
/// each of its pictures: written over, its pages stay in the page cache, where a new file's are
/// allocated, and freed again when it is removed, for every picture.
fn write_over(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new().write(true).create(true).truncate(false).open(path)?;
    file.write_all(bytes)?;
    file.set_len(bytes.len() as u64)
}
