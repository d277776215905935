//! CSV and TSV batch files: a header row names the variables, each further record is one render.
//! Records are read with the `csv` crate (quoted fields may hold the delimiter, quotes and line
//! breaks). A cell becomes a typed JSON value by its variable's declared type, so a spreadsheet's
//! text reaches the page as the number, boolean, colour or enum value the composition declares;
//! an empty cell leaves the variable at its default. A row's outputKey is its `outputKey` column,
//! or an output key pattern filled from its cells; either way the JSONL rules apply to the key.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Read};
use std::rc::Rc;

use serde_json::{Map, Number, Value};

use crate::batch::{
    check_output_key, invalid, BatchLineError, BatchOptions, BatchParse, BatchReadError, Entries, VariableDecl,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableKind {
    Csv,
    Tsv,
}

const OUTPUT_KEY_COLUMN: &str = "outputKey";

/// Reads a whole table into entries. A header that cannot name the variables (none, a repeated
/// column, no way to name outputs) is a file error; a bad row is that row's error only.
pub(crate) fn parse_table<R: Read>(
    reader: R,
    kind: TableKind,
    options: &BatchOptions,
    size: usize,
) -> Result<BatchParse, BatchReadError> {
    let read_error = |source| BatchReadError { path: None, source };
    let (reader, mut lines) = LineCounter::wrap(reader);
    let mut records = csv::ReaderBuilder::new()
        .delimiter(if kind == TableKind::Tsv { b'\t' } else { b',' })
        .has_headers(false)
        .flexible(true)
        .from_reader(reader);
    let mut header = csv::StringRecord::new();
    if !records.read_record(&mut header).map_err(|e| read_error(csv_error(e)))? {
        return Ok(BatchParse::default());
    }
    let columns = header_columns(&header).map_err(read_error)?;
    let output_key = OutputKeySource::of(&columns, options.output_key_pattern.as_deref()).map_err(read_error)?;
    let types: Vec<Option<&VariableDecl>> = columns
        .iter()
        .map(|c| options.declarations.iter().find(|d| &d.id == c))
        .collect();

    let mut entries = Entries::with_capacity(size);
    let mut record = csv::StringRecord::new();
    loop {
        match records.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                // A record the reader cannot decode (invalid UTF-8) fails alone; the reader goes on after it.
                let line = e.position().map_or(0, |p| lines.line_at(p.byte()));
                if matches!(e.kind(), csv::ErrorKind::Utf8 { .. }) {
                    entries.fail(BatchLineError {
                        line,
                        output_key: None,
                        reason: format!("not UTF-8 text: {e}"),
                    });
                    continue;
                }
                return Err(read_error(csv_error(e)));
            }
        }
        let line = record.position().map_or(0, |p| lines.line_at(p.byte()));
        if record.iter().all(|cell| cell.trim().is_empty()) {
            continue;
        }
        match row_entry(&record, line, &columns, &types, &output_key, &mut entries) {
            Ok((key, variables)) => entries.push(line, &key, &variables)?,
            Err(error) => entries.fail(error),
        }
    }
    Ok(entries.finish())
}

/// Notes where each `\n` of the stream is as the table reader reads it, and whether it ends a blank
/// line, so a record is named by the physical line it starts on, as an editor shows it (the
/// reader's own line count leaves out line breaks inside quoted fields, and counts `\r\n` files
/// differently; the position it gives a record is before the blank lines it skipped).
struct LineCounter<R> {
    inner: R,
    read: u64,
    /// No byte but `\r` since the last `\n`.
    blank: bool,
    breaks: Rc<RefCell<VecDeque<(u64, bool)>>>,
}

/// The other end of a [`LineCounter`]: turns byte offsets, asked in increasing order, into lines.
struct Lines {
    breaks: Rc<RefCell<VecDeque<(u64, bool)>>>,
    line: u32,
    /// Where the current line starts.
    line_start: u64,
}

impl<R: Read> LineCounter<R> {
    fn wrap(inner: R) -> (LineCounter<R>, Lines) {
        let breaks = Rc::new(RefCell::new(VecDeque::new()));
        (
            LineCounter {
                inner,
                read: 0,
                blank: true,
                breaks: breaks.clone(),
            },
            Lines {
                breaks,
                line: 1,
                line_start: 0,
            },
        )
    }
}

