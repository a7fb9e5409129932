//! The library end to end: traces written in every format, read back streaming, mined, propagated
//! and used to select tests — the same answer whatever the format.

use std::collections::HashSet;
use std::time::Duration;

use rigor_rts::formats::{Format, TraceReader, TraceWriter};
use rigor_rts::metrics::evaluate;
use rigor_rts::mine::{mine, Miner, Threshold};
use rigor_rts::propagate::Direction;
use rigor_rts::record::{SpanRecord, TestCase};
use rigor_rts::select::{
    retest_all, run, select_from_supports, select_static, Options, StaticGraph, Strategy,
};

fn span(trace: usize, id: usize, parent: Option<usize>, service: &str) -> SpanRecord {
    SpanRecord {
        trace_id: format!("{trace:032x}"),
        span_id: format!("{id:016x}"),
        parent_id: parent.map(|p| format!("{p:016x}")),
        service: service.into(),
        operation: format!("{service}.op"),
        caller: None,
        timestamp_us: 1_000 * trace as u64 + id as u64,
    }
}

/// A shop: gateway → cart → {stock, price}; gateway → order → {stock, payment → bank};
/// a few login traces; one trace with an orphan and one with a parent cycle.
fn traffic() -> Vec<Vec<SpanRecord>> {
    let mut traces = Vec::new();
    for t in 0..60 {
        let trace = match t % 6 {
            0..=2 => vec![
                span(t, 1, None, "gateway"),
                span(t, 2, Some(1), "cart"),
                span(t, 3, Some(2), "stock"),
                span(t, 4, Some(2), "price"),
            ],
            3..=4 => vec![
                // Children before their parents: writers and readers must not care.
                span(t, 5, Some(4), "bank"),
                span(t, 4, Some(2), "payment"),
                span(t, 1, None, "gateway"),
                span(t, 2, Some(1), "order"),
                span(t, 3, Some(2), "stock"),
            ],
            _ => vec![span(t, 1, None, "gateway"), span(t, 2, Some(1), "login")],
        };
        traces.push(trace);
    }
    traces.push(vec![
        span(99, 1, Some(77), "order"),
        span(99, 2, Some(1), "payment"),
    ]);
    traces.push(vec![
        span(98, 1, Some(2), "cart"),
        span(98, 2, Some(1), "price"),
    ]);
    traces
}

fn tests() -> Vec<TestCase> {
    let t = |id: &str, path: &[&str], ms: f64| TestCase {
        id: id.into(),
        path: path.iter().map(|s| s.to_string()).collect(),
        time_ms: ms,
    };
    vec![
        t("add-to-cart", &["gateway", "cart", "stock", "price"], 40.0),
        t(
            "checkout",
            &["gateway", "order", "stock", "payment", "bank"],
            80.0,
        ),
        t("login", &["gateway", "login"], 10.0),
        t("price-only", &["price"], 5.0),
    ]
}

