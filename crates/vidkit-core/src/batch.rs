//! Streaming parser for batch render files: one JSON object per line,
//! `{"outputKey": "<non-empty string>", "variables": { ... }}`; also a JSON array of such objects,
//! and CSV or TSV tables (see [`crate::batch_table`]), all into the same [`BatchParse`].
//!
//! The file is read one physical line at a time into a reused buffer, so working memory is bounded
//! by the longest line, not the file. A line is parsed without building a JSON tree: `variables` is
//! kept as the raw text the line gave. Every entry's outputKey and variables text are packed back to
//! back into one string, so a batch of any size is three allocations, not two per line. A bad line
//! is reported and never stops the others. A UTF-8 byte order mark before the first line is skipped
//! (editors on Windows write one). Every outputKey is checked against the object-key rules of
//! `check_output_key`, so every renderer that reads a batch refuses the same keys.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::batch_table::{parse_table, TableKind};

/// A line that can be rendered, borrowed from its [`BatchParse`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchEntry<'a> {
    /// 1-based physical line number (blank lines count).
    pub line: u32,
    pub output_key: &'a str,
    /// The `variables` object's JSON text exactly as the line wrote it.
    pub variables_json: &'a str,
}

/// Where an entry lies in [`BatchParse::text`]: its outputKey is `text[start..mid]` and its
/// variables JSON `text[mid..end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntrySpan {
    pub line: u32,
    pub start: u32,
    pub mid: u32,
    pub end: u32,
}

/// A line that cannot be rendered, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchLineError {
    /// 1-based physical line number.
    pub line: u32,
    /// The line's outputKey when it had a usable one, so the manifest can name the output.
    pub output_key: Option<String>,
    pub reason: String,
}

/// Every entry and every line error of a batch file, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchParse {
    /// The entries' outputKeys and variables texts, back to back (see [`EntrySpan`]).
    pub text: String,
    pub spans: Vec<EntrySpan>,
    pub errors: Vec<BatchLineError>,
}

impl BatchParse {
    pub fn entry(&self, span: &EntrySpan) -> BatchEntry<'_> {
        let (start, mid, end) = (span.start as usize, span.mid as usize, span.end as usize);
        BatchEntry {
            line: span.line,
            output_key: &self.text[start..mid],
            variables_json: &self.text[mid..end],
        }
    }

    pub fn entries(&self) -> impl Iterator<Item = BatchEntry<'_>> {
        self.spans.iter().map(|span| self.entry(span))
    }
}

/// The batch file itself could not be read (as opposed to a line in it being wrong).
#[derive(Debug)]
pub struct BatchReadError {
    pub path: Option<PathBuf>,
    pub source: io::Error,
}

impl fmt::Display for BatchReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "cannot read batch file {}: {}", path.display(), self.source),
            None => write!(f, "cannot read batch input: {}", self.source),
        }
    }
}

impl std::error::Error for BatchReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// How a batch file is laid out, from its name: `.csv`, `.tsv` (or `.tab`), `.json` (an array of
/// entries); anything else is JSONL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchFormat {
    Jsonl,
    JsonArray,
    Csv,
    Tsv,
}

impl BatchFormat {
    pub fn of_path(path: &Path) -> BatchFormat {
        let extension = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("csv") => BatchFormat::Csv,
            Some("tsv" | "tab") => BatchFormat::Tsv,
            Some("json") => BatchFormat::JsonArray,
            _ => BatchFormat::Jsonl,
        }
    }
}

/// What a table needs to become entries: the composition's declarations (a cell is converted by
/// its variable's type) and, when the table has no `outputKey` column, a pattern that names each
/// row's output from its cells (`renders/{id}.mp4`). JSONL and JSON arrays use neither.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchOptions {
    #[serde(default)]
    pub declarations: Vec<VariableDecl>,
    #[serde(default)]
    pub output_key_pattern: Option<String>,
}

/// A variable declaration as the composition states it (docs/guide/compositions.md).
#[derive(Debug, Clone, Deserialize)]
pub struct VariableDecl {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// An enum's allowed values (strings, numbers or booleans).
    #[serde(default)]
    pub options: Vec<Value>,
}

