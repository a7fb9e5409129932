//! The CSV gateway log: one row per call, header `trace_id,span_id,parent_id,caller,callee,timestamp_us`.
//!
//! Columns are found by header name (extra columns are ignored, order is free). `parent_id` and
//! `caller` are empty for a root. The log has no operation column: operations read back as `""`.
//! A row with a wrong field count, an empty id or service, or a timestamp that is not a whole
//! number of microseconds is malformed: reported with its line and skipped.

use std::io::{self, BufRead, Write};

use super::{set_str, FormatError, ReadReport, ReadSpans};
use crate::edges::SpanIndex;
use crate::record::SpanRecord;

pub const HEADER: [&str; 6] = [
    "trace_id",
    "span_id",
    "parent_id",
    "caller",
    "callee",
    "timestamp_us",
];

/// A record spanning more lines than this (an unterminated quote) is malformed.
const MAX_RECORD_BYTES: usize = 1 << 20;

/// Reads the log a line at a time. A hand-written splitter rather than the `csv` crate: this is
/// the format of the 50-million-record benchmark, and a line without quotes (the usual case)
/// is split with one pass and one UTF-8 check. Quoting follows RFC 4180 (`""` inside quotes,
/// line breaks inside quoted fields); blank lines are skipped.
pub struct CsvReader<R> {
    file: String,
    input: R,
    /// The raw bytes of the current record (one line, or more when a quoted field spans lines).
    raw: Vec<u8>,
    /// The current record's fields, unquoted, back to back; `fields` holds their ranges.
    text: Vec<u8>,
    fields: Vec<(usize, usize)>,
    line_no: u64,
    /// Position of each [`HEADER`] column in the rows; `None` until the header is read.
    columns: Option<[usize; 6]>,
    width: usize,
    /// Buffers of optional fields set to `None`, kept for the next `Some`.
    spare: [String; 2],
}

enum Row {
    End,
    /// A record starting on this line, split into `fields`.
    Fields(u64),
    /// A record starting on this line that could not be split.
    Bad(u64, String),
}

impl<R: BufRead> CsvReader<R> {
    pub fn new(file: String, input: R) -> Self {
        CsvReader {
            file,
            input,
            raw: Vec::new(),
            text: Vec::new(),
            fields: Vec::new(),
            line_no: 0,
            columns: None,
            width: 0,
            spare: [String::new(), String::new()],
        }
    }

    fn io(&self, source: io::Error) -> FormatError {
        FormatError::Io {
            file: self.file.clone(),
            source,
        }
    }

    /// Reads and splits the next non-blank record.
    fn read_row(&mut self) -> Result<Row, FormatError> {
        loop {
            self.raw.clear();
            if self
                .input
                .read_until(b'\n', &mut self.raw)
                .map_err(|e| self.io(e))?
                == 0
            {
                return Ok(Row::End);
            }
            self.line_no += 1;
            let start = self.line_no;
            if start == 1 && self.raw.starts_with(b"\xEF\xBB\xBF") {
                self.raw.drain(..3);
            }
            if trim_line_end(&self.raw).is_empty() {
                continue;
            }
            while !split(trim_line_end(&self.raw), &mut self.text, &mut self.fields) {
                // Inside a quoted field at the end of the line: the record goes on.
                let more = self
                    .input
                    .read_until(b'\n', &mut self.raw)
                    .map_err(|e| self.io(e))?;
                if more == 0 || self.raw.len() > MAX_RECORD_BYTES {
                    return Ok(Row::Bad(start, "quoted field never closed".into()));
                }
                self.line_no += 1;
            }
            return Ok(Row::Fields(start));
        }
    }

