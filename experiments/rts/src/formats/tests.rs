use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::edges::span;

fn read(format: Format, text: &str) -> (Vec<SpanRecord>, ReadReport) {
    read_all(format, "f", text.as_bytes()).unwrap()
}

fn ids(spans: &[SpanRecord]) -> Vec<&str> {
    spans.iter().map(|s| s.span_id.as_str()).collect()
}

/// What a format gives back for what was written (see the module doc).
fn expected(format: Format, written: &[SpanRecord]) -> Vec<SpanRecord> {
    written
        .iter()
        .map(|s| {
            let mut e = s.clone();
            e.caller = None;
            if format == Format::Csv {
                e.operation.clear();
                e.caller = s
                    .parent_id
                    .as_ref()
                    .and_then(|p| {
                        written
                            .iter()
                            .find(|o| o.trace_id == s.trace_id && &o.span_id == p)
                    })
                    .map(|o| o.service.clone());
            }
            e
        })
        .collect()
}

fn id_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[0-9a-f]{16}",
        "[0-9a-f]{32}",
        "[A-Za-z0-9 ,\"\\\\\n{}\\[\\]:é-]{1,12}"
    ]
}

/// Traces with unique span ids, parents anywhere in the trace (before or after), missing, or none.
fn traces() -> impl Strategy<Value = Vec<SpanRecord>> {
    let span = (
        id_text(),
        "[a-z][a-z0-9-]{0,8}",
        ".{0,10}",
        any::<u64>(),
        0usize..4,
        any::<prop::sample::Index>(),
    );
    prop::collection::vec((id_text(), prop::collection::vec(span, 1..6)), 0..5).prop_map(|traces| {
        let mut out = Vec::new();
        for (t, (trace, spans)) in traces.into_iter().enumerate() {
            let trace_id = format!("{t}{trace}");
            let n = spans.len();
            let span_ids: Vec<String> = spans
                .iter()
                .enumerate()
                .map(|(i, s)| format!("{i}{}", s.0))
                .collect();
            for (i, (_, service, operation, ts, parent_kind, parent)) in
                spans.into_iter().enumerate()
            {
                let parent_id = match parent_kind {
                    0 => None,
                    1 => Some(format!("missing{i}")),
                    _ => Some(span_ids[parent.index(n)].clone()),
                };
                out.push(SpanRecord {
                    trace_id: trace_id.clone(),
                    span_id: span_ids[i].clone(),
                    parent_id,
                    service,
                    operation,
                    caller: None,
                    timestamp_us: ts,
                });
            }
        }
        out
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn every_format_round_trips(spans in traces()) {
        for format in Format::ALL {
            let bytes = write_all(format, &spans).unwrap();
            let (back, report) = read_all(format, "f", &bytes[..]).unwrap();
            prop_assert_eq!(report.malformed_count, 0, "{} {:?}", format, report.malformed);
            prop_assert_eq!(&back, &expected(format, &spans), "{}:\n{}", format, String::from_utf8_lossy(&bytes));
            prop_assert_eq!(report.records, spans.len() as u64);
        }
    }

    #[test]
    fn traces_group_runs_of_one_trace_id(spans in traces()) {
        for format in Format::ALL {
            let bytes = write_all(format, &spans).unwrap();
            let got: Vec<Vec<SpanRecord>> = TraceReader::new(format, "f", &bytes[..]).traces().collect::<Result<_, _>>().unwrap();
            let mut want: Vec<Vec<SpanRecord>> = Vec::new();
            for s in expected(format, &spans) {
                match want.last_mut() {
                    Some(t) if t[0].trace_id == s.trace_id => t.push(s),
                    _ => want.push(vec![s]),
                }
            }
            prop_assert_eq!(got, want);
        }
    }
}

#[test]
fn empty_inputs_read_as_empty_and_write_valid_documents() {
    for format in Format::ALL {
        let bytes = write_all(format, &[]).unwrap();
        let (spans, report) = read_all(format, "f", &bytes[..]).unwrap();
        assert!(spans.is_empty() && report.malformed_count == 0, "{format}");
        assert!(read_all(format, "f", &b""[..]).unwrap().0.is_empty());
    }
    assert_eq!(
        write_all(Format::Jaeger, &[]).unwrap(),
        b"{\"data\":[\n\n]}\n"
    );
}

#[test]
fn csv_rows_with_missing_fields_are_reported_by_line() {
    let text = "trace_id,span_id,parent_id,caller,callee,timestamp_us\n\
                t1,s1,,,gateway,10\n\
                t1,s2,s1,gateway,order\n\
                t1,s3,s1,gateway,,12\n\
                t1,s4,s1,gateway,stock,x\n\
                t1,s5,s1,gateway,cart,13\n";
    let (spans, report) = read(Format::Csv, text);
    assert_eq!(ids(&spans), ["s1", "s5"]);
    assert_eq!(spans[1].caller.as_deref(), Some("gateway"));
    assert_eq!(spans[1].parent_id.as_deref(), Some("s1"));
    assert_eq!(report.malformed_count, 3);
    let lines: Vec<u64> = report.malformed.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [3, 4, 5]);
    assert!(
        report.malformed[0].1.contains("expected 6 fields, found 5"),
        "{:?}",
        report.malformed
    );
    assert!(report.malformed[1].1.contains("callee"));
    assert!(report.to_string().contains("f:3: expected 6 fields"));
}

#[test]
fn csv_columns_are_found_by_name_and_a_bad_header_is_an_error() {
    let text = "callee,timestamp_us,trace_id,span_id,parent_id,caller,extra\nb,5,t,2,1,a,x\n";
    let (spans, _) = read(Format::Csv, text);
    assert_eq!(
        (
            spans[0].service.as_str(),
            spans[0].caller.as_deref(),
            spans[0].timestamp_us
        ),
        ("b", Some("a"), 5)
    );
    let err = read_all(Format::Csv, "log.csv", &b"a,b,c\n1,2,3\n"[..]).unwrap_err();
    assert!(matches!(err, FormatError::Shape { line: 1, .. }));
    assert!(err.to_string().starts_with("log.csv:1: header must name"));
}

#[test]
fn otlp_bad_json_line_is_reported_and_the_rest_read() {
    let spans = vec![
        span("t1", "a", None, "gw"),
        span("t2", "b", None, "gw"),
        span("t3", "c", None, "gw"),
    ];
    let text = String::from_utf8(write_all(Format::Otlp, &spans).unwrap()).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(1, "{\"resourceSpans\": [ {\"resource\": ");
    lines.insert(3, "");
    lines.insert(4, "{\"resourceSpans\":[{\"resource\":{\"attributes\":[]},\"scopeSpans\":[{\"spans\":[{\"traceId\":\"ab\"}]}]}]}");
    let (got, report) = read(Format::Otlp, &lines.join("\n"));
    assert_eq!(ids(&got), ["a", "b", "c"]);
    assert_eq!(report.malformed_count, 2);
    assert_eq!(report.malformed[0].0, 2);
    assert!(report.malformed[0].1.contains("not an OTLP JSON object"));
    assert_eq!(report.malformed[1].0, 5);
}

#[test]
fn otlp_whole_document_with_base64_ids_and_interleaved_traces() {
    // Pretty-printed, as a collector's file exporter or a test fixture would be; two services,
    // each batch holding spans of two traces; ids in base64 and uppercase hex.
    let text = r#"
{
  "resourceSpans": [
    {
      "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "frontend"}}]},
      "scopeSpans": [{"scope": {"name": "x"}, "spans": [
        {"traceId": "W47/95gDgQPSabYzgT/GDA==", "spanId": "AAAAAAAAAAE=", "name": "GET /", "startTimeUnixNano": "1000000"},
        {"traceId": "00000000000000000000000000000002", "spanId": "0000000000000003", "name": "GET /", "startTimeUnixNano": 2000}
      ]}]
    },
    {
      "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "cart"}}]},
      "scopeSpans": [{"spans": [
        {"traceId": "5B8EFFF798038103D269B633813FC60C", "spanId": "0000000000000002", "parentSpanId": "0000000000000001", "name": "add"},
        {"traceId": "00000000000000000000000000000002", "spanId": "0000000000000004", "parentSpanId": "0000000000000003"},
        {"spanId": "0000000000000009"}
      ]}]
    }
  ]
}
"#;
    let (spans, report) = read(Format::Otlp, text);
    assert_eq!(report.malformed_count, 1);
    assert_eq!(report.malformed[0].0, 16, "{:?}", report.malformed);
    let t1 = "5b8efff798038103d269b633813fc60c";
    let got: Vec<(&str, &str, Option<&str>, &str, u64)> = spans
        .iter()
        .map(|s| {
            (
                s.trace_id.as_str(),
                s.span_id.as_str(),
                s.parent_id.as_deref(),
                s.service.as_str(),
                s.timestamp_us,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (t1, "0000000000000001", None, "frontend", 1000),
            (
                "00000000000000000000000000000002",
                "0000000000000003",
                None,
                "frontend",
                2
            ),
            (t1, "0000000000000002", Some("0000000000000001"), "cart", 0),
            (
                "00000000000000000000000000000002",
                "0000000000000004",
                Some("0000000000000003"),
                "cart",
                0
            ),
        ]
    );
}

#[test]
fn otlp_lines_regroup_spans_by_trace() {
    let line = r#"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}}]},"scopeSpans":[{"spans":[{"traceId":"01","spanId":"01"},{"traceId":"02","spanId":"02"},{"traceId":"01","spanId":"03","parentSpanId":"01"}]}]}]}"#;
    let (spans, _) = read(Format::Otlp, line);
    assert_eq!(ids(&spans), ["01", "03", "02"]);
}

#[test]
fn zipkin_span_without_id_is_reported_and_shared_spans_merge() {
    let text = r#"[
{"traceId":"t","id":"1","name":"get","kind":"SERVER","localEndpoint":{"serviceName":"gateway"}},
{"traceId":"t","id":"2","parentId":"1","kind":"CLIENT","localEndpoint":{"serviceName":"gateway"}},
{"traceId":"t","parentId":"1","kind":"SERVER","localEndpoint":{"serviceName":"orphan"}},
{"traceId":"t","id":"2","parentId":"1","name":"list","kind":"SERVER","shared":true,"localEndpoint":{"serviceName":"order"}},
{"traceId":"t","id":"3","parentId":"2","localEndpoint":{"serviceName":"db"}},
{"traceId":"u","id":"4","localEndpoint":{"serviceName":"gateway"}},
7
]"#;
    let (spans, report) = read(Format::Zipkin, text);
    assert_eq!(ids(&spans), ["1", "2", "3", "4"]);
    assert_eq!(spans[1].service, "order");
    assert_eq!(spans[1].operation, "list");
    assert_eq!(report.malformed_count, 2);
    assert_eq!(report.malformed[0], (4, "span has no id".to_string()));
    assert_eq!(report.malformed[1].0, 8);
}

#[test]
fn zipkin_array_of_traces_is_read() {
    let text = r#"[[{"traceId":"a","id":"1","localEndpoint":{"serviceName":"x"}}],
                   [{"traceId":"b","id":"1","localEndpoint":{"serviceName":"y"}},{"traceId":"b","id":"2","parentId":"1","localEndpoint":{"serviceName":"z"}}]]"#;
    let (spans, report) = read(Format::Zipkin, text);
    assert_eq!(ids(&spans), ["1", "1", "2"]);
    assert_eq!(report.malformed_count, 0);
}

