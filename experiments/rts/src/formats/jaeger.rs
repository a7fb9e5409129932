//! Jaeger's JSON export: `{"data":[trace, ...]}` (a bare array of traces is accepted too), each
//! trace `{"traceID", "spans":[...], "processes":{"p1":{"serviceName"}}}`.
//!
//! A span's parent is its first `CHILD_OF` reference (else its first `FOLLOWS_FROM`, else a
//! legacy `parentSpanID`); its service is `processes[processID].serviceName` (or an embedded
//! `process`). Each trace is parsed alone; a span that cannot be used is reported with its line.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::io::{self, BufRead, Write};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::json_scan::{line_of, settle, JsonScanner, ScanError, ScanOutcome};
use super::{pop_queued, push_json_str, set_opt, set_str, FormatError, ReadReport, ReadSpans, Text};
use crate::record::SpanRecord;

/// A trace with its spans parsed as `S`: [`Span`] on the fast path, or raw text when a trace
/// must be taken apart span by span to report the bad ones with their lines.
#[derive(Deserialize)]
#[serde(bound(deserialize = "S: Deserialize<'de>"))]
struct Trace<'a, S> {
    #[serde(rename = "traceID", borrow, default)]
    trace_id: Text<'a>,
    #[serde(default = "Vec::new")]
    spans: Vec<S>,
    #[serde(borrow, default)]
    processes: HashMap<Cow<'a, str>, Process<'a>>,
}

#[derive(Deserialize)]
struct Process<'a> {
    #[serde(rename = "serviceName", borrow, default)]
    service_name: Text<'a>,
}

#[derive(Deserialize)]
struct Span<'a> {
    #[serde(rename = "traceID", borrow, default)]
    trace_id: Text<'a>,
    #[serde(rename = "spanID", borrow, default)]
    span_id: Text<'a>,
    #[serde(rename = "operationName", borrow, default)]
    operation: Text<'a>,
    #[serde(borrow, default)]
    references: Option<Vec<Reference<'a>>>,
    #[serde(rename = "parentSpanID", borrow, default)]
    parent_span_id: Text<'a>,
    #[serde(rename = "startTime", default)]
    start_time: Option<u64>,
    #[serde(rename = "processID", borrow, default)]
    process_id: Text<'a>,
    #[serde(borrow, default)]
    process: Option<Process<'a>>,
}

#[derive(Deserialize)]
struct Reference<'a> {
    #[serde(rename = "refType", borrow, default)]
    ref_type: Text<'a>,
    #[serde(rename = "spanID", borrow, default)]
    span_id: Text<'a>,
}

enum State {
    Start,
    /// Inside the traces array.
    Traces {
        first: bool,
    },
    Done,
}

pub struct JaegerReader<R> {
    file: String,
    scan: JsonScanner<R>,
    state: State,
    element: Vec<u8>,
    key: Vec<u8>,
    queue: VecDeque<SpanRecord>,
}

