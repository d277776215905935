//! `planChunks`: pure and fast, so it runs synchronously.

use napi_derive::napi;
use vidkit_core::{plan_chunks as plan, PlanOptions};

use vidkit_media::ErrorCode;

use crate::js::{bad_input, whole};

/// Options of `planChunks`; omitted fields take the defaults (chunkSize 240, maxParallelChunks 16).
#[napi(object, js_name = "PlanChunksOptions")]
pub struct JsPlanOptions {
    pub total_frames: f64,
    /// When set, `targetChunkFrames` is ignored.
    pub chunk_size: Option<f64>,
    pub max_parallel_chunks: Option<f64>,
    pub target_chunk_frames: Option<f64>,
}

/// Frames `[startFrame, endFrame)` of one chunk.
#[napi(object, js_name = "Chunk")]
pub struct JsChunk {
    pub index: u32,
    pub start_frame: u32,
    pub end_frame: u32,
    pub frame_count: u32,
}

/// Splits a render into balanced contiguous chunks; a given chunk size wins over a target length.
/// Throws naming the option when one is 0 or not a whole number.
#[napi]
pub fn plan_chunks(options: JsPlanOptions) -> napi::Result<Vec<JsChunk>, ErrorCode> {
    let optional = |value: Option<f64>, name: &str| value.map(|v| whole(v, name, u32::MAX)).transpose();
    let options = PlanOptions {
        total_frames: whole(options.total_frames, "totalFrames", u32::MAX)?,
        chunk_size: optional(options.chunk_size, "chunkSize")?,
        max_parallel_chunks: optional(options.max_parallel_chunks, "maxParallelChunks")?,
        target_chunk_frames: optional(options.target_chunk_frames, "targetChunkFrames")?,
    };
    let chunks = plan(options).map_err(|e| bad_input(e.to_string()))?;
    Ok(chunks
        .into_iter()
        .map(|c| JsChunk {
            index: c.index,
            start_frame: c.start_frame,
            end_frame: c.end_frame,
            frame_count: c.frame_count,
        })
        .collect())
}