#[test]
fn every_format_gives_the_same_selection() {
    let traffic = traffic();
    let tests = tests();
    let options = Options {
        strategy: Strategy::Existent,
        ..Options::default()
    };
    let in_memory = run(&traffic, &["payment"], &tests, &options);
    assert_eq!(in_memory.ids(&tests), ["checkout"]);
    let backward = run(
        &traffic,
        &["payment"],
        &tests,
        &Options {
            direction: Direction::Backward,
            ..options
        },
    );
    assert_eq!(backward.ids(&tests), ["add-to-cart", "checkout", "login"]);

    for format in Format::ALL {
        let mut writer = TraceWriter::new(format, Vec::new());
        for s in traffic.iter().flatten() {
            writer.write(s).unwrap();
        }
        let bytes = writer.finish().unwrap();
        let mut reader = TraceReader::new(format, format.name(), &bytes[..]);
        let mut miner = Miner::new();
        while let Some(trace) = reader.next_trace().unwrap() {
            miner.add_trace(trace);
        }
        assert_eq!(
            reader.report().records,
            traffic.iter().map(Vec::len).sum::<usize>() as u64,
            "{format}"
        );
        assert_eq!(reader.report().malformed_count, 0, "{format}");
        let supports = miner.finish();
        assert_eq!(
            (supports.traces, supports.orphans, supports.cyclic),
            (62, 1, 2),
            "{format}"
        );
        let from_file = select_from_supports(&supports, &["payment"], &tests, &options);
        assert_eq!(from_file.selected, in_memory.selected, "{format}");
        assert_eq!(from_file.impact, in_memory.impact, "{format}");

        // The two-thread reader mines the same counts.
        let mut parallel = Miner::new();
        parallel
            .add_reader_parallel(&mut TraceReader::new(format, format.name(), &bytes[..]))
            .unwrap();
        let parallel = parallel.finish();
        assert_eq!(parallel.pairs(), supports.pairs(), "{format}");
        assert_eq!(parallel.services(), supports.services(), "{format}");
        assert_eq!(
            (parallel.transactions, parallel.spans),
            (supports.transactions, supports.spans),
            "{format}"
        );
    }
}

#[test]
fn parallel_reading_reports_errors_and_malformed_records() {
    let text =
        "trace_id,span_id,parent_id,caller,callee,timestamp_us\nt,1,,,a,1\nt,2,1,a\nt,3,1,a,b,3\n";
    let mut reader = TraceReader::new(Format::Csv, "log.csv", text.as_bytes());
    let mut miner = Miner::new();
    miner.add_reader_parallel(&mut reader).unwrap();
    assert_eq!(
        reader.report().malformed,
        [(3, "expected 6 fields, found 4".to_string())]
    );
    assert_eq!(miner.supports().pair_support("a", "b"), 1);
    let mut bad = TraceReader::new(Format::Csv, "bad.csv", "no,header\n".as_bytes());
    let err = Miner::new().add_reader_parallel(&mut bad).unwrap_err();
    assert!(err.to_string().starts_with("bad.csv:1:"), "{err}");
}

#[test]
fn supports_and_baselines_on_the_shop() {
    let supports = mine(traffic());
    // 30 cart traces (2 paths each), 20 order traces (2 paths), 10 login, orphan trace (1 path).
    assert_eq!(supports.transactions, 60 + 40 + 10 + 1);
    assert_eq!(supports.support("gateway"), 110);
    assert_eq!(supports.support("payment"), 21);
    assert_eq!(supports.pair_support("order", "payment"), 21);
    let sdm = supports.sdm(Threshold::Absolute(0.0));
    assert_eq!(sdm.weight("gateway", "login"), 10.0 / 110.0);
    assert_eq!(sdm.weight("order", "payment"), 21.0 / 41.0);
    assert_eq!(supports.item_frequency_range(), Some((10, 110)));

    let tests = tests();
    let graph = StaticGraph::from_supports(&supports);
    let ids = |v: Vec<usize>| {
        v.into_iter()
            .map(|i| tests[i].id.clone())
            .collect::<Vec<_>>()
    };
    // payment is depended on by order, which the gateway depends on: every gateway test.
    assert_eq!(
        ids(select_static(&tests, &graph, &["payment"], None)),
        ["add-to-cart", "checkout", "login"]
    );
    assert_eq!(retest_all(&tests).len(), 4);

    let sel = run(traffic(), &["payment"], &tests, &Options::default());
    let revealing: HashSet<String> = ["checkout".to_string()].into();
    let m = evaluate(&tests, &sel.selected, &revealing, Duration::from_millis(1));
    assert_eq!((m.no, m.nr, m.nof, m.nsf), (4, 1, 1, 1));
    assert_eq!(
        (m.recall, m.precision, m.f),
        (Some(1.0), Some(1.0), Some(1.0))
    );
    assert_eq!(m.en, Some(0.75));
}