    fn read_header(&mut self) -> Result<bool, FormatError> {
        let line = match self.read_row()? {
            Row::End => return Ok(false),
            Row::Fields(line) | Row::Bad(line, _) => line,
        };
        let names: Vec<String> = self
            .fields
            .iter()
            .map(|&(a, b)| String::from_utf8_lossy(&self.text[a..b]).trim().to_string())
            .collect();
        let mut columns = [0usize; 6];
        for (slot, want) in columns.iter_mut().zip(HEADER) {
            *slot = names
                .iter()
                .position(|n| n == want)
                .ok_or_else(|| FormatError::Shape {
                    file: self.file.clone(),
                    line,
                    message: format!(
                        "header must name the columns `{}`, found `{}`",
                        HEADER.join(","),
                        names.join(",")
                    ),
                })?;
        }
        self.columns = Some(columns);
        self.width = names.len();
        Ok(true)
    }
}

/// `line` without its `\n` or `\r\n`.
fn trim_line_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Splits one record into unquoted fields; `false` when it ends inside a quoted field.
fn split(line: &[u8], text: &mut Vec<u8>, fields: &mut Vec<(usize, usize)>) -> bool {
    text.clear();
    fields.clear();
    let mut i = 0;
    loop {
        let start = text.len();
        if line.get(i) == Some(&b'"') {
            i += 1;
            loop {
                let Some(k) = line[i..].iter().position(|&b| b == b'"') else {
                    return false;
                };
                text.extend_from_slice(&line[i..i + k]);
                i += k + 1;
                if line.get(i) == Some(&b'"') {
                    text.push(b'"');
                    i += 1;
                } else {
                    break;
                }
            }
        }
        // Unquoted text (or text after a closing quote, kept literally as the csv crate does).
        let end = line[i..]
            .iter()
            .position(|&b| b == b',')
            .map_or(line.len(), |k| i + k);
        text.extend_from_slice(&line[i..end]);
        fields.push((start, text.len()));
        if end == line.len() {
            return true;
        }
        i = end + 1;
    }
}

impl<R: BufRead> ReadSpans for CsvReader<R> {
    fn next_span(
        &mut self,
        span: &mut SpanRecord,
        report: &mut ReadReport,
    ) -> Result<bool, FormatError> {
        if self.columns.is_none() && !self.read_header()? {
            return Ok(false);
        }
        let Some(cols) = self.columns else {
            return Ok(false);
        };
        loop {
            let line = match self.read_row()? {
                Row::End => return Ok(false),
                Row::Bad(line, message) => {
                    report.add_malformed(line, message);
                    continue;
                }
                Row::Fields(line) => line,
            };
            match fill(
                &self.text,
                &self.fields,
                cols,
                self.width,
                span,
                &mut self.spare,
            ) {
                Ok(()) => return Ok(true),
                Err(message) => report.add_malformed(line, message),
            }
        }
    }
}

fn fill(
    text: &[u8],
    fields: &[(usize, usize)],
    cols: [usize; 6],
    width: usize,
    span: &mut SpanRecord,
    spare: &mut [String; 2],
) -> Result<(), String> {
    if fields.len() != width {
        return Err(format!("expected {width} fields, found {}", fields.len()));
    }
    let text = std::str::from_utf8(text).map_err(|_| "record is not valid UTF-8".to_string())?;
    // A range that splits a character means the bytes were only valid once concatenated.
    let field = |k: usize| -> Result<&str, String> {
        let (a, b) = fields[cols[k]];
        text.get(a..b)
            .ok_or_else(|| format!("field `{}` is not valid UTF-8", HEADER[k]))
    };
    let required = |k: usize| -> Result<&str, String> {
        let v = field(k)?;
        if v.is_empty() {
            Err(format!("field `{}` is empty", HEADER[k]))
        } else {
            Ok(v)
        }
    };
    let [trace_id, span_id, parent_id, caller, callee, timestamp] = [0, 1, 2, 3, 4, 5];
    let ts_text = field(timestamp)?;
    let ts = parse_u64(ts_text.as_bytes())
        .ok_or_else(|| format!("timestamp_us `{ts_text}` is not a whole number"))?;
    let (t, s, c) = (required(trace_id)?, required(span_id)?, required(callee)?);
    set_str(&mut span.trace_id, t);
    set_str(&mut span.span_id, s);
    set_str(&mut span.service, c);
    let [spare_parent, spare_caller] = spare;
    let (parent, caller) = (field(parent_id)?, field(caller)?);
    set_opt_spare(&mut span.parent_id, parent, spare_parent);
    set_opt_spare(&mut span.caller, caller, spare_caller);
    span.operation.clear();
    span.timestamp_us = ts;
    Ok(())
}

