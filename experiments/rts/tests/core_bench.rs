//! Throughput of the whole MRTS-BP pipeline (read + mine + propagate + select) per trace format on
//! synthetic traffic over 605 services. Ignored by default; run it in release mode:
//! `RTS_BENCH_RECORDS=5000000 [RTS_BENCH_FORMATS=csv,otlp] cargo test --release -p rigor-rts --test core_bench -- --ignored --nocapture`

use std::io::{BufWriter, Write};
use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rigor_rts::formats::{Format, TraceReader, TraceWriter};
use rigor_rts::mine::{Miner, Threshold};
use rigor_rts::record::{SpanRecord, TestCase};
use rigor_rts::select::{select_from_supports, Options};

const SERVICES: usize = 605;

/// Writes about `records` spans: traces of 1–30 spans, each span calling a random deeper service.
fn generate(format: Format, records: usize, out: impl Write) -> std::io::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut w = TraceWriter::new(format, BufWriter::with_capacity(1 << 20, out));
    let mut written = 0;
    let mut trace = 0u64;
    while written < records {
        trace += 1;
        let n = rng.random_range(1..30usize).min(records - written);
        let mut services: Vec<usize> = Vec::with_capacity(n);
        for i in 0..n {
            let parent = (i > 0).then(|| rng.random_range(0..i));
            let service = match parent {
                None => rng.random_range(0..8usize),
                Some(p) => (services[p] + rng.random_range(0..40usize)).min(SERVICES - 1),
            };
            services.push(service);
            let span = SpanRecord {
                trace_id: format!("{trace:032x}"),
                span_id: format!("{:016x}", i + 1),
                parent_id: parent.map(|p| format!("{:016x}", p + 1)),
                service: format!("service-{service:03}"),
                operation: "op".into(),
                caller: None,
                timestamp_us: 1_700_000_000_000_000 + trace,
            };
            w.write(&span)?;
        }
        written += n;
    }
    w.finish()?.flush()
}

/// CPU time of this thread (the machine may be shared: wall-clock alone is noisy).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace()
        .next()
        .and_then(|ns| ns.parse::<f64>().ok())
        .map_or(0.0, |ns| ns / 1e9)
}

#[test]
#[ignore]
fn pipeline_throughput_per_format() {
    let records: usize = std::env::var("RTS_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir().unwrap();
    let tests: Vec<TestCase> = (0..13_356)
        .map(|i| TestCase {
            id: format!("t{i}"),
            path: (0..4)
                .map(|k| format!("service-{:03}", (i * 7 + k * 31) % SERVICES))
                .collect(),
            time_ms: 10.0,
        })
        .collect();
    let only = std::env::var("RTS_BENCH_FORMATS").unwrap_or_default();
    for format in Format::ALL
        .into_iter()
        .filter(|f| only.is_empty() || only.split(',').any(|o| o == f.name()))
    {
        let path = dir.path().join(format!("traces.{format}"));
        generate(format, records, std::fs::File::create(&path).unwrap()).unwrap();
        let bytes = std::fs::metadata(&path).unwrap().len();
        let (start, cpu) = (Instant::now(), cpu_seconds());
        let mut parse_only = TraceReader::open(&path, Some(format)).unwrap();
        while parse_only.next_trace().unwrap().is_some() {}
        let parse = start.elapsed();
        let parse_cpu = cpu_seconds() - cpu;
        let (start, cpu) = (Instant::now(), cpu_seconds());
        let mut reader = TraceReader::open(&path, Some(format)).unwrap();
        let mut miner = Miner::new();
        miner.add_reader_parallel(&mut reader).unwrap();
        let read = start.elapsed();
        let options = Options {
            threshold: Threshold::Absolute(0.0),
            ..Options::default()
        };
        let selection = select_from_supports(miner.supports(), &["service-100"], &tests, &options);
        let total = start.elapsed();
        let total_cpu = cpu_seconds() - cpu;
        let report = reader.report();
        assert_eq!(report.records as usize, records);
        assert_eq!(report.malformed_count, 0);
        println!(
            "{format:>6}: {records} records, {:.0} MB, read only {:.2} s (cpu {:.2}), read+mine (2 threads) {:.2} s, total {:.2} s (cpu {:.2}), {:.0} records/s, {} selected",
            bytes as f64 / 1e6,
            parse.as_secs_f64(),
            parse_cpu,
            read.as_secs_f64(),
            total.as_secs_f64(),
            total_cpu,
            records as f64 / total.as_secs_f64(),
            selection.selected.len()
        );
    }
}
