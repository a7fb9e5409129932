//! OpenTelemetry OTLP JSON: `{"resourceSpans":[{"resource":{"attributes":[...]},
//! "scopeSpans":[{"spans":[...]}]}]}`, either one such object per line (JSON Lines, what the
//! writer produces: one line per trace) or one whole (possibly pretty-printed) document.
//!
//! The mode is decided on the first non-blank line: if it parses as a complete object the file is
//! JSON Lines and every line stands alone (a bad line is one malformed record); otherwise the
//! file is one document, streamed element by element of `resourceSpans`.
//!
//! Ids may be hex (any case) or base64 (the protobuf JSON mapping); both are read as lowercase
//! hex. The service is the resource's `service.name` attribute. OTLP batches group spans by
//! service, not by trace, so spans are regrouped by trace id within each line (or each
//! `resourceSpans` element of a document), keeping first-appearance order.
//!
//! Writing: ids that are lowercase hex of the right width are written as they are; other ids as a
//! stable hash, with the original in the `rigor.*` span attributes (see the `formats` module doc).

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead, Cursor, Read, Write};

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::json_scan::{line_of, settle, JsonScanner, ScanError, ScanOutcome};
use super::{pop_queued, push_json_str, FormatError, ReadReport, ReadSpans, Text};
use crate::record::SpanRecord;

const TRACE_ID_HEX: usize = 32;
const SPAN_ID_HEX: usize = 16;
const ATTR_TRACE: &str = "rigor.trace_id";
const ATTR_SPAN: &str = "rigor.span_id";
const ATTR_PARENT: &str = "rigor.parent_id";

/// The OTLP containers with spans parsed as `S`: [`Span`] on the fast path, raw text when a unit
/// must be taken apart span by span to report the bad ones with their lines.
#[derive(Deserialize)]
#[serde(bound(deserialize = "S: Deserialize<'de>"))]
struct Request<'a, S> {
    #[serde(rename = "resourceSpans", borrow, default)]
    resource_spans: Option<Vec<ResourceSpans<'a, S>>>,
}

#[derive(Deserialize)]
#[serde(bound(deserialize = "S: Deserialize<'de>"))]
struct ResourceSpans<'a, S> {
    #[serde(borrow, default)]
    resource: Option<Resource<'a>>,
    #[serde(
        rename = "scopeSpans",
        alias = "instrumentationLibrarySpans",
        default = "Vec::new"
    )]
    scope_spans: Vec<ScopeSpans<S>>,
}

#[derive(Deserialize)]
struct Resource<'a> {
    #[serde(borrow, default)]
    attributes: Option<Vec<KeyValue<'a>>>,
}

#[derive(Deserialize)]
struct ScopeSpans<S> {
    #[serde(default = "Vec::new")]
    spans: Vec<S>,
}

#[derive(Deserialize)]
struct KeyValue<'a> {
    #[serde(borrow)]
    key: Cow<'a, str>,
    #[serde(borrow, default)]
    value: Option<AnyValue<'a>>,
}

#[derive(Deserialize)]
struct AnyValue<'a> {
    #[serde(rename = "stringValue", borrow, default)]
    string_value: Text<'a>,
}

#[derive(Deserialize)]
struct Span<'a> {
    #[serde(rename = "traceId", borrow, default)]
    trace_id: Text<'a>,
    #[serde(rename = "spanId", borrow, default)]
    span_id: Text<'a>,
    #[serde(rename = "parentSpanId", borrow, default)]
    parent_span_id: Text<'a>,
    #[serde(borrow, default)]
    name: Text<'a>,
    #[serde(rename = "startTimeUnixNano", default)]
    start: Option<Nanos>,
    #[serde(borrow, default)]
    attributes: Option<Vec<KeyValue<'a>>>,
}

/// A `fixed64` in the protobuf JSON mapping: a decimal string, or a plain number.
struct Nanos(u128);

impl<'de> Deserialize<'de> for Nanos {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Nanos;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("nanoseconds as a decimal string or a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Nanos, E> {
                Ok(Nanos(u128::from(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Nanos, E> {
                v.parse()
                    .map(Nanos)
                    .map_err(|_| E::custom(format!("`{v}` is not a whole number of nanoseconds")))
            }
        }
        d.deserialize_any(V)
    }
}

fn attribute<'a>(attrs: &'a Option<Vec<KeyValue>>, key: &str) -> Option<&'a str> {
    attrs
        .as_ref()?
        .iter()
        .find(|kv| kv.key == key)?
        .value
        .as_ref()?
        .string_value
        .as_deref()
}

