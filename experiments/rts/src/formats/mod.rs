//! Trace formats: Jaeger JSON, Zipkin v2 JSON, OpenTelemetry OTLP JSON and the CSV gateway log,
//! read streaming into [`SpanRecord`]s and written from them.
//!
//! Reading keeps memory constant in the number of records: the CSV log and OTLP JSON Lines are
//! read a line at a time; Jaeger and Zipkin documents (and a whole-document OTLP file) are cut
//! into their array elements by a small structural scanner (`json_scan`) and each element is
//! parsed alone with serde, so a big file never becomes one JSON tree. Memory is bounded by the
//! largest element (one Jaeger trace, one Zipkin span, one OTLP line or `resourceSpans` entry).
//!
//! A malformed record (a CSV row with a missing field, a JSON line that does not parse, a span
//! without an id, ...) is counted in the [`ReadReport`] with its line number and skipped; the rest
//! of the file is still read. Only a file that cannot be read, or whose top level has the wrong
//! shape (a Jaeger file without a `data` array, a CSV file without the header), is an error.
//!
//! Round trips: [`TraceWriter`] followed by [`TraceReader`] gives back the same records, except
//! for what a format cannot carry:
//! - the CSV log has no operation column (read back as `""`), and it is the only format with a
//!   `caller` column: the writer fills it with the parent span's service, and the reader returns
//!   it; the JSON formats read `caller` as `None` and ignore it when writing;
//! - ids are written verbatim in CSV, Jaeger and Zipkin. OTLP ids must be 32 / 16 hex digits:
//!   ids that already are (lowercase) are written verbatim, others as a stable hash of the id with
//!   the original kept in the span attributes `rigor.trace_id`, `rigor.span_id` and
//!   `rigor.parent_id`, which the reader prefers — so any id survives;
//! - OTLP times are nanoseconds (`timestamp_us · 1000`), read back exactly.
//!
//! Spans of one trace are expected to be contiguous in a file (the writers produce them so; a
//! gateway log can be sorted by trace id first). [`TraceReader::next_trace`] groups consecutive
//! spans with equal trace ids; a trace id seen again later starts a new group.

mod csv_log;
mod jaeger;
mod json_scan;
mod otlp;
mod zipkin;

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::str::FromStr;

use crate::record::SpanRecord;

/// A trace file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// The gateway log: `trace_id,span_id,parent_id,caller,callee,timestamp_us`.
    Csv,
    /// Jaeger's JSON export: `{"data":[{"traceID", "spans":[...], "processes":{...}}]}`.
    Jaeger,
    /// Zipkin v2 JSON: an array of spans (or of traces, each an array of spans).
    Zipkin,
    /// OTLP JSON: `{"resourceSpans":[...]}` objects, one per line or one whole document.
    Otlp,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Csv, Format::Jaeger, Format::Zipkin, Format::Otlp];

    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Jaeger => "jaeger",
            Format::Zipkin => "zipkin",
            Format::Otlp => "otlp",
        }
    }

    /// Guesses the format from a file name (`.csv`, `.jsonl`, or `jaeger` / `zipkin` / `otlp` in
    /// the name) and otherwise from the first bytes of the content.
    pub fn guess(path: &Path, first_bytes: &[u8]) -> Option<Format> {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        for f in [Format::Jaeger, Format::Zipkin, Format::Otlp] {
            if name.contains(f.name()) {
                return Some(f);
            }
        }
        if name.ends_with(".csv") {
            return Some(Format::Csv);
        }
        if name.ends_with(".jsonl") || name.ends_with(".ndjson") {
            return Some(Format::Otlp);
        }
        let text = String::from_utf8_lossy(first_bytes);
        let text = text.trim_start_matches('\u{feff}').trim_start();
        let has = |needle: &str| text.contains(needle);
        if text.starts_with('{') && has("\"resourceSpans\"") {
            Some(Format::Otlp)
        } else if (text.starts_with('{') && has("\"data\""))
            || (text.starts_with('[') && has("\"traceID\""))
        {
            Some(Format::Jaeger)
        } else if text.starts_with('[') {
            Some(Format::Zipkin)
        } else if text.starts_with("trace_id") {
            Some(Format::Csv)
        } else {
            None
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = FormatError;
    fn from_str(s: &str) -> Result<Self, FormatError> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| FormatError::UnknownFormat {
                name: s.to_string(),
            })
    }
}