impl<R: BufRead> JaegerReader<R> {
    pub fn new(file: String, input: R) -> Self {
        JaegerReader {
            file,
            scan: JsonScanner::new(input),
            state: State::Start,
            element: Vec::new(),
            key: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    /// Finds the traces array: the value of the top-level `data` key, or the top level itself.
    fn start(&mut self) -> Result<(), ScanOutcome> {
        match self.scan.peek().map_err(ScanError::Io)? {
            None => self.state = State::Done,
            Some(b'[') => {
                self.scan.bump();
                self.state = State::Traces { first: true };
            }
            Some(b'{') => {
                self.scan.bump();
                let mut first = true;
                loop {
                    if !self.scan.next_key(&mut first, &mut self.key)? {
                        return Err(ScanOutcome::Shape(
                            "the top-level object has no `data` array",
                        ));
                    }
                    if self.key == b"\"data\"" {
                        if self.scan.peek().map_err(ScanError::Io)? != Some(b'[') {
                            return Err(ScanOutcome::Shape("`data` must be an array of traces"));
                        }
                        self.scan.bump();
                        self.state = State::Traces { first: true };
                        return Ok(());
                    }
                    self.scan.skip()?;
                }
            }
            Some(_) => {
                return Err(ScanOutcome::Shape(
                    "expected a Jaeger export: an object with a `data` array of traces",
                ))
            }
        }
        Ok(())
    }

    /// Reads traces until some spans are queued or the array ends.
    fn fill_queue(&mut self, report: &mut ReadReport) -> Result<(), ScanOutcome> {
        while self.queue.is_empty() {
            match &mut self.state {
                State::Start => self.start()?,
                State::Done => return Ok(()),
                State::Traces { first } => match self.scan.next_element(first)? {
                    None => self.state = State::Done,
                    Some(b) => {
                        let line = self.scan.line();
                        if b != b'{' {
                            self.scan.skip()?;
                            report.add_malformed(line, "expected a trace object");
                            continue;
                        }
                        self.scan.capture(&mut self.element)?;
                        parse_trace(&self.element, line, &mut self.queue, report);
                    }
                },
            }
        }
        Ok(())
    }
}

impl<R: BufRead> ReadSpans for JaegerReader<R> {
    fn next_span(
        &mut self,
        span: &mut SpanRecord,
        report: &mut ReadReport,
    ) -> Result<bool, FormatError> {
        if let Err(outcome) = self.fill_queue(report) {
            self.state = State::Done;
            settle(outcome, &self.file, self.scan.line(), report)?;
        }
        Ok(pop_queued(&mut self.queue, span))
    }
}

/// Parses one trace element. The fast path parses it once; only when some span is bad is it
/// parsed again span by span, to name each bad span's line.
fn parse_trace(buf: &[u8], line: u64, queue: &mut VecDeque<SpanRecord>, report: &mut ReadReport) {
    if let Ok(trace) = serde_json::from_slice::<Trace<Span>>(buf) {
        let before = queue.len();
        let all_good = trace.spans.into_iter().try_for_each(|s| {
            to_record(s, &trace.trace_id, &trace.processes).map(|r| queue.push_back(r))
        });
        if all_good.is_ok() {
            return;
        }
        queue.truncate(before);
    }
    let trace: Trace<&RawValue> = match serde_json::from_slice(buf) {
        Ok(t) => t,
        Err(e) => {
            report.add_malformed(
                line + e.line().saturating_sub(1) as u64,
                format!("trace: {e}"),
            );
            return;
        }
    };
    for raw in trace.spans {
        let span_line = line_of(buf, line, raw.get());
        let record = serde_json::from_str(raw.get())
            .map_err(|e| format!("span: {e}"))
            .and_then(|s| to_record(s, &trace.trace_id, &trace.processes));
        match record {
            Ok(r) => queue.push_back(r),
            Err(message) => report.add_malformed(span_line, message),
        }
    }
}

fn to_record(
    s: Span,
    trace_id: &Text,
    processes: &HashMap<Cow<str>, Process>,
) -> Result<SpanRecord, String> {
    let span_id = s
        .span_id
        .nonempty()
        .ok_or("span has no spanID")?
        .to_string();
    let trace_id = s
        .trace_id
        .nonempty()
        .or(trace_id.nonempty())
        .ok_or_else(|| format!("span {span_id} has no traceID"))?
        .to_string();
    let service = match (s.process_id.as_deref(), &s.process) {
        (_, Some(p)) if p.service_name.nonempty().is_some() => {
            p.service_name.as_deref().unwrap_or_default().to_string()
        }
        (Some(pid), _) => match processes.get(pid).and_then(|p| p.service_name.nonempty()) {
            Some(name) => name.to_string(),
            None => {
                return Err(format!(
                    "span {span_id}: process `{pid}` has no serviceName in `processes`"
                ))
            }
        },
        (None, _) => return Err(format!("span {span_id} has no processID")),
    };
    let refs = s.references.unwrap_or_default();
    let parent = ["CHILD_OF", "FOLLOWS_FROM"]
        .iter()
        .find_map(|kind| {
            refs.iter()
                .find(|r| r.ref_type.as_deref() == Some(kind))
                .and_then(|r| r.span_id.as_deref())
        })
        .or(s.parent_span_id.as_deref().filter(|p| *p != "0"));
    let mut parent_id = None;
    set_opt(&mut parent_id, parent);
    Ok(SpanRecord {
        trace_id,
        span_id,
        parent_id,
        service,
        operation: s.operation.into_string(),
        caller: None,
        timestamp_us: s.start_time.unwrap_or(0),
    })
}

/// Writes one `data` element per trace, one span per line, the trace's `processes` after its
/// spans (process ids `p1, p2, ...` by first appearance in the trace).
#[derive(Default)]
pub struct JaegerWriter {
    started: bool,
    trace_id: String,
    in_trace: bool,
    processes: Vec<String>,
    line: Vec<u8>,
}

impl JaegerWriter {
    pub fn write<W: Write>(&mut self, out: &mut W, span: &SpanRecord) -> io::Result<()> {
        self.line.clear();
        if !self.started {
            self.line.extend_from_slice(b"{\"data\":[\n");
            self.started = true;
        }
        if self.in_trace && self.trace_id != span.trace_id {
            self.close_trace();
            self.line.extend_from_slice(b",\n");
        }
        if !self.in_trace {
            self.in_trace = true;
            set_str(&mut self.trace_id, &span.trace_id);
            self.processes.clear();
            self.line.extend_from_slice(b"{\"traceID\":");
            push_json_str(&mut self.line, &span.trace_id);
            self.line.extend_from_slice(b",\"spans\":[\n");
        } else {
            self.line.extend_from_slice(b",\n");
        }
        let pid = match self.processes.iter().position(|s| *s == span.service) {
            Some(i) => i + 1,
            None => {
                self.processes.push(span.service.clone());
                self.processes.len()
            }
        };
        let l = &mut self.line;
        l.extend_from_slice(b"{\"traceID\":");
        push_json_str(l, &span.trace_id);
        l.extend_from_slice(b",\"spanID\":");
        push_json_str(l, &span.span_id);
        l.extend_from_slice(b",\"operationName\":");
        push_json_str(l, &span.operation);
        l.extend_from_slice(b",\"references\":[");
        if let Some(parent) = &span.parent_id {
            l.extend_from_slice(b"{\"refType\":\"CHILD_OF\",\"traceID\":");
            push_json_str(l, &span.trace_id);
            l.extend_from_slice(b",\"spanID\":");
            push_json_str(l, parent);
            l.push(b'}');
        }
        l.extend_from_slice(format!("],\"startTime\":{},\"duration\":0,\"tags\":[],\"logs\":[],\"processID\":\"p{pid}\"}}", span.timestamp_us).as_bytes());
        out.write_all(&self.line)
    }

    fn close_trace(&mut self) {
        self.line.extend_from_slice(b"\n],\"processes\":{");
        for (i, service) in self.processes.iter().enumerate() {
            if i > 0 {
                self.line.push(b',');
            }
            self.line
                .extend_from_slice(format!("\"p{}\":{{\"serviceName\":", i + 1).as_bytes());
            push_json_str(&mut self.line, service);
            self.line.extend_from_slice(b",\"tags\":[]}");
        }
        self.line.extend_from_slice(b"}}");
        self.in_trace = false;
    }

    pub fn finish<W: Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.line.clear();
        if !self.started {
            self.line.extend_from_slice(b"{\"data\":[\n");
            self.started = true;
        }
        if self.in_trace {
            self.close_trace();
        }
        self.line.extend_from_slice(b"\n]}\n");
        out.write_all(&self.line)
    }
}