/// Opens and parses a JSONL batch file.
pub fn parse_batch_file(path: &Path) -> Result<BatchParse, BatchReadError> {
    parse_batch_file_with(path, &BatchOptions::default())
}

/// Opens and parses a batch file of any [`BatchFormat`], told by its name.
pub fn parse_batch_file_with(path: &Path, options: &BatchOptions) -> Result<BatchParse, BatchReadError> {
    let with_path = |source| BatchReadError {
        path: Some(path.to_path_buf()),
        source,
    };
    let format = BatchFormat::of_path(path);
    if format != BatchFormat::Csv && format != BatchFormat::Tsv && options.output_key_pattern.is_some() {
        return Err(with_path(invalid(
            "an output key pattern applies to CSV and TSV batches: each JSON entry names its own outputKey".into(),
        )));
    }
    let file = File::open(path).map_err(with_path)?;
    // The packed text is at most the file's size: sized once, it is never copied while growing.
    let size = file.metadata().map_or(0, |m| m.len() as usize);
    let reader = BufReader::with_capacity(1 << 20, file);
    let parsed = match format {
        BatchFormat::Jsonl => parse_lines(reader, size),
        BatchFormat::JsonArray => parse_json_array(reader, size),
        BatchFormat::Csv => parse_table(reader, TableKind::Csv, options, size),
        BatchFormat::Tsv => parse_table(reader, TableKind::Tsv, options, size),
    };
    parsed.map_err(|e| with_path(e.source))
}

/// Parses JSONL from any buffered reader. Only I/O failures are errors; bad lines are collected.
pub fn parse_batch_reader<R: BufRead>(reader: R) -> Result<BatchParse, BatchReadError> {
    parse_lines(reader, 0)
}

/// A file-level failure: the batch cannot be read as its format at all.
pub(crate) fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Collects entries into a [`BatchParse`], claiming each outputKey for the first line that names it.
pub(crate) struct Entries {
    parse: BatchParse,
    /// outputKey -> line of its first occurrence, to name it in duplicate errors.
    first_seen: HashMap<String, u32>,
}

impl Entries {
    pub(crate) fn with_capacity(text_capacity: usize) -> Entries {
        Entries {
            parse: BatchParse {
                text: String::with_capacity(text_capacity),
                ..BatchParse::default()
            },
            first_seen: HashMap::new(),
        }
    }

    /// A key is claimed by the first line that names it, even if that line is otherwise bad:
    /// two lines with one outputKey would write the same output, whichever of them is valid.
    pub(crate) fn claim(&mut self, line: u32, output_key: &str) -> Result<(), BatchLineError> {
        if let Some(&first) = self.first_seen.get(output_key) {
            return Err(BatchLineError {
                line,
                output_key: Some(output_key.to_owned()),
                reason: format!("duplicate outputKey \"{output_key}\": already used on line {first}"),
            });
        }
        self.first_seen.insert(output_key.to_owned(), line);
        Ok(())
    }

    pub(crate) fn push(&mut self, line: u32, output_key: &str, variables_json: &str) -> Result<(), BatchReadError> {
        let text = &mut self.parse.text;
        let start = text.len();
        text.push_str(output_key);
        let mid = text.len();
        text.push_str(variables_json);
        self.parse.spans.push(EntrySpan {
            line,
            start: offset(start)?,
            mid: offset(mid)?,
            end: offset(text.len())?,
        });
        Ok(())
    }

    pub(crate) fn fail(&mut self, error: BatchLineError) {
        self.parse.errors.push(error);
    }

    pub(crate) fn finish(self) -> BatchParse {
        self.parse
    }
}

fn parse_lines<R: BufRead>(mut reader: R, text_capacity: usize) -> Result<BatchParse, BatchReadError> {
    let mut entries = Entries::with_capacity(text_capacity);
    let mut buf = Vec::new();
    let mut line: u32 = 0;
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|source| BatchReadError { path: None, source })?;
        if read == 0 {
            break;
        }
        line += 1;
        let bytes = match buf.strip_prefix(UTF8_BOM) {
            Some(rest) if line == 1 => rest,
            _ => &buf[..],
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        entry_of(bytes, line, &mut entries)?;
    }
    Ok(entries.finish())
}