#[test]
fn jaeger_export_with_references_and_bad_spans() {
    let text = r#"{"total": 0, "data": [
  {"traceID": "abc", "spans": [
    {"traceID": "abc", "spanID": "1", "operationName": "GET /", "references": [], "startTime": 10, "processID": "p1"},
    {"traceID": "abc", "spanID": "2", "operationName": "q", "references": [{"refType": "FOLLOWS_FROM", "traceID": "abc", "spanID": "9"}, {"refType": "CHILD_OF", "traceID": "abc", "spanID": "1"}], "startTime": 11, "processID": "p2"},
    {"traceID": "abc", "operationName": "no id", "processID": "p1"},
    {"traceID": "abc", "spanID": "4", "processID": "p7"}
  ], "processes": {"p1": {"serviceName": "frontend", "tags": []}, "p2": {"serviceName": "db"}}},
  {"traceID": "def", "spans": [{"spanID": "5", "process": {"serviceName": "solo"}}]},
  {"traceID": broken},
  {"traceID": "ghi", "spans": [{"spanID": "6", "processID": "p1"}], "processes": {"p1": {"serviceName": "late"}}}
], "errors": null}"#;
    let (spans, report) = read(Format::Jaeger, text);
    assert_eq!(ids(&spans), ["1", "2", "5", "6"]);
    assert_eq!(spans[1].parent_id.as_deref(), Some("1"));
    assert_eq!(spans[1].service, "db");
    assert_eq!(spans[2].trace_id, "def");
    assert_eq!(spans[2].service, "solo");
    let lines: Vec<u64> = report.malformed.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [5, 6, 9], "{:?}", report.malformed);
}