impl<R: Read> Read for LineCounter<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut breaks = self.breaks.borrow_mut();
        for (i, &b) in buf[..n].iter().enumerate() {
            if b == b'\n' {
                breaks.push_back((self.read + i as u64, self.blank));
                self.blank = true;
            } else if b != b'\r' {
                self.blank = false;
            }
        }
        self.read += n as u64;
        Ok(n)
    }
}

impl Lines {
    /// The 1-based line of the first byte of a record that the reader placed at `offset` (blank
    /// lines there are skipped); offsets must not decrease between calls.
    fn line_at(&mut self, mut offset: u64) -> u32 {
        let mut breaks = self.breaks.borrow_mut();
        while let Some(&(at, blank)) = breaks.front() {
            if at >= offset {
                // The reader may place a record at the `\n` of the line before's `\r\n`, or at
                // blank lines it skipped: the record starts after them.
                if !(at == offset || (blank && self.line_start == offset)) {
                    break;
                }
                offset = at + 1;
            }
            breaks.pop_front();
            self.line += 1;
            self.line_start = at + 1;
        }
        self.line
    }
}

fn csv_error(e: csv::Error) -> io::Error {
    invalid(format!("not a readable table: {e}"))
}

/// The header's column names, trimmed; a blank or repeated name is a file error.
fn header_columns(header: &csv::StringRecord) -> Result<Vec<String>, io::Error> {
    let mut columns: Vec<String> = Vec::with_capacity(header.len());
    for (index, name) in header.iter().enumerate() {
        // The reader keeps a UTF-8 byte order mark as part of the first name.
        let name = name.trim_start_matches('\u{feff}').trim();
        if name.is_empty() {
            return Err(invalid(format!(
                "column {} of the header has no name: the header row names every column",
                index + 1
            )));
        }
        if columns.iter().any(|c| c == name) {
            return Err(invalid(format!("column \"{name}\" appears twice in the header")));
        }
        columns.push(name.to_owned());
    }
    Ok(columns)
}

enum Piece {
    Text(String),
    Column(usize),
}

/// Where a row's outputKey comes from.
enum OutputKeySource {
    Column(usize),
    Pattern(Vec<Piece>),
}

impl OutputKeySource {
    fn of(columns: &[String], pattern: Option<&str>) -> Result<OutputKeySource, io::Error> {
        let column = columns.iter().position(|c| c == OUTPUT_KEY_COLUMN);
        match (column, pattern) {
            (Some(_), Some(_)) => Err(invalid(
                "the table has an outputKey column and an output key pattern was given: use one".into(),
            )),
            (Some(index), None) => Ok(OutputKeySource::Column(index)),
            (None, None) => Err(invalid(format!(
                "no outputKey column: add one, or name outputs with a pattern of columns such as 'renders/{{{}}}.mp4' (--output-key)",
                columns.first().map_or("id", String::as_str)
            ))),
            (None, Some(pattern)) => Ok(OutputKeySource::Pattern(pattern_pieces(pattern, columns)?)),
        }
    }

    fn key(&self, record: &csv::StringRecord) -> String {
        match self {
            OutputKeySource::Column(index) => record.get(*index).unwrap_or("").to_owned(),
            OutputKeySource::Pattern(pieces) => pieces
                .iter()
                .map(|piece| match piece {
                    Piece::Text(text) => text.as_str(),
                    Piece::Column(index) => record.get(*index).unwrap_or(""),
                })
                .collect(),
        }
    }

    fn column(&self) -> Option<usize> {
        match self {
            OutputKeySource::Column(index) => Some(*index),
            OutputKeySource::Pattern(_) => None,
        }
    }
}

