//! `parseBatchFile`: reads and parses on the libuv pool.

use std::path::PathBuf;

use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Task};
use napi_derive::napi;
use vidkit_core::{parse_batch_file as parse, BatchParse};

use crate::js::failure;

#[napi(object, js_name = "BatchEntry")]
pub struct JsBatchEntry {
    /// 1-based line number in the file.
    pub line: u32,
    pub output_key: String,
    /// The entry's `variables` object as compact JSON.
    pub variables_json: String,
}

#[napi(object, js_name = "BatchLineError")]
pub struct JsBatchLineError {
    pub line: u32,
    pub output_key: Option<String>,
    pub reason: String,
}

#[napi(object, js_name = "BatchParse")]
pub struct JsBatchParse {
    pub entries: Vec<JsBatchEntry>,
    pub errors: Vec<JsBatchLineError>,
}

pub struct ParseBatch {
    path: PathBuf,
}

impl Task for ParseBatch {
    type Output = BatchParse;
    type JsValue = JsBatchParse;

    fn compute(&mut self) -> napi::Result<BatchParse> {
        parse(&self.path).map_err(failure)
    }

    fn resolve(&mut self, _env: Env, parsed: BatchParse) -> napi::Result<JsBatchParse> {
        Ok(JsBatchParse {
            entries: parsed
                .entries
                .into_iter()
                .map(|e| JsBatchEntry {
                    line: e.line,
                    output_key: e.output_key,
                    variables_json: e.variables_json,
                })
                .collect(),
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

/// Parses a JSONL batch file; bad lines are reported in `errors`, never thrown.
#[napi(ts_return_type = "Promise<BatchParse>")]
pub fn parse_batch_file(path: String) -> AsyncTask<ParseBatch> {
    AsyncTask::new(ParseBatch { path: path.into() })
}