#[test]
fn wrong_top_level_shapes_are_errors_broken_structure_is_reported() {
    assert!(matches!(
        read_all(Format::Jaeger, "j", &b"{\"total\": 1}"[..]),
        Err(FormatError::Shape { .. })
    ));
    assert!(matches!(
        read_all(Format::Jaeger, "j", &b"\"x\""[..]),
        Err(FormatError::Shape { .. })
    ));
    assert!(matches!(
        read_all(Format::Zipkin, "z", &b"{}"[..]),
        Err(FormatError::Shape { .. })
    ));
    // A truncated Zipkin file: the spans before the break are kept, the break is reported.
    let text = b"[\n{\"traceId\":\"t\",\"id\":\"1\",\"localEndpoint\":{\"serviceName\":\"a\"}},\n{\"traceId\":\"t\",\"id\":\"2\",";
    let (spans, report) = read_all(Format::Zipkin, "z", &text[..]).unwrap();
    assert_eq!(ids(&spans), ["1"]);
    assert_eq!(report.malformed_count, 1);
    assert_eq!(report.malformed[0].0, 3);
}

#[test]
fn formats_are_guessed_from_names_and_content() {
    let p = Path::new;
    assert_eq!(
        Format::guess(p("v1/traces.jaeger.json"), b""),
        Some(Format::Jaeger)
    );
    assert_eq!(
        Format::guess(p("traces.otlp.jsonl"), b""),
        Some(Format::Otlp)
    );
    assert_eq!(Format::guess(p("x.csv"), b""), Some(Format::Csv));
    assert_eq!(
        Format::guess(p("x.json"), b" {\"resourceSpans\":[]}"),
        Some(Format::Otlp)
    );
    assert_eq!(
        Format::guess(p("x.json"), b"{\"data\":[{\"traceID\""),
        Some(Format::Jaeger)
    );
    assert_eq!(
        Format::guess(p("x.json"), b"[{\"traceId\":\"1\""),
        Some(Format::Zipkin)
    );
    assert_eq!(
        Format::guess(p("x"), b"trace_id,span_id"),
        Some(Format::Csv)
    );
    assert_eq!(Format::guess(p("x"), b"hello"), None);
    assert_eq!("zipkin".parse::<Format>().unwrap(), Format::Zipkin);
    assert!("xml".parse::<Format>().is_err());
}