/// One JSON entry (a JSONL line, an element of a JSON array) into `entries`, or its line's error.
fn entry_of(bytes: &[u8], line: u32, entries: &mut Entries) -> Result<(), BatchReadError> {
    match parse_line(bytes, line, entries) {
        Ok((output_key, variables_json)) => entries.push(line, &output_key, variables_json),
        Err(error) => {
            entries.fail(error);
            Ok(())
        }
    }
}

/// A JSON array of entries, read whole (an array has no line-sized pieces to stream). An entry's
/// line is the physical line its object starts on. Text that is not one JSON array is a file error.
fn parse_json_array<R: Read>(mut reader: R, size: usize) -> Result<BatchParse, BatchReadError> {
    let read_error = |source| BatchReadError { path: None, source };
    let mut text = String::with_capacity(size);
    reader.read_to_string(&mut text).map_err(read_error)?;
    let body = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let elements: Vec<&RawValue> = serde_json::from_str(body).map_err(|e| {
        read_error(invalid(format!(
            "not a JSON array of {{\"outputKey\", \"variables\"}} entries: {e}"
        )))
    })?;
    let mut entries = Entries::with_capacity(size);
    let (mut line, mut counted) = (1u32, 0usize);
    for element in elements {
        // The element is a slice of `body`: its offset tells the line it starts on.
        let at = element.get().as_ptr() as usize - body.as_ptr() as usize;
        line += body.as_bytes()[counted..at].iter().filter(|&&b| b == b'\n').count() as u32;
        counted = at;
        entry_of(element.get().as_bytes(), line, &mut entries)?;
    }
    Ok(entries.finish())
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Spans are u32 to halve their size; a batch over 4 GiB of keys and variables is refused.
fn offset(n: usize) -> Result<u32, BatchReadError> {
    u32::try_from(n).map_err(|_| BatchReadError {
        path: None,
        source: io::Error::new(
            io::ErrorKind::InvalidData,
            "batch file too large: over 4 GiB of entries",
        ),
    })
}

/// The JSON Schema (draft 2020-12) of one JSONL line, or one element of a JSON array batch: what
/// [`parse_line`] and [`check_output_key`] accept, published as
/// docs/reference/schemas/batch-line.schema.json. Two rules a schema cannot state are in the
/// descriptions: the key's limit is counted in UTF-8 bytes, and no two lines may share a key.
pub const BATCH_LINE_SCHEMA: &str = r#"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "vidkit batch line",
  "description": "One render of a batch: one line of a JSONL file, or one element of a JSON array. Fields other than these two are ignored. Each line is checked on its own: a bad line is reported with its number and the others render.",
  "type": "object",
  "required": ["outputKey", "variables"],
  "properties": {
    "outputKey": {
      "description": "Where this render's output goes: an object key in the render bucket, or a path under the output folder locally. One line, relative, no '..' segment, no URL scheme, at most 1024 bytes of UTF-8, and not used by another line of the batch.",
      "type": "string",
      "minLength": 1,
      "not": {
        "anyOf": [
          { "pattern": "[\\u0000\\n\\r]" },
          { "pattern": "^[A-Za-z][A-Za-z0-9+.-]*:" },
          { "pattern": "^/" },
          { "pattern": "(^|/)\\.\\.(/|$)" }
        ]
      }
    },
    "variables": {
      "description": "The composition's variable values for this render, {} for none; checked against the composition's declarations when the batch runs.",
      "type": "object"
    }
  }
}"#;

/// The two fields a line must have, borrowed unparsed; any other field is ignored. `None` is a
/// missing field; a `null` one is present (and refused for its type).
#[derive(Deserialize)]
struct RawLine<'a> {
    #[serde(rename = "outputKey", borrow, default, deserialize_with = "present")]
    output_key: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    variables: Option<&'a RawValue>,
}

fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