/// `renders/{id}.mp4` → text and column references; a `{name}` that is no column is an error.
fn pattern_pieces(pattern: &str, columns: &[String]) -> Result<Vec<Piece>, io::Error> {
    let mut pieces = Vec::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            pieces.push(Piece::Text(rest[..open].to_owned()));
        }
        let Some(close) = rest[open..].find('}') else {
            return Err(invalid(format!(
                "output key pattern {pattern:?} opens a {{ it does not close"
            )));
        };
        let name = &rest[open + 1..open + close];
        let Some(index) = columns.iter().position(|c| c == name) else {
            return Err(invalid(format!(
                "output key pattern {pattern:?} names {{{name}}}, which is not a column: the columns are {}",
                columns.join(", ")
            )));
        };
        pieces.push(Piece::Column(index));
        rest = &rest[open + close + 1..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Text(rest.to_owned()));
    }
    if !pieces.iter().any(|p| matches!(p, Piece::Column(_))) {
        return Err(invalid(format!(
            "output key pattern {pattern:?} names no column: every row would write the same key; add one such as {{{}}}",
            columns.first().map_or("id", String::as_str)
        )));
    }
    Ok(pieces)
}

/// One record's outputKey and variables JSON, or why it cannot be rendered (every bad cell named).
fn row_entry(
    record: &csv::StringRecord,
    line: u32,
    columns: &[String],
    types: &[Option<&VariableDecl>],
    output_key: &OutputKeySource,
    entries: &mut Entries,
) -> Result<(String, String), BatchLineError> {
    let fail = |key: Option<&str>, reason: String| BatchLineError {
        line,
        output_key: key.map(str::to_owned),
        reason,
    };
    if record.len() != columns.len() {
        return Err(fail(
            None,
            format!("has {} fields, the header has {}", record.len(), columns.len()),
        ));
    }
    let key = output_key.key(record);
    if key.is_empty() {
        return Err(fail(
            None,
            "\"outputKey\" is empty: give a non-empty string naming this render's output".into(),
        ));
    }
    check_output_key(&key).map_err(|reason| fail(None, reason))?;
    entries.claim(line, &key)?;

    let mut variables = Map::new();
    let mut problems = Vec::new();
    for (index, cell) in record.iter().enumerate() {
        if Some(index) == output_key.column() || cell.is_empty() {
            continue;
        }
        match typed_cell(cell, types[index]) {
            Ok(value) => {
                variables.insert(columns[index].clone(), value);
            }
            Err(why) => problems.push(format!("line {line}, column \"{}\": {why}", columns[index])),
        }
    }
    if !problems.is_empty() {
        return Err(fail(Some(&key), problems.join("; ")));
    }
    Ok((key, Value::Object(variables).to_string()))
}

/// A cell as its variable's type; an undeclared column stays text.
fn typed_cell(cell: &str, decl: Option<&VariableDecl>) -> Result<Value, String> {
    let shown = || serde_json::Value::from(cell).to_string();
    match decl.map(|d| d.kind.as_str()) {
        Some("number") => number(cell)
            .map(Value::Number)
            .ok_or_else(|| format!("{} is not a number", shown())),
        Some("boolean") => boolean(cell)
            .map(Value::Bool)
            .ok_or_else(|| format!("{} is not a boolean (true, false, yes, no, 1 or 0)", shown())),
        Some("color") if is_color(cell) => Ok(Value::from(cell)),
        Some("color") => Err(format!(
            "{} is not a colour (#rgb, #rrggbb, rgb(…), hsl(…) or a colour name)",
            shown()
        )),
        Some("enum") => {
            let decl = decl.expect("an enum has a declaration");
            decl.options
                .iter()
                .find(|option| enum_matches(option, cell))
                .cloned()
                .ok_or_else(|| {
                    let allowed: Vec<String> = decl.options.iter().map(Value::to_string).collect();
                    format!("{} is not one of {}", shown(), allowed.join(", "))
                })
        }
        _ => Ok(Value::from(cell)),
    }
}

/// A number as JSON writes it, kept as written; else any finite decimal (`+1`, `.5`) as a float.
fn number(cell: &str) -> Option<Number> {
    let text = cell.trim();
    if let Ok(Value::Number(n)) = serde_json::from_str::<Value>(text) {
        return Some(n);
    }
    if !text.bytes().all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b)) {
        return None;
    }
    text.parse::<f64>().ok().and_then(Number::from_f64)
}