/// Reads an id: hex is lowercased, base64 is decoded to lowercase hex.
fn read_id(raw: &str) -> Option<String> {
    if raw.is_empty() {
        return None;
    }
    if raw.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(raw.to_ascii_lowercase());
    }
    decode_base64(raw)
        .filter(|b| !b.is_empty())
        .map(|b| to_hex(&b))
}

fn to_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    bytes
        .iter()
        .flat_map(|&b| {
            [
                HEX[(b >> 4) as usize] as char,
                HEX[(b & 15) as usize] as char,
            ]
        })
        .collect()
}

/// Standard or URL-safe base64, padding optional.
fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let s = s.trim_end_matches('=').as_bytes();
    if s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for chunk in s.chunks(4) {
        let mut acc = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * k);
        }
        let bytes = [(acc >> 16) as u8, (acc >> 8) as u8, acc as u8];
        out.extend_from_slice(&bytes[..chunk.len() - 1]);
    }
    Some(out)
}

fn service_of<'r, S>(rs: &'r ResourceSpans<'_, S>) -> Option<&'r str> {
    rs.resource
        .as_ref()
        .and_then(|r| attribute(&r.attributes, "service.name"))
        .filter(|s| !s.is_empty())
}

/// The records of parsed `resourceSpans`, or `None` when any span is bad (the caller then parses
/// the unit again span by span with [`raw_records`]).
fn fast_records(all: Vec<ResourceSpans<Span>>) -> Option<Vec<SpanRecord>> {
    let mut records = Vec::new();
    for rs in &all {
        let service = service_of(rs)?;
        for span in rs.scope_spans.iter().flat_map(|s| &s.spans) {
            records.push(to_record(span, service).ok()?);
        }
    }
    Some(records)
}

/// The records of `resourceSpans` kept as raw spans; bad spans are reported with their line
/// (`buf` is the text they were parsed from, starting on `base_line`).
fn raw_records(
    all: &[ResourceSpans<&RawValue>],
    buf: &[u8],
    base_line: u64,
    report: &mut ReadReport,
) -> Vec<SpanRecord> {
    let mut records = Vec::new();
    for rs in all {
        let service = service_of(rs);
        for raw in rs.scope_spans.iter().flat_map(|s| &s.spans) {
            let line = line_of(buf, base_line, raw.get());
            let Some(service) = service else {
                report.add_malformed(line, "span's resource has no service.name attribute");
                continue;
            };
            let record = serde_json::from_str(raw.get())
                .map_err(|e| format!("span: {e}"))
                .and_then(|s: Span| to_record(&s, service));
            match record {
                Ok(r) => records.push(r),
                Err(m) => report.add_malformed(line, m),
            }
        }
    }
    records
}

fn to_record(s: &Span, service: &str) -> Result<SpanRecord, String> {
    let id = |attr: &str, value: &Text, what: &str| -> Result<Option<String>, String> {
        if let Some(original) = attribute(&s.attributes, attr).filter(|o| !o.is_empty()) {
            return Ok(Some(original.to_string()));
        }
        match value.nonempty() {
            None => Ok(None),
            Some(v) => read_id(v)
                .map(Some)
                .ok_or_else(|| format!("{what} `{v}` is neither hex nor base64")),
        }
    };
    let span_id = id(ATTR_SPAN, &s.span_id, "spanId")?.ok_or("span has no spanId")?;
    let trace_id = id(ATTR_TRACE, &s.trace_id, "traceId")?
        .ok_or_else(|| format!("span {span_id} has no traceId"))?;
    let parent_id = id(ATTR_PARENT, &s.parent_span_id, "parentSpanId")?;
    let timestamp_us = s
        .start
        .as_ref()
        .map_or(0, |Nanos(n)| u64::try_from(n / 1000).unwrap_or(u64::MAX));
    Ok(SpanRecord {
        trace_id,
        span_id,
        parent_id,
        service: service.to_string(),
        operation: s.name.as_deref().unwrap_or_default().to_string(),
        caller: None,
        timestamp_us,
    })
}

