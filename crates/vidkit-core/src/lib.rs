//! Pure logic shared by every vidkit renderer: how a composition's frames are split into chunks,
//! and how a JSONL batch file is read. No libav, and no I/O beyond reading the batch file.

pub mod batch;
pub mod plan;

pub use batch::{parse_batch_file, parse_batch_reader, BatchEntry, BatchLineError, BatchParse, BatchReadError, EntrySpan};
pub use plan::{plan_chunks, Chunk, PlanError, PlanOptions, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_PARALLEL_CHUNKS};
