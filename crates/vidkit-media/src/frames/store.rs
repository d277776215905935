//! Pictures of one source kept in a folder, so that readers after the first answer from it instead
//! of decoding again: a batch's rows draw the same a-roll frames in the windows their variables
//! reach (docs/explanation/batch-reuse.md, "Video pictures").
//!
//! A picture is kept together with the time of the picture the decoder gave after it. A request
//! is answered from the folder only when a kept picture has started by its time and its successor
//! has not, which is exactly when a decoding reader would show that picture; any other request
//! decodes. Files are written under a temporary name and renamed, and never change after, so a
//! page may read one while another reader keeps the next.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use super::select::started_by;
use crate::error::Cause;
use crate::MediaError;

/// The most bytes of pictures one folder keeps; past it, pictures are decoded as without a store.
/// It holds 690 pictures of 1080x1920 at 4:2:0 (3.1 MB each), 23 s at 30 fps: a batch keeps the
/// windows its variables reach, which are seconds long.
pub const MAX_STORE_BYTES: u64 = 2 << 30;

#[derive(Clone)]
struct Kept {
    time: f64,
    /// The time of the picture decoded after this one; `None` when the stream ends with it.
    next: Option<f64>,
    path: PathBuf,
}

#[derive(Default)]
struct Index {
    /// Kept pictures by the bits of their time (total order of the times, as `f64::total_cmp`).
    pictures: BTreeMap<i64, Kept>,
    bytes: u64,
}

/// One source's folder of kept pictures, shared by every reader in the process that names it.
pub struct PictureStore {
    dir: PathBuf,
    index: Mutex<Index>,
}

static STORES: LazyLock<Mutex<HashMap<PathBuf, Arc<PictureStore>>>> = LazyLock::new(Default::default);
static TEMPORARY: AtomicU64 = AtomicU64::new(0);

