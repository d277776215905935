//! Backpressure and failure state shared by the caller and the two pipeline threads.
//!
//! A frame is "in flight" from `push` until the encode thread has handed it to x264. Callers wait
//! until fewer than `capacity` pictures and fewer than [`REPEAT_CAPACITY`] repeats are in flight,
//! either by blocking ([`Flow::wait_ready`]) or by registering a callback ([`Flow::on_ready`]) that
//! a pipeline thread runs, which is how the Node binding resolves promises without holding a libuv
//! worker.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use crate::MediaError;

/// Called once with `Ok` when the pipeline has room, or with the pipeline's failure.
pub type ReadyCallback = Box<dyn FnOnce(Result<(), MediaError>) + Send>;

/// Repeats that may be in flight besides the pictures. A repeat holds no pixels, so a page that
/// holds still is captured ahead of x264 (about 2 ms a frame against x264's 4-5 ms at 720p) and
/// x264 catches up while the next change is drawn, instead of the capture waiting at each repeat:
/// a slide deck at 720p took 4.43 s with repeats counted as pictures (8), 4.08 s with this bound
/// (one worker). 20 s at 30 fps: the backlog x264 may be left with when the capture ends.
pub const REPEAT_CAPACITY: usize = 600;

/// What a frame in flight is: a picture (pixels to decode and encode) or a repeat of the last one.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    Picture,
    Repeat,
}

pub(crate) struct Flow {
    capacity: usize,
    state: Mutex<State>,
    changed: Condvar,
    /// Mirrors `state.failure.is_some()` so the threads can check it per frame without locking.
    failed: AtomicBool,
}

#[derive(Default)]
struct State {
    pictures: usize,
    repeats: usize,
    failure: Option<MediaError>,
    waiters: Vec<ReadyCallback>,
}

impl State {
    fn has_room(&self, capacity: usize) -> bool {
        self.pictures < capacity && self.repeats < REPEAT_CAPACITY
    }

    fn count(&mut self, kind: Kind) -> &mut usize {
        match kind {
            Kind::Picture => &mut self.pictures,
            Kind::Repeat => &mut self.repeats,
        }
    }
}

impl Flow {
    pub(crate) fn new(capacity: usize) -> Self {
        Flow {
            capacity,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            failed: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the counters half-updated, so a poisoned
        // lock is still consistent.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Counts a new frame in, unless the pipeline has already failed.
    pub(crate) fn admit(&self, kind: Kind) -> Result<(), MediaError> {
        let mut state = self.lock();
        if let Some(failure) = &state.failure {
            return Err(failure.clone());
        }
        *state.count(kind) += 1;
        Ok(())
    }

    /// Counts a frame out (encoded or dropped) and wakes waiters once there is room.
    pub(crate) fn retire(&self, kind: Kind) {
        let ready = {
            let mut state = self.lock();
            let count = state.count(kind);
            *count = count.saturating_sub(1);
            if state.has_room(self.capacity) {
                std::mem::take(&mut state.waiters)
            } else {
                Vec::new()
            }
        };
        self.changed.notify_all();
        ready.into_iter().for_each(|waiter| waiter(Ok(())));
    }

    /// Records the first failure; later ones are consequences of it. Every waiter gets it, and
    /// both threads stop at their next frame. Abort is a failure too, so nothing waits forever.
    pub(crate) fn fail(&self, error: MediaError) {
        let waiters = {
            let mut state = self.lock();
            state.failure.get_or_insert(error);
            self.failed.store(true, Ordering::Release);
            std::mem::take(&mut state.waiters)
        };
        self.changed.notify_all();
        let failure = self.failure().expect("failure was just recorded");
        waiters.into_iter().for_each(|waiter| waiter(Err(failure.clone())));
    }

    pub(crate) fn failure(&self) -> Option<MediaError> {
        self.lock().failure.clone()
    }

    /// Runs `callback` now if there is room or the pipeline failed, else when either happens.
    pub(crate) fn on_ready(&self, callback: ReadyCallback) {
        let outcome = {
            let mut state = self.lock();
            match &state.failure {
                Some(failure) => Err(failure.clone()),
                None if state.has_room(self.capacity) => Ok(()),
                None => {
                    state.waiters.push(callback);
                    return;
                }
            }
        };
        callback(outcome);
    }

    /// Blocks until there is room or the pipeline failed.
    pub(crate) fn wait_ready(&self) -> Result<(), MediaError> {
        let mut state = self.lock();
        loop {
            if let Some(failure) = &state.failure {
                return Err(failure.clone());
            }
            if state.has_room(self.capacity) {
                return Ok(());
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    pub(crate) fn in_flight(&self) -> usize {
        let state = self.lock();
        state.pictures + state.repeats
    }

    pub(crate) fn has_failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }
}
