//! What every trace-format target checks (shared by `trace_*.rs`, which only pick the format).
//!
//! 1. Any bytes read span by span give spans, malformed-record reports or an error; never a panic,
//!    and the report counts exactly the spans returned.
//! 2. Read trace by trace, the same bytes give the same spans, in maximal runs of one trace id
//!    (a prefix of them when reading stops with an error).
//! 3. Each trace is mined; the documented bounds of the supports hold (`supp(i→j) ≤ supp(i)`,
//!    SDM weights in `(0, 1]`).
//! 4. Round trip: the spans read, written in the same format, read back without malformed
//!    records and equal to them, except for what the format cannot carry (see the `formats`
//!    module doc): the CSV log's `caller` is the parent's service within the trace run (the
//!    record's own caller for an orphan, none for a root); the JSON formats have no `caller`.

use rigor_rts::formats::{read_all, write_all, Format, TraceReader};
use rigor_rts::mine::{Miner, Threshold};
use rigor_rts::record::SpanRecord;

pub fn check(format: Format, data: &[u8]) {
    // 1. Span by span.
    let mut reader = TraceReader::new(format, "fuzz", data);
    let mut spans = Vec::new();
    let mut span = SpanRecord::default();
    let complete = loop {
        match reader.next_span(&mut span) {
            Ok(true) => spans.push(span.clone()),
            Ok(false) => break true,
            Err(e) => {
                let _ = e.to_string();
                break false;
            }
        }
    };
    let report = reader.into_report();
    let _ = report.to_string();
    assert_eq!(report.records, spans.len() as u64);
    assert!(report.malformed.len() as u64 <= report.malformed_count);
    for s in &spans {
        assert!(!s.trace_id.is_empty() && !s.span_id.is_empty(), "{s:?}");
        assert!(!s.service.is_empty(), "{s:?}");
        assert_ne!(s.parent_id.as_deref(), Some(""), "{s:?}");
    }

    // 2 and 3. Trace by trace, mined.
    let mut reader = TraceReader::new(format, "fuzz", data);
    let mut miner = Miner::new();
    let mut grouped: Vec<SpanRecord> = Vec::new();
    let mut last_trace: Option<String> = None;
    loop {
        match reader.next_trace() {
            Ok(Some(trace)) => {
                assert!(!trace.is_empty());
                assert!(trace.iter().all(|s| s.trace_id == trace[0].trace_id));
                assert_ne!(last_trace.as_deref(), Some(trace[0].trace_id.as_str()), "runs are maximal");
                last_trace = Some(trace[0].trace_id.clone());
                miner.add_trace(trace);
                grouped.extend_from_slice(trace);
            }
            Ok(None) => {
                assert!(complete, "next_trace ended where next_span failed");
                assert_eq!(grouped, spans);
                break;
            }
            Err(_) => {
                assert!(!complete, "next_trace failed where next_span did not");
                assert!(grouped.len() <= spans.len() && grouped[..] == spans[..grouped.len()]);
                break;
            }
        }
    }
    let supports = miner.finish();
    assert_eq!(supports.spans, grouped.len() as u64);
    for (from, to, counts) in supports.pairs() {
        assert!(counts.support <= supports.support(from), "supp({from}→{to}) > supp({from})");
    }
    let sdm = supports.sdm(Threshold::default());
    for (_, _, w) in sdm.entries() {
        assert!(w > 0.0 && w <= 1.0, "SDM weight {w}");
    }
    let _ = supports.c_sweep(10);

    // 4. Round trip.
    let bytes = write_all(format, &spans).expect("writing to memory");
    let (back, report) = match read_all(format, "fuzz.out", &bytes[..]) {
        Ok(r) => r,
        Err(e) => panic!("written {format} does not read: {e}\n{}", String::from_utf8_lossy(&bytes)),
    };
    assert_eq!(report.malformed_count, 0, "{report}\n{}", String::from_utf8_lossy(&bytes));
    assert_eq!(back, expected(format, &spans), "{}", String::from_utf8_lossy(&bytes));
}

/// What `format` gives back for `written` spans.
fn expected(format: Format, written: &[SpanRecord]) -> Vec<SpanRecord> {
    let mut out = written.to_vec();
    if format != Format::Csv {
        for s in &mut out {
            s.caller = None;
        }
        return out;
    }
    let mut start = 0;
    while start < written.len() {
        let trace_id = &written[start].trace_id;
        let len = written[start..].iter().position(|s| s.trace_id != *trace_id).unwrap_or(written.len() - start);
        let run = &written[start..start + len];
        for (k, s) in run.iter().enumerate() {
            let e = &mut out[start + k];
            e.operation.clear();
            e.caller = s.parent_id.as_ref().and_then(|p| {
                run.iter().find(|o| o.span_id == *p).map(|o| o.service.clone()).or_else(|| s.caller.clone())
            });
        }
        start += len;
    }
    out
}