/// Orders times as `f64::total_cmp` does.
fn key(time: f64) -> i64 {
    let bits = time.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

fn name(time: f64, next: Option<f64>) -> String {
    let next = next.map_or_else(|| "end".to_string(), |n| format!("{:016x}", n.to_bits()));
    format!("{:016x}-{next}.picture", time.to_bits())
}

fn parse(name: &str) -> Option<(f64, Option<f64>)> {
    let (time, next) = name.strip_suffix(".picture")?.split_once('-')?;
    let time = f64::from_bits(u64::from_str_radix(time, 16).ok()?);
    let next = match next {
        "end" => None,
        bits => Some(f64::from_bits(u64::from_str_radix(bits, 16).ok()?)),
    };
    Some((time, next))
}

impl PictureStore {
    /// The store of `dir`, made if missing; the pictures an earlier run left there are kept.
    pub fn open(dir: &Path) -> Result<Arc<PictureStore>, MediaError> {
        Self::open_dir(dir).map_err(|e| MediaError::io(dir, Cause::of("cannot keep video pictures in it", e)))
    }

    fn open_dir(dir: &Path) -> io::Result<Arc<PictureStore>> {
        let mut stores = STORES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(store) = stores.get(dir) {
            return Ok(store.clone());
        }
        fs::create_dir_all(dir)?;
        let mut index = Index::default();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            let Some((time, next)) = entry.file_name().to_str().and_then(parse) else {
                continue;
            };
            index.bytes += entry.metadata()?.len();
            index.pictures.insert(
                key(time),
                Kept {
                    time,
                    next,
                    path: entry.path(),
                },
            );
        }
        let store = Arc::new(PictureStore {
            dir: dir.to_path_buf(),
            index: Mutex::new(index),
        });
        stores.insert(dir.to_path_buf(), store.clone());
        Ok(store)
    }

    /// The kept picture a decoding reader would show at `t`, as its time and file: the last kept
    /// one started by `t` whose successor has not, or the stream's first when `t` is before it.
    pub(crate) fn shown_at(&self, t: f64, allowance: f64, first_time: f64) -> Option<(f64, PathBuf)> {
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let candidate = index
            .pictures
            .range(..=key(t + allowance + 1.0))
            .rev()
            .map(|(_, kept)| kept)
            .find(|kept| started_by(kept.time, allowance, t))
            .or_else(|| index.pictures.values().next().filter(|kept| kept.time == first_time))
            .filter(|kept| kept.next.is_none_or(|next| !started_by(next, allowance, t)))
            .cloned()?;
        if candidate.path.is_file() {
            return Some((candidate.time, candidate.path));
        }
        // Removed from under us (the batch's work folder went): decode again.
        index.pictures.remove(&key(candidate.time));
        None
    }

    /// Keeps `bytes` as the picture of `time`, followed by the picture of `next`, and returns its
    /// file; `None` when the store is full.
    pub(crate) fn keep(&self, time: f64, next: Option<f64>, bytes: &[u8]) -> Result<Option<PathBuf>, MediaError> {
        self.keep_file(time, next, bytes)
            .map_err(|e| MediaError::io(&self.dir, Cause::of("cannot keep a video picture in it", e)))
    }

    fn keep_file(&self, time: f64, next: Option<f64>, bytes: &[u8]) -> io::Result<Option<PathBuf>> {
        {
            let index = self.index.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(kept) = index.pictures.get(&key(time)) {
                if kept.next == next && kept.path.is_file() {
                    return Ok(Some(kept.path.clone()));
                }
            }
            if index.bytes + bytes.len() as u64 > MAX_STORE_BYTES {
                return Ok(None);
            }
        }
        let path = self.dir.join(name(time, next));
        let temporary = self.dir.join(format!(
            ".{}-{}.partial",
            std::process::id(),
            TEMPORARY.fetch_add(1, Ordering::Relaxed)
        ));
        // The folder may have been removed since it was opened (a finished batch's work folder).
        let written = fs::create_dir_all(&self.dir)
            .and_then(|()| fs::write(&temporary, bytes))
            .and_then(|()| fs::rename(&temporary, &path));
        if let Err(e) = written {
            let _ = fs::remove_file(&temporary);
            return Err(e);
        }
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let previous = index.pictures.insert(
            key(time),
            Kept {
                time,
                next,
                path: path.clone(),
            },
        );
        if previous.is_none() {
            index.bytes += bytes.len() as u64;
        }
        Ok(Some(path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_order_by_their_keys_and_names_read_back() {
        let times = [-1.5, -0.0, 0.0, 1.0 / 30.0, 2.0, 1e9];
        for pair in times.windows(2) {
            assert!(key(pair[0]) <= key(pair[1]), "{pair:?}");
        }
        for (time, next) in [(0.0, Some(1.0 / 30.0)), (14.966, None)] {
            assert_eq!(parse(&name(time, next)), Some((time, next)));
        }
        assert_eq!(parse("notes.txt"), None);
    }

    #[test]
    fn a_kept_picture_answers_only_between_its_time_and_its_successors() {
        let dir = std::env::temp_dir().join(format!("vidkit-store-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let store = PictureStore::open(&dir).unwrap();
        let frame = 1.0 / 30.0;
        store.keep(10.0 * frame, Some(11.0 * frame), b"ten").unwrap();
        store.keep(0.0, Some(frame), b"zero").unwrap();
        store.keep(29.0 * frame, None, b"last").unwrap();
        let shown = |t: f64| {
            store
                .shown_at(t, 0.0, 0.0)
                .map(|(time, path)| (time, fs::read(path).unwrap()))
        };
        assert_eq!(shown(10.0 * frame), Some((10.0 * frame, b"ten".to_vec())));
        assert_eq!(shown(10.5 * frame), Some((10.0 * frame, b"ten".to_vec())));
        // Picture 11 was never kept: nothing is known between 11 and 29.
        assert_eq!(shown(11.0 * frame), None);
        assert_eq!(shown(20.0 * frame), None);
        // Before the first picture, the first shows.
        assert_eq!(shown(-0.5), Some((0.0, b"zero".to_vec())));
        // The last picture shows to the end.
        assert_eq!(shown(100.0), Some((29.0 * frame, b"last".to_vec())));
        // Another opening of the folder (a resumed batch) finds what was kept.
        STORES.lock().unwrap().remove(&dir);
        let again = PictureStore::open(&dir).unwrap();
        assert_eq!(again.shown_at(0.5 * frame, 0.0, 0.0).map(|(time, _)| time), Some(0.0));
        // A removed file is decoded again.
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(again.shown_at(0.0, 0.0, 0.0), None);
    }
}