/// Sets an optional field (`""` = `None`) moving buffers to and from `spare` instead of
/// allocating and freeing as records alternate between roots and children.
fn set_opt_spare(dst: &mut Option<String>, value: &str, spare: &mut String) {
    if value.is_empty() {
        if let Some(s) = dst.take() {
            *spare = s;
        }
    } else {
        let mut s = dst.take().unwrap_or_else(|| std::mem::take(spare));
        set_str(&mut s, value);
        *dst = Some(s);
    }
}

fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    s.iter().try_fold(0u64, |acc, &b| {
        if b.is_ascii_digit() {
            acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
        } else {
            None
        }
    })
}

/// Buffers one trace (callers need the parent's service, and a child may come first), reusing
/// the slots' buffers from trace to trace.
#[derive(Default)]
pub struct CsvWriter {
    header_written: bool,
    trace: Vec<SpanRecord>,
    len: usize,
    index: SpanIndex,
    line: Vec<u8>,
}

impl CsvWriter {
    pub fn write<W: Write>(&mut self, out: &mut W, span: &SpanRecord) -> io::Result<()> {
        if self.len > 0 && self.trace[0].trace_id != span.trace_id {
            self.flush_trace(out)?;
        }
        if self.len == self.trace.len() {
            self.trace.push(span.clone());
        } else {
            copy_span(&mut self.trace[self.len], span);
        }
        self.len += 1;
        Ok(())
    }

    pub fn finish<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.flush_trace(out)
    }

    fn flush_trace<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.line.clear();
        if !self.header_written {
            self.line.extend_from_slice(HEADER.join(",").as_bytes());
            self.line.push(b'\n');
            self.header_written = true;
        }
        let spans = &self.trace[..self.len];
        self.index.build(spans);
        for s in spans {
            // The parent's service; for an orphan, whatever caller the record carried.
            let caller = match s.parent_id.as_deref() {
                Some(p) => self
                    .index
                    .find(spans, p)
                    .map(|i| spans[i].service.as_str())
                    .or(s.caller.as_deref()),
                None => None,
            };
            push_field(&mut self.line, &s.trace_id);
            self.line.push(b',');
            push_field(&mut self.line, &s.span_id);
            self.line.push(b',');
            push_field(&mut self.line, s.parent_id.as_deref().unwrap_or(""));
            self.line.push(b',');
            push_field(&mut self.line, caller.unwrap_or(""));
            self.line.push(b',');
            push_field(&mut self.line, &s.service);
            self.line.push(b',');
            self.line
                .extend_from_slice(s.timestamp_us.to_string().as_bytes());
            self.line.push(b'\n');
        }
        self.len = 0;
        out.write_all(&self.line)
    }
}

/// Copies `src` into `dst` reusing `dst`'s string buffers.
fn copy_span(dst: &mut SpanRecord, src: &SpanRecord) {
    set_str(&mut dst.trace_id, &src.trace_id);
    set_str(&mut dst.span_id, &src.span_id);
    set_str(&mut dst.service, &src.service);
    set_str(&mut dst.operation, &src.operation);
    dst.parent_id.clone_from(&src.parent_id);
    dst.caller.clone_from(&src.caller);
    dst.timestamp_us = src.timestamp_us;
}

/// Appends a CSV field, quoted when it holds a separator, quote or line break (or edge spaces).
fn push_field(out: &mut Vec<u8>, s: &str) {
    let needs_quotes = s.bytes().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
        || s.starts_with(' ')
        || s.ends_with(' ');
    if !needs_quotes {
        out.extend_from_slice(s.as_bytes());
        return;
    }
    out.push(b'"');
    for b in s.bytes() {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
    out.push(b'"');
}