fn boolean(cell: &str) -> Option<bool> {
    match cell.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" => Some(true),
        "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

fn enum_matches(option: &Value, cell: &str) -> bool {
    match option {
        Value::String(s) => s == cell,
        Value::Number(n) => number(cell).and_then(|c| c.as_f64()) == n.as_f64(),
        Value::Bool(b) => boolean(cell) == Some(*b),
        _ => false,
    }
}

/// The colours a `color` variable accepts (src/composition/variables.ts COLOR_PATTERN): hex of 3, 4,
/// 6 or 8 digits, a functional notation without nested parentheses, or a name; blanks around allowed.
fn is_color(cell: &str) -> bool {
    const FUNCTIONS: [&str; 9] = ["rgb", "rgba", "hsl", "hsla", "hwb", "lab", "lch", "oklab", "oklch"];
    let text = cell.trim();
    if let Some(hex) = text.strip_prefix('#') {
        return matches!(hex.len(), 3 | 4 | 6 | 8) && hex.bytes().all(|b| b.is_ascii_hexdigit());
    }
    if let Some(open) = text.find('(') {
        let name = text[..open].to_ascii_lowercase();
        let inner = &text[open + 1..];
        return FUNCTIONS.contains(&name.as_str())
            && inner.ends_with(')')
            && !inner[..inner.len() - 1].contains(['(', ')']);
    }
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn decl(id: &str, kind: &str, options: Value) -> VariableDecl {
        VariableDecl {
            id: id.into(),
            kind: kind.into(),
            options: options.as_array().cloned().unwrap_or_default(),
        }
    }

    fn options() -> BatchOptions {
        BatchOptions {
            declarations: vec![
                decl("title", "string", Value::Null),
                decl("count", "number", Value::Null),
                decl("show", "boolean", Value::Null),
                decl("fill", "color", Value::Null),
                decl("theme", "enum", serde_json::json!(["dark", "light", 3])),
            ],
            output_key_pattern: None,
        }
    }

    fn table(text: &str, kind: TableKind, options: &BatchOptions) -> Result<BatchParse, BatchReadError> {
        parse_table(Cursor::new(text.as_bytes().to_vec()), kind, options, 0)
    }

    fn entries(parsed: &BatchParse) -> Vec<(u32, String, String)> {
        parsed
            .entries()
            .map(|e| (e.line, e.output_key.to_owned(), e.variables_json.to_owned()))
            .collect()
    }

    #[test]
    fn typed_cells_quoted_commas_line_breaks_and_a_bom() {
        let text = "\u{feff}outputKey,title,count,show,fill,theme\n\
                    a.mp4,\"Hello, world\",3,TRUE,#ff0000,dark\n\
                    b.mp4,\"two\nlines \"\"quoted\"\"\",2.5,no, rgb(0 0 255) ,3\n\
                    \n\
                    c.mp4,,,,,\n";
        let parsed = table(text, TableKind::Csv, &options()).unwrap();
        assert!(parsed.errors.is_empty(), "{parsed:?}");
        assert_eq!(
            entries(&parsed),
            vec![
                (
                    2,
                    "a.mp4".into(),
                    r##"{"title":"Hello, world","count":3,"show":true,"fill":"#ff0000","theme":"dark"}"##.into()
                ),
                (
                    3,
                    "b.mp4".into(),
                    r#"{"title":"two\nlines \"quoted\"","count":2.5,"show":false,"fill":" rgb(0 0 255) ","theme":3}"#
                        .into()
                ),
                (6, "c.mp4".into(), "{}".into()),
            ]
        );
    }

    #[test]
    fn lines_count_crlf_blank_lines_and_breaks_inside_quotes() {
        let text = "outputKey,title\r\n\r\na.mp4,\"x\r\n\r\ny\"\r\nb.mp4,z\r\n\r\n\r\nc.mp4,w";
        let parsed = table(text, TableKind::Csv, &options()).unwrap();
        assert_eq!(
            parsed.entries().map(|e| (e.line, e.output_key)).collect::<Vec<_>>(),
            vec![(3, "a.mp4"), (6, "b.mp4"), (9, "c.mp4")]
        );
    }

    #[test]
    fn bad_cells_name_their_line_and_column_and_fail_only_their_row() {
        let text = "outputKey,count,show,fill,theme\nok.mp4,1,yes,red,light\nbad.mp4,many,maybe,#12,blue\n";
        let parsed = table(text, TableKind::Csv, &options()).unwrap();
        assert_eq!(entries(&parsed).len(), 1);
        assert_eq!(
            parsed.errors,
            vec![BatchLineError {
                line: 3,
                output_key: Some("bad.mp4".into()),
                reason: concat!(
                    "line 3, column \"count\": \"many\" is not a number; ",
                    "line 3, column \"show\": \"maybe\" is not a boolean (true, false, yes, no, 1 or 0); ",
                    "line 3, column \"fill\": \"#12\" is not a colour (#rgb, #rrggbb, rgb(…), hsl(…) or a colour name); ",
                    "line 3, column \"theme\": \"blue\" is not one of \"dark\", \"light\", 3"
                )
                .into(),
            }]
        );
    }

    #[test]
    fn tsv_with_a_pattern_of_columns_and_an_undeclared_column_as_text() {
        let mut opts = options();
        opts.output_key_pattern = Some("renders/{id}-{theme}.mp4".into());
        let parsed = table("id\ttheme\tnote\n7\tdark\t007\n8\tlight\t\n", TableKind::Tsv, &opts).unwrap();
        assert!(parsed.errors.is_empty(), "{parsed:?}");
        assert_eq!(
            entries(&parsed),
            vec![
                (
                    2,
                    "renders/7-dark.mp4".into(),
                    r#"{"id":"7","theme":"dark","note":"007"}"#.into()
                ),
                (3, "renders/8-light.mp4".into(), r#"{"id":"8","theme":"light"}"#.into()),
            ]
        );
    }

    #[test]
    fn keys_follow_the_jsonl_rules() {
        let mut opts = options();
        opts.output_key_pattern = Some("renders/{id}.mp4".into());
        let parsed = table("id\n../up\n1\n1\n", TableKind::Csv, &opts).unwrap();
        assert_eq!(entries(&parsed).len(), 1);
        assert_eq!(
            parsed.errors.iter().map(|e| (e.line, e.reason.as_str())).collect::<Vec<_>>(),
            vec![
                (2, "\"outputKey\" \"renders/../up.mp4\" has a \"..\" path segment: name the object without climbing out of a folder"),
                (4, "duplicate outputKey \"renders/1.mp4\": already used on line 3"),
            ]
        );
    }

    #[test]
    fn a_row_with_another_number_of_fields_fails_alone() {
        let parsed = table("outputKey,title\na.mp4,x,extra\nb.mp4,y\n", TableKind::Csv, &options()).unwrap();
        assert_eq!(entries(&parsed).len(), 1);
        assert_eq!(parsed.errors[0].reason, "has 3 fields, the header has 2");
    }

    #[test]
    fn a_header_that_cannot_name_outputs_is_a_file_error() {
        let message = |text: &str, pattern: Option<&str>| {
            let mut opts = options();
            opts.output_key_pattern = pattern.map(str::to_owned);
            table(text, TableKind::Csv, &opts).unwrap_err().source.to_string()
        };
        assert_eq!(
            message("id,title\n1,x\n", None),
            "no outputKey column: add one, or name outputs with a pattern of columns such as 'renders/{id}.mp4' (--output-key)"
        );
        assert_eq!(
            message("id,title\n1,x\n", Some("r/{name}.mp4")),
            "output key pattern \"r/{name}.mp4\" names {name}, which is not a column: the columns are id, title"
        );
        assert_eq!(
            message("outputKey,title\na.mp4,x\n", Some("r/{title}.mp4")),
            "the table has an outputKey column and an output key pattern was given: use one"
        );
        assert_eq!(
            message("id,title,id\n", None),
            "column \"id\" appears twice in the header"
        );
        assert!(table("", TableKind::Csv, &options()).unwrap().spans.is_empty());
    }

    #[test]
    fn colours_as_the_composition_accepts_them() {
        for good in [
            "#abc",
            "#abcd",
            "#aabbcc",
            "#aabbccdd",
            "rgb(1, 2, 3)",
            "OKLCH(0.5 0.1 20)",
            "rebeccapurple",
            " red ",
        ] {
            assert!(is_color(good), "{good}");
        }
        for bad in ["#ab", "#abcde", "rgb(1, (2), 3)", "foo(1)", "red blue", "", "#ggg"] {
            assert!(!is_color(bad), "{bad}");
        }
    }
}