fn parse_line<'a>(bytes: &'a [u8], line: u32, entries: &mut Entries) -> Result<(String, &'a str), BatchLineError> {
    let fail = |output_key: Option<&str>, reason: String| BatchLineError {
        line,
        output_key: output_key.map(str::to_owned),
        reason,
    };

    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        // Not an object: parse it whole only to say what it is.
        let value: Value = serde_json::from_slice(bytes).map_err(|e| fail(None, format!("invalid JSON: {e}")))?;
        return Err(fail(
            None,
            format!(
                "expected a JSON object {{\"outputKey\": ..., \"variables\": {{...}}}}, got {}",
                kind(&value)
            ),
        ));
    }
    let raw: RawLine<'a> = serde_json::from_slice(bytes).map_err(|e| fail(None, format!("invalid JSON: {e}")))?;
    let output_key = output_key(raw.output_key).map_err(|reason| fail(None, reason))?;
    entries.claim(line, &output_key)?;

    match raw.variables {
        None => Err(fail(
            Some(&output_key),
            "missing \"variables\": add an object of variable values, {} for none".into(),
        )),
        Some(variables) if variables.get().starts_with('{') => Ok((output_key, variables.get())),
        Some(other) => Err(fail(
            Some(&output_key),
            format!("\"variables\" must be an object, got {}", raw_kind(other)),
        )),
    }
}

fn output_key(raw: Option<&RawValue>) -> Result<String, String> {
    let Some(raw) = raw else {
        return Err("missing \"outputKey\": add a non-empty string naming this render's output".into());
    };
    if !raw.get().starts_with('"') {
        return Err(format!(
            "\"outputKey\" must be a non-empty string, got {}",
            raw_kind(raw)
        ));
    }
    // A RawValue is valid JSON, so a string in it always decodes.
    let key: String = serde_json::from_str(raw.get()).expect("a raw JSON string decodes");
    if key.is_empty() {
        return Err("\"outputKey\" is empty: give a non-empty string naming this render's output".into());
    }
    check_output_key(&key)?;
    Ok(key)
}

/// The longest object key S3 stores, in UTF-8 bytes.
const MAX_OUTPUT_KEY_BYTES: usize = 1024;

/// An outputKey names an object inside the render bucket (or, rendered locally, a file under the
/// output folder): one line, relative, no `..` segment and no URL scheme, so it can never name a
/// place outside, and at most [`MAX_OUTPUT_KEY_BYTES`] bytes. The error says which rule it broke.
pub(crate) fn check_output_key(key: &str) -> Result<(), String> {
    match broken_key_rule(key) {
        Some(rule) => Err(format!("\"outputKey\" {} {rule}", shown_key(key))),
        None => Ok(()),
    }
}

/// The rule a key breaks, as the end of a sentence about it; `None` for a good key (no allocation).
fn broken_key_rule(key: &str) -> Option<String> {
    if key.contains('\0') {
        return Some("contains a NUL character: remove it".into());
    }
    if key.contains(['\n', '\r']) {
        return Some("contains a line break (\\n or \\r): an object key is one line".into());
    }
    if let Some(scheme) = url_scheme(key) {
        return Some(format!(
            "starts with a URL scheme ({scheme}:): give a key inside the render bucket, such as renders/name.mp4"
        ));
    }
    if key.starts_with('/') {
        return Some("starts with \"/\": give a relative key, such as renders/name.mp4".into());
    }
    if key.split('/').any(|segment| segment == "..") {
        return Some("has a \"..\" path segment: name the object without climbing out of a folder".into());
    }
    if key.len() > MAX_OUTPUT_KEY_BYTES {
        return Some(format!(
            "is {} bytes of UTF-8, over the {MAX_OUTPUT_KEY_BYTES}-byte limit of an object key: shorten it",
            key.len()
        ));
    }
    None
}

/// The scheme of a key that begins like a URL (`s3://…`, `https:…`, `file:…`): RFC 3986's
/// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` followed by `:`, before any `/`.
fn url_scheme(key: &str) -> Option<&str> {
    let (scheme, _) = key.split_once(':')?;
    let mut chars = scheme.chars();
    let starts_with_letter = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    (starts_with_letter && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))).then_some(scheme)
}

