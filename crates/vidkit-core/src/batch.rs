//! Streaming parser for batch render files: one JSON object per line,
//! `{"outputKey": "<non-empty string>", "variables": { ... }}`.
//!
//! The file is read one physical line at a time into a reused buffer, so memory is bounded by the
//! longest line, not the file. A bad line is reported and never stops the others.

use std::collections::HashMap;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// A line that can be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchEntry {
    /// 1-based physical line number (blank lines count).
    pub line: u32,
    pub output_key: String,
    /// The `variables` object re-serialised compactly, keys in the order the file gave them.
    pub variables_json: String,
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
    pub entries: Vec<BatchEntry>,
    pub errors: Vec<BatchLineError>,
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

/// Opens and parses a JSONL batch file.
pub fn parse_batch_file(path: &Path) -> Result<BatchParse, BatchReadError> {
    let with_path = |source| BatchReadError {
        path: Some(path.to_path_buf()),
        source,
    };
    let file = File::open(path).map_err(with_path)?;
    parse_batch_reader(BufReader::new(file)).map_err(|e| with_path(e.source))
}

/// Parses JSONL from any buffered reader. Only I/O failures are errors; bad lines are collected.
pub fn parse_batch_reader<R: BufRead>(mut reader: R) -> Result<BatchParse, BatchReadError> {
    let mut parse = BatchParse::default();
    // outputKey -> line of its first occurrence, to name it in duplicate errors.
    let mut first_seen: HashMap<String, u32> = HashMap::new();
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
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse_line(&buf, line, &mut first_seen) {
            Ok(entry) => parse.entries.push(entry),
            Err(error) => parse.errors.push(error),
        }
    }
    Ok(parse)
}

fn parse_line(bytes: &[u8], line: u32, first_seen: &mut HashMap<String, u32>) -> Result<BatchEntry, BatchLineError> {
    let fail = |output_key: Option<&str>, reason: String| BatchLineError {
        line,
        output_key: output_key.map(str::to_owned),
        reason,
    };

    let value: Value = serde_json::from_slice(bytes).map_err(|e| fail(None, format!("invalid JSON: {e}")))?;
    let Value::Object(mut object) = value else {
        return Err(fail(
            None,
            format!(
                "expected a JSON object {{\"outputKey\": ..., \"variables\": {{...}}}}, got {}",
                kind(&value)
            ),
        ));
    };
    let output_key = take_output_key(&mut object).map_err(|reason| fail(None, reason))?;

    // A key is claimed by the first line that names it, even if that line is otherwise bad:
    // two lines with one outputKey would write the same output, whichever of them is valid.
    if let Some(&first) = first_seen.get(&output_key) {
        return Err(fail(
            Some(&output_key),
            format!("duplicate outputKey \"{output_key}\": already used on line {first}"),
        ));
    }
    first_seen.insert(output_key.clone(), line);

    let variables = match object.remove("variables") {
        None => {
            return Err(fail(
                Some(&output_key),
                "missing \"variables\": add an object of variable values, {} for none".into(),
            ))
        }
        Some(Value::Object(variables)) => variables,
        Some(other) => {
            return Err(fail(
                Some(&output_key),
                format!("\"variables\" must be an object, got {}", kind(&other)),
            ))
        }
    };
    // Serialising a Map of Values cannot fail: keys are strings and numbers are finite.
    let variables_json = serde_json::to_string(&variables).expect("a JSON object always serialises");
    Ok(BatchEntry {
        line,
        output_key,
        variables_json,
    })
}

fn take_output_key(object: &mut Map<String, Value>) -> Result<String, String> {
    match object.remove("outputKey") {
        None => Err("missing \"outputKey\": add a non-empty string naming this render's output".into()),
        Some(Value::String(key)) if key.is_empty() => {
            Err("\"outputKey\" is empty: give a non-empty string naming this render's output".into())
        }
        Some(Value::String(key)) => Ok(key),
        Some(other) => Err(format!(
            "\"outputKey\" must be a non-empty string, got {}",
            kind(&other)
        )),
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
        assert!(parsed.entries.is_empty(), "{parsed:?}");
        assert_eq!(parsed.errors.len(), 1, "{parsed:?}");
        parsed.errors.into_iter().next().unwrap()
    }

    #[test]
    fn valid_lines_become_entries_with_compact_variables_in_file_order() {
        let parsed = parse(concat!(
            "{\"outputKey\": \"a.mp4\", \"variables\": { \"title\": \"Hi\", \"n\": 3, \"nested\": {\"z\": 1, \"a\": [1, 2]} }}\n",
            "{\"variables\": {}, \"outputKey\": \"b.mp4\"}\n",
        ));
        assert!(parsed.errors.is_empty());
        assert_eq!(
            parsed.entries,
            vec![
                BatchEntry {
                    line: 1,
                    output_key: "a.mp4".into(),
                    variables_json: r#"{"title":"Hi","n":3,"nested":{"z":1,"a":[1,2]}}"#.into()
                },
                BatchEntry {
                    line: 2,
                    output_key: "b.mp4".into(),
                    variables_json: "{}".into()
                },
            ]
        );
    }

    #[test]
    fn blank_lines_are_skipped_but_counted() {
        let parsed =
            parse("\n   \t\n{\"outputKey\":\"a\",\"variables\":{}}\r\n\r\n{\"outputKey\":\"b\",\"variables\":{}}");
        assert!(parsed.errors.is_empty());
        let lines: Vec<u32> = parsed.entries.iter().map(|e| e.line).collect();
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
        assert_eq!(parsed.entries.iter().map(|e| e.line).collect::<Vec<_>>(), vec![1, 3]);
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
        assert!(parsed.entries.is_empty());
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
            parsed.entries.iter().map(|e| e.output_key.as_str()).collect::<Vec<_>>(),
            vec!["ok1", "ok2"]
        );
        assert_eq!(parsed.errors.iter().map(|e| e.line).collect::<Vec<_>>(), vec![1, 3, 5]);
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
        assert_eq!(parsed.entries.len(), 100_000);
        assert_eq!(parsed.entries[99_999].line, 100_000);
        assert_eq!(
            parsed.entries[99_999].variables_json,
            r#"{"title":"Video 99999","n":99999}"#
        );
    }

    #[test]
    fn parse_batch_file_reads_a_file_and_names_a_missing_one() {
        let dir = std::env::temp_dir().join(format!("vidkit-core-batch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("batch.jsonl");
        std::fs::write(&path, "{\"outputKey\": \"a\", \"variables\": {}}\n").unwrap();
        assert_eq!(parse_batch_file(&path).unwrap().entries.len(), 1);

        let missing = dir.join("missing.jsonl");
        let message = parse_batch_file(&missing).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("cannot read batch file {}:", missing.display())),
            "{message}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