/// Appends `records` grouped by trace id, groups in order of first appearance, stable inside.
fn records_by_trace(records: Vec<SpanRecord>, out: &mut VecDeque<SpanRecord>) {
    let contiguous = records
        .windows(2)
        .filter(|w| w[0].trace_id != w[1].trace_id)
        .count()
        + 1;
    let mut first_seen: HashMap<&str, usize> = HashMap::new();
    for r in &records {
        let n = first_seen.len();
        first_seen.entry(r.trace_id.as_str()).or_insert(n);
    }
    if first_seen.len() >= contiguous {
        out.extend(records);
        return;
    }
    let mut keyed: Vec<(usize, SpanRecord)> = records
        .iter()
        .map(|r| first_seen[r.trace_id.as_str()])
        .zip(records.iter().cloned())
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    out.extend(keyed.into_iter().map(|(_, r)| r));
}

type Document<R> = JsonScanner<std::io::Chain<Cursor<Vec<u8>>, R>>;

enum Mode<R> {
    /// Nothing read yet.
    Detect(R),
    Lines(R),
    /// A whole document; `depth` says where the scanner is: 0 between top-level objects,
    /// 1 inside one (between keys), 2 inside its `resourceSpans` array.
    Document {
        scan: Document<R>,
        depth: u8,
        first: bool,
    },
    Done,
}

pub struct OtlpReader<R> {
    file: String,
    mode: Mode<R>,
    line: Vec<u8>,
    line_no: u64,
    element: Vec<u8>,
    key: Vec<u8>,
    queue: VecDeque<SpanRecord>,
}