/// Errors that stop reading a file (malformed records do not; see [`ReadReport`]).
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    #[error("{file}: {source}")]
    Io { file: String, source: io::Error },
    /// The top level is not what the format requires.
    #[error("{file}:{line}: {message}")]
    Shape {
        file: String,
        line: u64,
        message: String,
    },
    #[error("{file}: cannot tell the trace format (name it: csv, jaeger, zipkin or otlp)")]
    Unrecognized { file: String },
    #[error("unknown trace format `{name}` (expected csv, jaeger, zipkin or otlp)")]
    UnknownFormat { name: String },
}

/// What reading a file found: records read and malformed records skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadReport {
    pub file: String,
    /// Spans returned.
    pub records: u64,
    /// Malformed records skipped, all of them.
    pub malformed_count: u64,
    /// The first [`ReadReport::LISTED`] malformed records: `(line, message)`.
    pub malformed: Vec<(u64, String)>,
}

impl ReadReport {
    /// How many malformed records are listed with their message.
    pub const LISTED: usize = 100;

    pub fn new(file: impl Into<String>) -> Self {
        ReadReport {
            file: file.into(),
            ..Self::default()
        }
    }

    pub fn add_malformed(&mut self, line: u64, message: impl Into<String>) {
        self.malformed_count += 1;
        if self.malformed.len() < Self::LISTED {
            self.malformed.push((line, message.into()));
        }
    }
}

impl fmt::Display for ReadReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} records, {} malformed",
            self.file, self.records, self.malformed_count
        )?;
        for (line, message) in &self.malformed {
            write!(f, "\n  {}:{line}: {message}", self.file)?;
        }
        if self.malformed_count > self.malformed.len() as u64 {
            write!(
                f,
                "\n  ... and {} more",
                self.malformed_count - self.malformed.len() as u64
            )?;
        }
        Ok(())
    }
}

/// One format's reader: fills `span` with the next record (reusing its buffers).
trait ReadSpans {
    fn next_span(
        &mut self,
        span: &mut SpanRecord,
        report: &mut ReadReport,
    ) -> Result<bool, FormatError>;
}

enum Source<R: BufRead> {
    Csv(csv_log::CsvReader<R>),
    Jaeger(jaeger::JaegerReader<R>),
    Zipkin(zipkin::ZipkinReader<R>),
    Otlp(otlp::OtlpReader<R>),
}

/// Reads spans, or whole traces, from a trace file of any [`Format`].
pub struct TraceReader<R: BufRead> {
    source: Source<R>,
    report: ReadReport,
    /// Slots reused by [`TraceReader::next_trace`]; the first `len` are the current trace.
    group: Vec<SpanRecord>,
    len: usize,
    /// The first span of the next trace, read ahead.
    pending: Option<SpanRecord>,
}

impl TraceReader<BufReader<File>> {
    /// Opens a file; `format = None` guesses it from the name and first bytes.
    pub fn open(path: &Path, format: Option<Format>) -> Result<Self, FormatError> {
        let file_name = path.display().to_string();
        let io_err = |source| FormatError::Io {
            file: file_name.clone(),
            source,
        };
        let mut input = BufReader::with_capacity(1 << 20, File::open(path).map_err(io_err)?);
        let format = match format {
            Some(f) => f,
            None => {
                let first = input.fill_buf().map_err(io_err)?;
                let first = &first[..first.len().min(4096)];
                Format::guess(path, first).ok_or_else(|| FormatError::Unrecognized {
                    file: file_name.clone(),
                })?
            }
        };
        Ok(TraceReader::new(format, file_name, input))
    }
}

impl<R: BufRead> TraceReader<R> {
    /// A reader of `input` in `format`; `file` names it in errors and the report.
    pub fn new(format: Format, file: impl Into<String>, input: R) -> Self {
        let file = file.into();
        let source = match format {
            Format::Csv => Source::Csv(csv_log::CsvReader::new(file.clone(), input)),
            Format::Jaeger => Source::Jaeger(jaeger::JaegerReader::new(file.clone(), input)),
            Format::Zipkin => Source::Zipkin(zipkin::ZipkinReader::new(file.clone(), input)),
            Format::Otlp => Source::Otlp(otlp::OtlpReader::new(file.clone(), input)),
        };
        TraceReader {
            source,
            report: ReadReport::new(file),
            group: Vec::new(),
            len: 0,
            pending: None,
        }
    }

