//! `parseBatchFile`: reads and parses on the libuv pool.

use std::path::PathBuf;

use napi::bindgen_prelude::{AsyncTask, Buffer, Uint32Array};
use napi::{Env, Task};
use napi_derive::napi;
use vidkit_core::{parse_batch_file_with as parse, BatchOptions, BatchParse, BATCH_LINE_SCHEMA};

use vidkit_media::ErrorCode;

use crate::js::{bad_input, Failure, Outcome};

#[napi(object, js_name = "BatchLineError")]
pub struct JsBatchLineError {
    pub line: u32,
    pub output_key: Option<String>,
    pub reason: String,
}

/// A parsed batch, packed: no JS object or string per entry is made here. Entry `i` is
/// `spans[4i..4i+4] = [line, start, mid, end]`: its outputKey is `text[start..mid]` and its
/// variables JSON `text[mid..end]` (UTF-8 byte offsets), so 100,000 lines cross the boundary as
/// three buffers and the JS side decodes an entry only when it dispatches it.
#[napi(object, js_name = "PackedBatchParse")]
pub struct JsBatchParse {
    pub spans: Uint32Array,
    pub text: Buffer,
    pub errors: Vec<JsBatchLineError>,
}

pub struct ParseBatch {
    path: PathBuf,
    options: BatchOptions,
}

impl Task for ParseBatch {
    type Output = Outcome<BatchParse>;
    type JsValue = JsBatchParse;

    fn compute(&mut self) -> napi::Result<Outcome<BatchParse>> {
        Ok(parse(&self.path, &self.options).map_err(|e| Failure::new(ErrorCode::of_io(&e.source), e.to_string())))
    }

    fn resolve(&mut self, env: Env, parsed: Outcome<BatchParse>) -> napi::Result<JsBatchParse> {
        let parsed = parsed.map_err(|f| f.into_js(env))?;
        let spans = parsed
            .spans
            .iter()
            .flat_map(|s| [s.line, s.start, s.mid, s.end])
            .collect::<Vec<u32>>();
        Ok(JsBatchParse {
            spans: Uint32Array::new(spans),
            text: Buffer::from(parsed.text.into_bytes()),
            errors: parsed
                .errors
                .into_iter()
                .map(|e| JsBatchLineError {
                    line: e.line,
                    output_key: e.output_key,
                    reason: e.reason,
                })
                .collect(),
        })
    }
}

/// Parses a batch file (JSONL, JSON array, CSV or TSV, by its name); bad lines are reported in
/// `errors`, never thrown. `options_json` is `{declarations?, outputKeyPattern?}` as JSON (see
/// `vidkit_core::BatchOptions`).
#[napi(ts_return_type = "Promise<PackedBatchParse>")]
pub fn parse_batch_file(path: String, options_json: Option<String>) -> napi::Result<AsyncTask<ParseBatch>, ErrorCode> {
    let options = match options_json {
        Some(json) => serde_json::from_str(&json).map_err(|e| bad_input(format!("batch options: {e}")))?,
        None => BatchOptions::default(),
    };
    Ok(AsyncTask::new(ParseBatch {
        path: path.into(),
        options,
    }))
}

/// The JSON Schema of one batch line, as the parser checks it (docs/reference/schemas/batch-line.schema.json).
#[napi]
pub fn batch_line_schema() -> String {
    BATCH_LINE_SCHEMA.to_owned()
}
