//! Zipkin v2 JSON: an array of spans (what `/api/v2/trace/{id}` returns), or an array of traces
//! each an array of spans (what `/api/v2/traces` returns).
//!
//! A span's service is `localEndpoint.serviceName`. Zipkin's shared spans — a CLIENT span and a
//! SERVER span of one call with the same id — become one record whose service is the server
//! side's (the callee); merging happens within a run of spans with one trace id, so the two
//! halves must be in the same trace run (they always are in Zipkin's own output).

use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, Write};

use serde::Deserialize;

use super::json_scan::{settle, JsonScanner, ScanError, ScanOutcome};
use super::{pop_queued, push_json_str, set_opt, FormatError, ReadReport, ReadSpans, Text};
use crate::record::SpanRecord;

#[derive(Deserialize)]
struct Span<'a> {
    #[serde(rename = "traceId", borrow, default)]
    trace_id: Text<'a>,
    #[serde(borrow, default)]
    id: Text<'a>,
    #[serde(rename = "parentId", borrow, default)]
    parent_id: Text<'a>,
    #[serde(borrow, default)]
    name: Text<'a>,
    #[serde(default)]
    timestamp: Option<u64>,
    #[serde(borrow, default)]
    kind: Text<'a>,
    #[serde(rename = "localEndpoint", borrow, default)]
    local_endpoint: Option<Endpoint<'a>>,
}

#[derive(Deserialize)]
struct Endpoint<'a> {
    #[serde(rename = "serviceName", borrow, default)]
    service_name: Text<'a>,
}

enum State {
    Start,
    /// In the top-level array.
    Outer {
        first: bool,
    },
    /// In a trace array inside the top-level array.
    Inner {
        first: bool,
    },
    Done,
}

/// The current trace run: records in order, whether each is a server span, and ids seen.
#[derive(Default)]
struct Run {
    spans: Vec<(SpanRecord, bool)>,
    ids: HashMap<String, usize>,
}

pub struct ZipkinReader<R> {
    file: String,
    scan: JsonScanner<R>,
    state: State,
    element: Vec<u8>,
    run: Run,
    queue: VecDeque<SpanRecord>,
}

impl<R: BufRead> ZipkinReader<R> {
    pub fn new(file: String, input: R) -> Self {
        ZipkinReader {
            file,
            scan: JsonScanner::new(input),
            state: State::Start,
            element: Vec::new(),
            run: Run::default(),
            queue: VecDeque::new(),
        }
    }

    fn fill_queue(&mut self, report: &mut ReadReport) -> Result<(), ScanOutcome> {
        while self.queue.is_empty() {
            let inner = matches!(self.state, State::Inner { .. });
            let first = match &mut self.state {
                State::Done => {
                    self.flush_run();
                    return Ok(());
                }
                State::Start => {
                    match self.scan.peek().map_err(ScanError::Io)? {
                        None => self.state = State::Done,
                        Some(b'[') => {
                            self.scan.bump();
                            self.state = State::Outer { first: true };
                        }
                        Some(_) => {
                            return Err(ScanOutcome::Shape(
                                "expected a Zipkin v2 JSON array of spans",
                            ))
                        }
                    }
                    continue;
                }
                State::Outer { first } | State::Inner { first } => first,
            };
            match self.scan.next_element(first)? {
                None if inner => self.state = State::Outer { first: false },
                None => self.state = State::Done,
                Some(b'[') if !inner => {
                    self.scan.bump();
                    self.state = State::Inner { first: true };
                }
                Some(b'{') => {
                    let line = self.scan.line();
                    self.scan.capture(&mut self.element)?;
                    match parse_span(&self.element) {
                        Ok(span) => self.add(span),
                        Err(message) => report.add_malformed(line, message),
                    }
                }
                Some(_) => {
                    let line = self.scan.line();
                    self.scan.skip()?;
                    report.add_malformed(line, "expected a span object");
                }
            }
        }
        Ok(())
    }

