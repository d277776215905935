//! Pure logic shared by every vidkit renderer: how a composition's frames are split into chunks,
//! and how a batch file (JSONL, a JSON array, CSV or TSV) is read. No libav, and no I/O beyond reading the batch file.

pub mod batch;
pub mod batch_table;
pub mod plan;

pub use batch::{
    parse_batch_file, parse_batch_file_with, parse_batch_reader, BatchEntry, BatchFormat, BatchLineError, BatchOptions,
    BatchParse, BatchReadError, EntrySpan, VariableDecl, BATCH_LINE_SCHEMA,
};
pub use plan::{plan_chunks, Chunk, PlanError, PlanOptions, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_PARALLEL_CHUNKS};