    fn read_raw(&mut self, span: &mut SpanRecord) -> Result<bool, FormatError> {
        let found = match &mut self.source {
            Source::Csv(r) => r.next_span(span, &mut self.report),
            Source::Jaeger(r) => r.next_span(span, &mut self.report),
            Source::Zipkin(r) => r.next_span(span, &mut self.report),
            Source::Otlp(r) => r.next_span(span, &mut self.report),
        }?;
        if found {
            self.report.records += 1;
        }
        Ok(found)
    }

    /// Reads the next span into `span`, reusing its allocations; `false` at the end.
    pub fn next_span(&mut self, span: &mut SpanRecord) -> Result<bool, FormatError> {
        if let Some(p) = self.pending.take() {
            *span = p;
            return Ok(true);
        }
        self.read_raw(span)
    }

    /// The next trace: the following run of spans with one trace id. The slice is valid until
    /// the next call; its buffers are reused, so reading allocates little once warm.
    pub fn next_trace(&mut self) -> Result<Option<&[SpanRecord]>, FormatError> {
        self.len = 0;
        if self.group.is_empty() {
            self.group.push(SpanRecord::default());
        }
        match self.pending.take() {
            Some(p) => {
                let old = std::mem::replace(&mut self.group[0], p);
                self.pending = Some(old);
            }
            None => {
                let mut first = std::mem::take(&mut self.group[0]);
                let found = self.read_raw(&mut first);
                self.group[0] = first;
                if !found? {
                    return Ok(None);
                }
            }
        }
        self.len = 1;
        // Spare buffers for the look-ahead slot come from the last pending span.
        let mut next = self.pending.take().unwrap_or_default();
        loop {
            if !self.read_raw(&mut next)? {
                break;
            }
            if next.trace_id != self.group[0].trace_id {
                self.pending = Some(next);
                break;
            }
            if self.len == self.group.len() {
                self.group.push(SpanRecord::default());
            }
            std::mem::swap(&mut self.group[self.len], &mut next);
            self.len += 1;
        }
        Ok(Some(&self.group[..self.len]))
    }

    /// Counts so far (complete once the reader returned its last record).
    pub fn report(&self) -> &ReadReport {
        &self.report
    }

    pub fn into_report(self) -> ReadReport {
        self.report
    }

    /// An iterator over owned spans.
    pub fn spans(self) -> Spans<R> {
        Spans {
            reader: self,
            failed: false,
        }
    }

    /// An iterator over owned traces.
    pub fn traces(self) -> Traces<R> {
        Traces {
            reader: self,
            failed: false,
        }
    }
}


/// Owned spans of a [`TraceReader`]; stops after the first error.
pub struct Spans<R: BufRead> {
    reader: TraceReader<R>,
    failed: bool,
}

impl<R: BufRead> Spans<R> {
    pub fn report(&self) -> &ReadReport {
        self.reader.report()
    }
}