#[test]
fn open_guesses_and_names_the_file_in_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("traces.zipkin.json");
    std::fs::write(
        &path,
        write_all(Format::Zipkin, &[span("t", "1", None, "a")]).unwrap(),
    )
    .unwrap();
    let mut r = TraceReader::open(&path, None).unwrap();
    assert_eq!(r.next_trace().unwrap().map(<[_]>::len), Some(1));
    let missing = dir.path().join("nope.csv");
    let err = TraceReader::open(&missing, None).err().unwrap();
    assert!(err.to_string().contains("nope.csv"));
}

#[test]
fn malformed_list_is_capped_but_counted() {
    let mut text = String::from("trace_id,span_id,parent_id,caller,callee,timestamp_us\n");
    for _ in 0..250 {
        text.push_str("t,s,,,\n");
    }
    let (_, report) = read(Format::Csv, &text);
    assert_eq!(report.malformed_count, 250);
    assert_eq!(report.malformed.len(), ReadReport::LISTED);
    assert!(report.to_string().ends_with("... and 150 more"));
}

#[test]
fn csv_quotes_crlf_blank_lines_and_bad_bytes() {
    let mut text = b"trace_id,span_id,parent_id,caller,callee,timestamp_us\r\n".to_vec();
    text.extend_from_slice(b"t,\"a,\"\"1\"\"\n2\",,,gw,1\r\n\r\n");
    text.extend_from_slice(b"t,b,\"a,\"\"1\"\"\n2\",gw,svc,2\n");
    text.extend_from_slice(b"t,\xff,,,gw,3\n");
    text.extend_from_slice(b"t,c,,,gw,4\n");
    text.extend_from_slice(b"t,d,,,\"never closed,5\nt,e,,,gw,6\n");
    let (spans, report) = read_all(Format::Csv, "f", &text[..]).unwrap();
    assert_eq!(ids(&spans), ["a,\"1\"\n2", "b", "c"]);
    assert_eq!(spans[1].parent_id.as_deref(), Some("a,\"1\"\n2"));
    assert_eq!(spans[1].caller.as_deref(), Some("gw"));
    let lines: Vec<u64> = report.malformed.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [7, 9], "{:?}", report.malformed);
    assert!(report.malformed[1].1.contains("never closed"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Damaged files (cut short, bytes overwritten, garbage) never panic or hang any reader.
    #[test]
    fn damaged_files_never_panic(spans in traces(), cut in any::<prop::sample::Index>(), noise in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..6)) {
        for format in Format::ALL {
            let mut bytes = write_all(format, &spans).unwrap();
            if !bytes.is_empty() {
                for (at, byte) in &noise {
                    let i = at.index(bytes.len());
                    bytes[i] = *byte;
                }
                bytes.truncate(cut.index(bytes.len() + 1));
            }
            for other in Format::ALL {
                if let Ok((read, report)) = read_all(other, "f", &bytes[..]) {
                    prop_assert_eq!(report.records, read.len() as u64);
                }
            }
        }
    }
}