    fn add(&mut self, (span, server): (SpanRecord, bool)) {
        if self
            .run
            .spans
            .first()
            .is_some_and(|(s, _)| s.trace_id != span.trace_id)
        {
            self.flush_run();
        }
        match self.run.ids.get(&span.span_id) {
            Some(&i) => {
                // The other half of a shared span: the server side names the callee.
                let (kept, kept_server) = &mut self.run.spans[i];
                if server && !*kept_server {
                    kept.service = span.service;
                    if !span.operation.is_empty() {
                        kept.operation = span.operation;
                    }
                    if kept.parent_id.is_none() {
                        kept.parent_id = span.parent_id;
                    }
                    *kept_server = true;
                }
            }
            None => {
                self.run
                    .ids
                    .insert(span.span_id.clone(), self.run.spans.len());
                self.run.spans.push((span, server));
            }
        }
    }

    fn flush_run(&mut self) {
        self.queue.extend(self.run.spans.drain(..).map(|(s, _)| s));
        self.run.ids.clear();
    }
}

impl<R: BufRead> ReadSpans for ZipkinReader<R> {
    fn next_span(
        &mut self,
        span: &mut SpanRecord,
        report: &mut ReadReport,
    ) -> Result<bool, FormatError> {
        if let Err(outcome) = self.fill_queue(report) {
            self.state = State::Done;
            self.flush_run();
            settle(outcome, &self.file, self.scan.line(), report)?;
        }
        Ok(pop_queued(&mut self.queue, span))
    }
}

/// One span object, with whether it is the SERVER side.
fn parse_span(buf: &[u8]) -> Result<(SpanRecord, bool), String> {
    let s: Span = serde_json::from_slice(buf).map_err(|e| format!("span: {e}"))?;
    let nonempty = |v: &Text| v.nonempty().map(str::to_string);
    let span_id = nonempty(&s.id).ok_or("span has no id")?;
    let trace_id = nonempty(&s.trace_id).ok_or_else(|| format!("span {span_id} has no traceId"))?;
    let service = s
        .local_endpoint
        .as_ref()
        .and_then(|e| e.service_name.as_deref())
        .filter(|n| !n.is_empty())
        .ok_or_else(|| format!("span {span_id} has no localEndpoint.serviceName"))?
        .to_string();
    let mut parent_id = None;
    set_opt(&mut parent_id, s.parent_id.as_deref());
    let server = s.kind.as_deref() == Some("SERVER");
    let record = SpanRecord {
        trace_id,
        span_id,
        parent_id,
        service,
        operation: s.name.into_string(),
        caller: None,
        timestamp_us: s.timestamp.unwrap_or(0),
    };
    Ok((record, server))
}

/// Writes one array, one SERVER span per line; no buffering.
#[derive(Default)]
pub struct ZipkinWriter {
    started: bool,
    line: Vec<u8>,
}

impl ZipkinWriter {
    pub fn write<W: Write>(&mut self, out: &mut W, span: &SpanRecord) -> io::Result<()> {
        let l = &mut self.line;
        l.clear();
        l.extend_from_slice(if self.started { b",\n" } else { b"[\n" });
        self.started = true;
        l.extend_from_slice(b"{\"traceId\":");
        push_json_str(l, &span.trace_id);
        l.extend_from_slice(b",\"id\":");
        push_json_str(l, &span.span_id);
        if let Some(parent) = &span.parent_id {
            l.extend_from_slice(b",\"parentId\":");
            push_json_str(l, parent);
        }
        l.extend_from_slice(b",\"name\":");
        push_json_str(l, &span.operation);
        l.extend_from_slice(
            format!(
                ",\"timestamp\":{},\"kind\":\"SERVER\",\"localEndpoint\":{{\"serviceName\":",
                span.timestamp_us
            )
            .as_bytes(),
        );
        push_json_str(l, &span.service);
        l.extend_from_slice(b"}}");
        out.write_all(l)
    }

    pub fn finish<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        out.write_all(if self.started { b"\n]\n" } else { b"[]\n" })
    }
}