impl<R: BufRead> OtlpReader<R> {
    pub fn new(file: String, input: R) -> Self {
        OtlpReader {
            file,
            mode: Mode::Detect(input),
            line: Vec::new(),
            line_no: 0,
            element: Vec::new(),
            key: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    fn io(&self, source: io::Error) -> FormatError {
        FormatError::Io {
            file: self.file.clone(),
            source,
        }
    }

    /// Reads the next non-blank line into `self.line`; `false` at the end.
    fn read_line(&mut self, input: &mut R) -> io::Result<bool> {
        loop {
            self.line.clear();
            if input.read_until(b'\n', &mut self.line)? == 0 {
                return Ok(false);
            }
            self.line_no += 1;
            if self.line_no == 1 && self.line.starts_with(b"\xEF\xBB\xBF") {
                self.line.drain(..3);
            }
            if !self.line.iter().all(u8::is_ascii_whitespace) {
                return Ok(true);
            }
        }
    }

    fn parse_line(&mut self, report: &mut ReadReport) {
        if let Ok(Request {
            resource_spans: Some(all),
        }) = serde_json::from_slice::<Request<Span>>(&self.line)
        {
            if let Some(records) = fast_records(all) {
                records_by_trace(records, &mut self.queue);
                return;
            }
        }
        match serde_json::from_slice::<Request<&RawValue>>(&self.line) {
            Ok(Request {
                resource_spans: Some(all),
            }) => {
                let records = raw_records(&all, &self.line, self.line_no, report);
                records_by_trace(records, &mut self.queue);
            }
            Ok(Request {
                resource_spans: None,
            }) => report.add_malformed(self.line_no, "object has no `resourceSpans`"),
            Err(e) => report.add_malformed(
                self.line_no,
                format!("line is not an OTLP JSON object: {e}"),
            ),
        }
    }

    fn fill_queue(&mut self, report: &mut ReadReport) -> Result<(), FormatError> {
        while self.queue.is_empty() {
            match std::mem::replace(&mut self.mode, Mode::Done) {
                Mode::Done => return Ok(()),
                Mode::Detect(mut input) => {
                    if !self.read_line(&mut input).map_err(|e| self.io(e))? {
                        return Ok(());
                    }
                    match serde_json::from_slice::<Request<&RawValue>>(&self.line) {
                        Err(e) if e.is_eof() => {
                            // Not complete on one line: one document, read from its first line on.
                            let start_line = self.line_no;
                            let head = Cursor::new(std::mem::take(&mut self.line));
                            // Scanner line 1 is file line `start_line` (blank lines came before).
                            let scan = JsonScanner::new(head.chain(input));
                            self.line_no = start_line;
                            self.mode = Mode::Document {
                                scan,
                                depth: 0,
                                first: true,
                            };
                        }
                        _ => {
                            self.parse_line(report);
                            self.mode = Mode::Lines(input);
                        }
                    }
                }
                Mode::Lines(mut input) => {
                    if self.read_line(&mut input).map_err(|e| self.io(e))? {
                        self.parse_line(report);
                        self.mode = Mode::Lines(input);
                    }
                }
                Mode::Document {
                    mut scan,
                    mut depth,
                    mut first,
                } => {
                    let offset = self.line_no.saturating_sub(1);
                    match self.document_step(&mut scan, &mut depth, &mut first, offset, report) {
                        Ok(true) => self.mode = Mode::Document { scan, depth, first },
                        Ok(false) => {}
                        Err(outcome) => {
                            let line = scan.line() + offset;
                            let outcome = match outcome {
                                ScanOutcome::Scan(ScanError::Syntax { line, message }) => {
                                    ScanOutcome::Scan(ScanError::Syntax {
                                        line: line + offset,
                                        message,
                                    })
                                }
                                other => other,
                            };
                            settle(outcome, &self.file, line, report)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// One step through a whole document; `false` at its end. `offset` turns scanner lines
    /// into file lines.
    fn document_step(
        &mut self,
        scan: &mut Document<R>,
        depth: &mut u8,
        first: &mut bool,
        offset: u64,
        report: &mut ReadReport,
    ) -> Result<bool, ScanOutcome> {
        match *depth {
            0 => match scan.peek().map_err(ScanError::Io)? {
                None => return Ok(false),
                Some(b'{') => {
                    scan.bump();
                    *depth = 1;
                    *first = true;
                }
                Some(_) => {
                    return Err(ScanOutcome::Shape(
                        "expected OTLP JSON objects with a `resourceSpans` array",
                    ))
                }
            },
            1 => {
                if !scan.next_key(first, &mut self.key)? {
                    *depth = 0;
                } else if self.key == b"\"resourceSpans\"" {
                    if scan.peek().map_err(ScanError::Io)? != Some(b'[') {
                        return Err(ScanOutcome::Shape("`resourceSpans` must be an array"));
                    }
                    scan.bump();
                    *depth = 2;
                    *first = true;
                } else {
                    scan.skip()?;
                }
            }
            _ => match scan.next_element(first)? {
                None => {
                    // Back between the keys of the enclosing object.
                    *depth = 1;
                    *first = false;
                }
                Some(b) => {
                    let line = scan.line() + offset;
                    scan.capture(&mut self.element)?;
                    if b != b'{' {
                        report.add_malformed(line, "expected a resourceSpans object");
                        return Ok(true);
                    }
                    if let Some(records) =
                        serde_json::from_slice::<ResourceSpans<Span>>(&self.element)
                            .ok()
                            .and_then(|rs| fast_records(vec![rs]))
                    {
                        records_by_trace(records, &mut self.queue);
                        return Ok(true);
                    }
                    match serde_json::from_slice::<ResourceSpans<&RawValue>>(&self.element) {
                        Ok(rs) => {
                            let records =
                                raw_records(std::slice::from_ref(&rs), &self.element, line, report);
                            records_by_trace(records, &mut self.queue);
                        }
                        Err(e) => report.add_malformed(
                            line + e.line().saturating_sub(1) as u64,
                            format!("resourceSpans: {e}"),
                        ),
                    }
                }
            },
        }
        Ok(true)
    }
}

impl<R: BufRead> ReadSpans for OtlpReader<R> {
    fn next_span(
        &mut self,
        span: &mut SpanRecord,
        report: &mut ReadReport,
    ) -> Result<bool, FormatError> {
        self.fill_queue(report)?;
        Ok(pop_queued(&mut self.queue, span))
    }
}

/// Whether `id` can be written as an OTLP id of `width` hex digits unchanged.
fn is_canonical(id: &str, width: usize) -> bool {
    id.len() == width && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// FNV-1a, 64 bits, with a seed: stable across runs and platforms (ids must not depend on them).
fn fnv64(seed: u64, s: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for b in s.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The id to write for `id`, and whether the original must be kept in an attribute.
fn write_id(id: &str, width: usize) -> (String, bool) {
    if is_canonical(id, width) {
        return (id.to_string(), false);
    }
    let hex = if width == TRACE_ID_HEX {
        format!("{:016x}{:016x}", fnv64(1, id), fnv64(2, id))
    } else {
        format!("{:016x}", fnv64(3, id))
    };
    (hex, true)
}

/// Writes one line per trace, one `resourceSpans` entry per run of consecutive spans of one
/// service (so the spans' order survives); no buffering.
#[derive(Default)]
pub struct OtlpWriter {
    trace_id: Option<String>,
    service: Option<String>,
    first_span: bool,
    line: Vec<u8>,
}

impl OtlpWriter {
    pub fn write<W: Write>(&mut self, out: &mut W, span: &SpanRecord) -> io::Result<()> {
        self.line.clear();
        if self.trace_id.as_deref().is_some_and(|t| t != span.trace_id) {
            self.close_line();
        }
        if self.trace_id.is_none() {
            self.trace_id = Some(span.trace_id.clone());
            self.line.extend_from_slice(b"{\"resourceSpans\":[");
        } else if self.service.as_deref() != Some(span.service.as_str()) {
            self.close_resource();
            self.line.push(b',');
        }
        if self.service.is_none() {
            self.open_resource(&span.service);
        }
        let l = &mut self.line;
        if !self.first_span {
            l.push(b',');
        }
        self.first_span = false;
        let (trace_id, keep_trace) = write_id(&span.trace_id, TRACE_ID_HEX);
        let (span_id, keep_span) = write_id(&span.span_id, SPAN_ID_HEX);
        l.extend_from_slice(b"{\"traceId\":\"");
        l.extend_from_slice(trace_id.as_bytes());
        l.extend_from_slice(b"\",\"spanId\":\"");
        l.extend_from_slice(span_id.as_bytes());
        l.push(b'"');
        let mut keep_parent = false;
        let parent = span.parent_id.as_ref().filter(|p| !p.is_empty());
        if let Some(parent) = parent {
            let (parent_id, keep) = write_id(parent, SPAN_ID_HEX);
            keep_parent = keep;
            l.extend_from_slice(b",\"parentSpanId\":\"");
            l.extend_from_slice(parent_id.as_bytes());
            l.push(b'"');
        }
        l.extend_from_slice(b",\"name\":");
        push_json_str(l, &span.operation);
        let nanos = u128::from(span.timestamp_us) * 1000;
        l.extend_from_slice(
            format!(
                ",\"kind\":2,\"startTimeUnixNano\":\"{nanos}\",\"endTimeUnixNano\":\"{nanos}\""
            )
            .as_bytes(),
        );
        let originals = [
            (keep_trace, ATTR_TRACE, Some(&span.trace_id)),
            (keep_span, ATTR_SPAN, Some(&span.span_id)),
            (keep_parent, ATTR_PARENT, parent),
        ];
        let mut first_attr = true;
        for (keep, key, value) in originals {
            let Some(value) = value.filter(|_| keep) else {
                continue;
            };
            l.extend_from_slice(if first_attr {
                b",\"attributes\":["
            } else {
                b","
            });
            first_attr = false;
            l.extend_from_slice(
                format!("{{\"key\":\"{key}\",\"value\":{{\"stringValue\":").as_bytes(),
            );
            push_json_str(l, value);
            l.extend_from_slice(b"}}");
        }
        if !first_attr {
            l.push(b']');
        }
        l.push(b'}');
        out.write_all(&self.line)
    }

    fn open_resource(&mut self, service: &str) {
        self.line.extend_from_slice(
            b"{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":",
        );
        push_json_str(&mut self.line, service);
        self.line
            .extend_from_slice(b"}}]},\"scopeSpans\":[{\"scope\":{\"name\":\"rigor\"},\"spans\":[");
        self.service = Some(service.to_string());
        self.first_span = true;
    }

    fn close_resource(&mut self) {
        self.line.extend_from_slice(b"]}]}");
        self.service = None;
    }

    fn close_line(&mut self) {
        self.close_resource();
        self.line.extend_from_slice(b"]}\n");
        self.trace_id = None;
    }

    pub fn finish<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.line.clear();
        if self.trace_id.is_some() {
            self.close_line();
        }
        out.write_all(&self.line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_from_hex_or_base64() {
        assert_eq!(
            read_id("5B8EFFF798038103D269B633813FC60C").as_deref(),
            Some("5b8efff798038103d269b633813fc60c")
        );
        // base64 of bytes 0x5b 0x8e ... (the protobuf JSON mapping of `bytes`).
        assert_eq!(
            read_id("W47/95gDgQPSabYzgT/GDA==").as_deref(),
            Some("5b8efff798038103d269b633813fc60c")
        );
        assert_eq!(read_id("7/8="), Some("efff".to_string()));
        assert_eq!(read_id("not base64!"), None);
        assert_eq!(
            write_id("00f067aa0ba902b7", SPAN_ID_HEX),
            ("00f067aa0ba902b7".to_string(), false)
        );
        let (hex, keep) = write_id("span-1", SPAN_ID_HEX);
        assert!(keep && is_canonical(&hex, SPAN_ID_HEX));
    }
}