impl<R: BufRead> Iterator for Spans<R> {
    type Item = Result<SpanRecord, FormatError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let mut span = SpanRecord::default();
        match self.reader.next_span(&mut span) {
            Ok(true) => Some(Ok(span)),
            Ok(false) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Owned traces of a [`TraceReader`]; stops after the first error.
pub struct Traces<R: BufRead> {
    reader: TraceReader<R>,
    failed: bool,
}

impl<R: BufRead> Traces<R> {
    pub fn report(&self) -> &ReadReport {
        self.reader.report()
    }
}

impl<R: BufRead> Iterator for Traces<R> {
    type Item = Result<Vec<SpanRecord>, FormatError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.reader.next_trace() {
            Ok(Some(t)) => Some(Ok(t.to_vec())),
            Ok(None) => None,
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// Reads a whole file's spans into memory (for tests and small files).
pub fn read_all(
    format: Format,
    file: &str,
    input: impl BufRead,
) -> Result<(Vec<SpanRecord>, ReadReport), FormatError> {
    let mut spans = TraceReader::new(format, file, input).spans();
    let records = spans.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok((records, spans.report().clone()))
}

enum WriterState {
    Csv(csv_log::CsvWriter),
    Jaeger(jaeger::JaegerWriter),
    Zipkin(zipkin::ZipkinWriter),
    Otlp(otlp::OtlpWriter),
}

/// Writes spans in one format. Spans of one trace arrive contiguously (any order inside it).
/// Each record is written with one `write_all`; wrap a file in a `BufWriter` all the same.
pub struct TraceWriter<W: Write> {
    out: W,
    state: WriterState,
}

impl<W: Write> TraceWriter<W> {
    pub fn new(format: Format, out: W) -> Self {
        let state = match format {
            Format::Csv => WriterState::Csv(csv_log::CsvWriter::default()),
            Format::Jaeger => WriterState::Jaeger(jaeger::JaegerWriter::default()),
            Format::Zipkin => WriterState::Zipkin(zipkin::ZipkinWriter::default()),
            Format::Otlp => WriterState::Otlp(otlp::OtlpWriter::default()),
        };
        TraceWriter { out, state }
    }

    pub fn write(&mut self, span: &SpanRecord) -> io::Result<()> {
        match &mut self.state {
            WriterState::Csv(w) => w.write(&mut self.out, span),
            WriterState::Jaeger(w) => w.write(&mut self.out, span),
            WriterState::Zipkin(w) => w.write(&mut self.out, span),
            WriterState::Otlp(w) => w.write(&mut self.out, span),
        }
    }

    /// Flushes what is buffered (the last trace, closing brackets) and returns the sink.
    pub fn finish(mut self) -> io::Result<W> {
        match &mut self.state {
            WriterState::Csv(w) => w.finish(&mut self.out),
            WriterState::Jaeger(w) => w.finish(&mut self.out),
            WriterState::Zipkin(w) => w.finish(&mut self.out),
            WriterState::Otlp(w) => w.finish(&mut self.out),
        }?;
        Ok(self.out)
    }
}

/// Writes all `spans` in `format` into a byte vector.
pub fn write_all(format: Format, spans: &[SpanRecord]) -> io::Result<Vec<u8>> {
    let mut w = TraceWriter::new(format, Vec::new());
    for s in spans {
        w.write(s)?;
    }
    w.finish()
}

/// Replaces `dst`'s text, reusing its buffer.
/// Moves the next queued span into `span` (the JSON readers parse a whole trace or document at
/// a time and hand its spans out one by one); `false` when the queue is empty.
fn pop_queued(queue: &mut std::collections::VecDeque<SpanRecord>, span: &mut SpanRecord) -> bool {
    match queue.pop_front() {
        Some(s) => {
            *span = s;
            true
        }
        None => false,
    }
}

fn set_str(dst: &mut String, src: &str) {
    dst.clear();
    dst.push_str(src);
}

/// Sets an optional text field, reusing the old buffer; `None` or `""` clear it.
fn set_opt(dst: &mut Option<String>, src: Option<&str>) {
    match src.filter(|s| !s.is_empty()) {
        Some(s) => match dst {
            Some(d) => set_str(d, s),
            None => *dst = Some(s.to_string()),
        },
        None => *dst = None,
    }
}

/// An optional JSON string field that borrows from the input when it has no escapes (most ids
/// and names), so parsing a span allocates only for what the record keeps. `null` reads as absent.
#[derive(Debug, Default)]
struct Text<'a>(Option<std::borrow::Cow<'a, str>>);

impl<'a> Text<'a> {
    fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The text when present and not empty.
    fn nonempty(&self) -> Option<&str> {
        self.as_deref().filter(|s| !s.is_empty())
    }

    fn into_string(self) -> String {
        self.0.map(std::borrow::Cow::into_owned).unwrap_or_default()
    }
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Text<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or null")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Some(std::borrow::Cow::Borrowed(v))))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Some(std::borrow::Cow::Owned(v.to_string()))))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<Text<'de>, E> {
                Ok(Text(None))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Text<'de>, E> {
                Ok(Text(None))
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Text<'de>, D::Error> {
                d.deserialize_str(V)
            }
        }
        d.deserialize_option(V)
    }
}

/// Appends `s` as a JSON string literal (quoted, escaped).
fn push_json_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            b'\n' => Some(b"\\n"),
            b'\r' => Some(b"\\r"),
            b'\t' => Some(b"\\t"),
            0..=0x1f => None,
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        match escape {
            Some(e) => out.extend_from_slice(e),
            None => out.extend_from_slice(format!("\\u{b:04x}").as_bytes()),
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests;