/// The key as a JSON string, so control characters show as escapes; a long one is cut short.
fn shown_key(key: &str) -> String {
    const SHOWN_CHARS: usize = 60;
    match key.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", serde_json::Value::from(&key[..cut])),
        None => serde_json::Value::from(key).to_string(),
    }
}

/// What kind of JSON value a raw value is, from its first character (it is valid JSON).
fn raw_kind(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes()[0] {
        b'n' => "null",
        b't' | b'f' => "a boolean",
        b'"' => "a string",
        b'[' => "an array",
        b'{' => "an object",
        _ => "a number",
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn parse(text: &str) -> BatchParse {
        parse_batch_reader(Cursor::new(text.as_bytes())).expect("in-memory reads cannot fail")
    }

    fn only_error(text: &str) -> BatchLineError {
        let parsed = parse(text);
        assert!(parsed.spans.is_empty(), "{parsed:?}");
        assert_eq!(parsed.errors.len(), 1, "{parsed:?}");
        parsed.errors.into_iter().next().unwrap()
    }

    #[test]
    fn the_batch_line_schema_is_json_naming_both_fields_as_required() {
        let schema: Value = serde_json::from_str(BATCH_LINE_SCHEMA).expect("the schema is JSON");
        assert_eq!(schema["required"], serde_json::json!(["outputKey", "variables"]));
        assert_eq!(schema["properties"]["variables"]["type"], "object");
    }

    #[test]
    fn valid_lines_become_entries_with_their_variables_text_in_file_order() {
        let parsed = parse(concat!(
            "{\"outputKey\": \"a.mp4\", \"variables\": { \"title\": \"Hi\", \"n\": 3, \"nested\": {\"z\": 1, \"a\": [1, 2]} }}\n",
            "{\"variables\": {}, \"outputKey\": \"b.mp4\"}\n",
        ));
        assert!(parsed.errors.is_empty());
        assert_eq!(
            parsed.entries().collect::<Vec<_>>(),
            vec![
                BatchEntry {
                    line: 1,
                    output_key: "a.mp4",
                    variables_json: r#"{ "title": "Hi", "n": 3, "nested": {"z": 1, "a": [1, 2]} }"#
                },
                BatchEntry {
                    line: 2,
                    output_key: "b.mp4",
                    variables_json: "{}"
                },
            ]
        );
    }

    #[test]
    fn blank_lines_are_skipped_but_counted() {
        let parsed =
            parse("\n   \t\n{\"outputKey\":\"a\",\"variables\":{}}\r\n\r\n{\"outputKey\":\"b\",\"variables\":{}}");
        assert!(parsed.errors.is_empty());
        let lines: Vec<u32> = parsed.spans.iter().map(|e| e.line).collect();
        assert_eq!(lines, vec![3, 5]);
    }

    #[test]
    fn empty_input_has_no_entries_and_no_errors() {
        assert_eq!(parse(""), BatchParse::default());
    }

    #[test]
    fn invalid_json_includes_serde_message() {
        let error = only_error("{\"outputKey\": \"a\", \"variables\": {}\n");
        assert_eq!(error.line, 1);
        assert_eq!(error.output_key, None);
        assert!(
            error.reason.starts_with("invalid JSON: EOF while parsing an object"),
            "{}",
            error.reason
        );
    }

    #[test]
    fn invalid_utf8_is_a_json_error() {
        let parsed =
            parse_batch_reader(Cursor::new(b"{\"outputKey\": \"\xff\", \"variables\": {}}\n".to_vec())).unwrap();
        assert_eq!(parsed.errors.len(), 1);
        assert!(
            parsed.errors[0].reason.starts_with("invalid JSON:"),
            "{}",
            parsed.errors[0].reason
        );
    }

    #[test]
    fn non_object_line_is_refused() {
        let error = only_error("[1, 2]");
        assert_eq!(
            error.reason,
            "expected a JSON object {\"outputKey\": ..., \"variables\": {...}}, got an array"
        );
        assert_eq!(only_error("\"text\"").reason.rsplit("got ").next(), Some("a string"));
    }

    #[test]
    fn missing_output_key_is_refused() {
        let error = only_error("{\"variables\": {}}");
        assert!(error.reason.starts_with("missing \"outputKey\""), "{}", error.reason);
        assert_eq!(error.output_key, None);
    }

    #[test]
    fn non_string_or_empty_output_key_is_refused() {
        assert_eq!(
            only_error("{\"outputKey\": 7, \"variables\": {}}").reason,
            "\"outputKey\" must be a non-empty string, got a number"
        );
        assert_eq!(
            only_error("{\"outputKey\": null, \"variables\": {}}").reason,
            "\"outputKey\" must be a non-empty string, got null"
        );
        assert!(only_error("{\"outputKey\": \"\", \"variables\": {}}")
            .reason
            .starts_with("\"outputKey\" is empty"));
    }

    #[test]
    fn missing_variables_is_refused_with_the_output_key() {
        let error = only_error("{\"outputKey\": \"a.mp4\"}");
        assert!(error.reason.starts_with("missing \"variables\""), "{}", error.reason);
        assert_eq!(error.output_key.as_deref(), Some("a.mp4"));
    }

    #[test]
    fn non_object_variables_is_refused() {
        let error = only_error("{\"outputKey\": \"a.mp4\", \"variables\": [1]}");
        assert_eq!(error.reason, "\"variables\" must be an object, got an array");
        assert_eq!(error.output_key.as_deref(), Some("a.mp4"));
    }

    #[test]
    fn duplicate_output_key_names_the_first_line() {
        let parsed = parse(concat!(
            "{\"outputKey\": \"a\", \"variables\": {}}\n",
            "\n",
            "{\"outputKey\": \"b\", \"variables\": {}}\n",
            "{\"outputKey\": \"a\", \"variables\": {\"x\": 1}}\n",
        ));
        assert_eq!(parsed.spans.iter().map(|e| e.line).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(
            parsed.errors,
            vec![BatchLineError {
                line: 4,
                output_key: Some("a".into()),
                reason: "duplicate outputKey \"a\": already used on line 1".into()
            }]
        );
    }

    #[test]
    fn a_bad_line_claims_its_output_key() {
        let parsed = parse("{\"outputKey\": \"a\"}\n{\"outputKey\": \"a\", \"variables\": {}}\n");
        assert!(parsed.spans.is_empty());
        assert_eq!(parsed.errors.len(), 2);
        assert_eq!(
            parsed.errors[1].reason,
            "duplicate outputKey \"a\": already used on line 1"
        );
    }

    #[test]
    fn errors_never_stop_other_lines() {
        let parsed = parse(concat!(
            "not json\n",
            "{\"outputKey\": \"ok1\", \"variables\": {}}\n",
            "42\n",
            "{\"outputKey\": \"ok2\", \"variables\": {\"a\": true}}\n",
            "{\"outputKey\": \"\", \"variables\": {}}\n",
        ));
        assert_eq!(
            parsed.entries().map(|e| e.output_key).collect::<Vec<_>>(),
            vec!["ok1", "ok2"]
        );
        assert_eq!(parsed.errors.iter().map(|e| e.line).collect::<Vec<_>>(), vec![1, 3, 5]);
    }

    #[test]
    fn a_utf8_bom_before_the_first_line_is_skipped() {
        let parsed = parse(
            "\u{feff}{\"outputKey\": \"a.mp4\", \"variables\": {}}\n{\"outputKey\": \"b.mp4\", \"variables\": {}}\n",
        );
        assert!(parsed.errors.is_empty(), "{parsed:?}");
        assert_eq!(
            parsed.entries().map(|e| (e.line, e.output_key)).collect::<Vec<_>>(),
            vec![(1, "a.mp4"), (2, "b.mp4")]
        );
        // A BOM alone on the first line leaves a blank line; one anywhere else is not skipped.
        let parsed = parse("\u{feff}\r\n{\"outputKey\": \"a\", \"variables\": {}}\n\u{feff}{\"outputKey\": \"b\", \"variables\": {}}\n");
        assert_eq!(parsed.spans.iter().map(|e| e.line).collect::<Vec<_>>(), vec![2]);
        assert_eq!(parsed.errors.iter().map(|e| e.line).collect::<Vec<_>>(), vec![3]);
    }

    fn key_error(key: &str) -> BatchLineError {
        let line = serde_json::json!({"outputKey": key, "variables": {}}).to_string();
        only_error(&line)
    }

    #[test]
    fn an_output_key_with_a_dot_dot_segment_is_refused() {
        for key in ["../up.mp4", "renders/../../etc/x.mp4", "renders/.."] {
            let error = key_error(key);
            assert_eq!(
                error.reason,
                format!(
                    "\"outputKey\" {key:?} has a \"..\" path segment: name the object without climbing out of a folder"
                )
            );
            assert_eq!(error.output_key, None, "a refused key is not the row's outputKey");
        }
        // Dots inside a segment are a name, not a climb.
        assert!(parse("{\"outputKey\": \"a..b/..c/d...mp4\", \"variables\": {}}")
            .errors
            .is_empty());
    }

    #[test]
    fn an_output_key_with_a_nul_is_refused() {
        assert_eq!(
            key_error("a\0b.mp4").reason,
            "\"outputKey\" \"a\\u0000b.mp4\" contains a NUL character: remove it"
        );
    }

    #[test]
    fn an_output_key_with_a_line_break_is_refused() {
        for (key, shown) in [
            ("a\nb.mp4", "a\\nb.mp4"),
            ("a\rb.mp4", "a\\rb.mp4"),
            ("a.mp4\r\n", "a.mp4\\r\\n"),
        ] {
            assert_eq!(
                key_error(key).reason,
                format!("\"outputKey\" \"{shown}\" contains a line break (\\n or \\r): an object key is one line")
            );
        }
    }

    #[test]
    fn an_output_key_with_a_url_scheme_is_refused() {
        for (key, scheme) in [
            ("s3://bucket/a.mp4", "s3"),
            ("https://example.com/a.mp4", "https"),
            ("https:a.mp4", "https"),
            ("file:///tmp/a.mp4", "file"),
            ("C:\\out\\a.mp4", "C"),
            ("git+ssh://h/a.mp4", "git+ssh"),
        ] {
            assert_eq!(
                key_error(key).reason,
                format!("\"outputKey\" {key:?} starts with a URL scheme ({scheme}:): give a key inside the render bucket, such as renders/name.mp4")
            );
        }
        // A colon after a folder, or after something that cannot be a scheme, is part of a name.
        let parsed = parse(concat!(
            "{\"outputKey\": \"renders/10:30.mp4\", \"variables\": {}}\n",
            "{\"outputKey\": \"2024-01-01T10:30.mp4\", \"variables\": {}}\n",
        ));
        assert!(parsed.errors.is_empty(), "{parsed:?}");
    }

    #[test]
    fn an_output_key_with_a_leading_slash_is_refused() {
        assert_eq!(
            key_error("/renders/a.mp4").reason,
            "\"outputKey\" \"/renders/a.mp4\" starts with \"/\": give a relative key, such as renders/name.mp4"
        );
    }

    #[test]
    fn an_output_key_over_1024_bytes_of_utf8_is_refused() {
        // The limit is 1024 bytes of UTF-8, not 1024 characters.
        let at_limit = format!("{}.mp4", "€".repeat(340));
        assert_eq!((at_limit.len(), at_limit.chars().count()), (1024, 344));
        assert!(
            parse(&serde_json::json!({"outputKey": at_limit, "variables": {}}).to_string())
                .errors
                .is_empty()
        );
        let over = format!("x{at_limit}");
        let error = key_error(&over);
        assert_eq!(
            error.reason,
            format!(
                "\"outputKey\" \"x{}\"… is 1025 bytes of UTF-8, over the 1024-byte limit of an object key: shorten it",
                "€".repeat(59)
            )
        );
    }

    #[test]
    fn bad_output_keys_fail_their_line_only() {
        let parsed = parse(concat!(
            "{\"outputKey\": \"ok1.mp4\", \"variables\": {}}\n",
            "{\"outputKey\": \"s3://b/x.mp4\", \"variables\": {}}\n",
            "{\"outputKey\": \"../x.mp4\", \"variables\": {}}\n",
            "{\"outputKey\": \"ok2.mp4\", \"variables\": {}}\n",
        ));
        assert_eq!(
            parsed.entries().map(|e| (e.line, e.output_key)).collect::<Vec<_>>(),
            vec![(1, "ok1.mp4"), (4, "ok2.mp4")]
        );
        assert_eq!(parsed.errors.iter().map(|e| e.line).collect::<Vec<_>>(), vec![2, 3]);
    }

    #[test]
    fn parses_one_hundred_thousand_lines() {
        let mut text = String::new();
        for i in 0..100_000 {
            text.push_str(&format!(
                "{{\"outputKey\":\"out/{i}.mp4\",\"variables\":{{\"title\":\"Video {i}\",\"n\":{i}}}}}\n"
            ));
        }
        let parsed = parse(&text);
        assert!(parsed.errors.is_empty());
        assert_eq!(parsed.spans.len(), 100_000);
        let last = parsed.entry(&parsed.spans[99_999]);
        assert_eq!(last.line, 100_000);
        assert_eq!(last.variables_json, r#"{"title":"Video 99999","n":99999}"#);
    }

    #[test]
    fn a_json_array_gives_entries_named_by_the_line_each_starts_on() {
        let text = "\u{feff}[\n  {\"outputKey\": \"a.mp4\", \"variables\": {\"n\": 1}},\n\n  {\"outputKey\": \"a.mp4\",\n   \"variables\": {}},\n  {\"outputKey\": \"b.mp4\", \"variables\": []}, {\"outputKey\": \"c.mp4\", \"variables\": {}}\n]\n";
        let parsed = parse_json_array(Cursor::new(text.as_bytes()), 0).unwrap();
        assert_eq!(
            parsed
                .entries()
                .map(|e| (e.line, e.output_key, e.variables_json))
                .collect::<Vec<_>>(),
            vec![(2, "a.mp4", "{\"n\": 1}"), (6, "c.mp4", "{}")]
        );
        assert_eq!(
            parsed
                .errors
                .iter()
                .map(|e| (e.line, e.reason.as_str()))
                .collect::<Vec<_>>(),
            vec![
                (4, "duplicate outputKey \"a.mp4\": already used on line 2"),
                (6, "\"variables\" must be an object, got an array")
            ]
        );
        let message = parse_json_array(Cursor::new(b"{\"outputKey\": \"a\"}".to_vec()), 0)
            .unwrap_err()
            .source
            .to_string();
        assert!(
            message.starts_with("not a JSON array of {\"outputKey\", \"variables\"} entries: invalid type: map"),
            "{message}"
        );
    }

    #[test]
    fn the_format_comes_from_the_name_and_a_pattern_only_fits_tables() {
        let of = |name: &str| BatchFormat::of_path(Path::new(name));
        assert_eq!(
            [
                of("a.CSV"),
                of("a.tsv"),
                of("a.tab"),
                of("a.json"),
                of("a.jsonl"),
                of("a")
            ],
            [
                BatchFormat::Csv,
                BatchFormat::Tsv,
                BatchFormat::Tsv,
                BatchFormat::JsonArray,
                BatchFormat::Jsonl,
                BatchFormat::Jsonl
            ]
        );
        let options = BatchOptions {
            output_key_pattern: Some("r/{id}.mp4".into()),
            ..BatchOptions::default()
        };
        let message = parse_batch_file_with(Path::new("rows.jsonl"), &options)
            .unwrap_err()
            .to_string();
        assert_eq!(message, "cannot read batch file rows.jsonl: an output key pattern applies to CSV and TSV batches: each JSON entry names its own outputKey");
    }

    #[test]
    fn parse_batch_file_reads_a_file_and_names_a_missing_one() {
        let dir = std::env::temp_dir().join(format!("vidkit-core-batch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("batch.jsonl");
        std::fs::write(&path, "{\"outputKey\": \"a\", \"variables\": {}}\n").unwrap();
        assert_eq!(parse_batch_file(&path).unwrap().spans.len(), 1);

        let missing = dir.join("missing.jsonl");
        let message = parse_batch_file(&missing).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("cannot read batch file {}:", missing.display())),
            "{message}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
