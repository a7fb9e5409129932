//! A study's results as polars frames: the long table (one row per job and metric) and the
//! series table (one row per point), with one typed column per grid parameter; and their
//! export as CSV, JSON or Parquet.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use polars::prelude::*;
use rigor_technique::ParamValue;

/// Where and when a job ran: recorded with every result, left out when comparing results.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Provenance {
    pub worker: String,
    pub host: String,
    pub cpu_model: String,
    pub wall_ms: u64,
    pub cpu_ms: u64,
    pub peak_rss_kb: u64,
    pub started_unix_ms: i64,
    pub finished_unix_ms: i64,
    pub rigor_version: String,
    pub git_commit: String,
    pub technique_version: String,
}

/// One job's outcome as the analysis sees it (the CLI converts the wire form into this).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobRecord {
    pub study: String,
    pub experiment: String,
    pub kind: String,
    pub subject: String,
    pub params: BTreeMap<String, ParamValue>,
    pub repetition: u32,
    pub seed: u64,
    pub job_id: String,
    /// `ok`, `failed`, `timeout`, `oom`, `crashed`, `lost`, `cancelled`, `queued`, `running`, `waiting`.
    pub status: String,
    pub attempts: u32,
    pub error: String,
    pub metrics: Vec<(String, f64)>,
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    pub provenance: Provenance,
}

/// Columns that describe where and when a job ran, not what it computed.
pub const PROVENANCE_COLUMNS: [&str; 11] = [
    "worker", "host", "cpu_model", "wall_ms", "cpu_ms", "peak_rss_kb", "started_unix_ms", "finished_unix_ms",
    "rigor_version", "git_commit", "technique_version",
];

const RESERVED: [&str; 20] = [
    "study", "experiment", "kind", "subject", "repetition", "seed", "job_id", "status", "attempts", "metric", "value",
    "error", "series", "x", "y", "worker", "host", "cpu_model", "wall_ms", "cpu_ms",
];

/// The column name of a parameter: its own name unless that is taken by a fixed column.
pub fn param_column(name: &str) -> String {
    if RESERVED.contains(&name) || PROVENANCE_COLUMNS.contains(&name) {
        format!("param_{name}")
    } else {
        name.to_string()
    }
}

/// Output formats of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    Csv,
    Json,
    Parquet,
}

/// Builds a parameter column typed by what its values are: integers, numbers, booleans, or text.
fn param_series(name: &str, values: &[Option<&ParamValue>]) -> Column {
    let present = || values.iter().flatten();
    let col = param_column(name);
    if present().all(|v| matches!(v, ParamValue::Int(_))) {
        Column::new(col.into(), values.iter().map(|v| v.and_then(|v| v.as_i64())).collect::<Vec<_>>())
    } else if present().all(|v| matches!(v, ParamValue::Int(_) | ParamValue::Float(_))) {
        Column::new(col.into(), values.iter().map(|v| v.and_then(|v| v.as_f64())).collect::<Vec<_>>())
    } else if present().all(|v| matches!(v, ParamValue::Bool(_))) {
        Column::new(col.into(), values.iter().map(|v| v.and_then(|v| v.as_bool())).collect::<Vec<_>>())
    } else {
        Column::new(col.into(), values.iter().map(|v| v.map(|v| v.to_string())).collect::<Vec<_>>())
    }
}

fn param_names(records: &[JobRecord]) -> Vec<String> {
    let names: BTreeSet<&String> = records.iter().flat_map(|r| r.params.keys()).collect();
    names.into_iter().cloned().collect()
}

/// The identifying columns of each row, repeated per row of `rows` (indices into `records`).
fn key_columns(records: &[JobRecord], rows: &[usize], params: &[String]) -> Vec<Column> {
    let text = |name: &str, f: &dyn Fn(&JobRecord) -> &str| {
        Column::new(name.into(), rows.iter().map(|&i| f(&records[i])).collect::<Vec<_>>())
    };
    let mut cols = vec![
        text("study", &|r| &r.study),
        text("experiment", &|r| &r.experiment),
        text("kind", &|r| &r.kind),
        text("subject", &|r| &r.subject),
    ];
    for p in params {
        let values: Vec<Option<&ParamValue>> = rows.iter().map(|&i| records[i].params.get(p)).collect();
        cols.push(param_series(p, &values));
    }
    cols.push(Column::new("repetition".into(), rows.iter().map(|&i| records[i].repetition).collect::<Vec<_>>()));
    cols.push(Column::new("seed".into(), rows.iter().map(|&i| records[i].seed).collect::<Vec<_>>()));
    cols.push(text("job_id", &|r| &r.job_id));
    cols
}

/// The long table: one row per job and metric (one row with null metric for a job without
/// metrics, e.g. a failed one), provenance columns last.
pub fn results_frame(records: &[JobRecord]) -> PolarsResult<DataFrame> {
    let params = param_names(records);
    let mut rows = Vec::new();
    let mut metric: Vec<Option<&str>> = Vec::new();
    let mut value: Vec<Option<f64>> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        if r.metrics.is_empty() {
            rows.push(i);
            metric.push(None);
            value.push(None);
        }
        for (name, v) in &r.metrics {
            rows.push(i);
            metric.push(Some(name));
            value.push(Some(*v));
        }
    }
    let text = |name: &str, f: &dyn Fn(&JobRecord) -> &str| {
        Column::new(name.into(), rows.iter().map(|&i| f(&records[i])).collect::<Vec<_>>())
    };
    let num = |name: &str, f: &dyn Fn(&JobRecord) -> u64| {
        Column::new(name.into(), rows.iter().map(|&i| f(&records[i])).collect::<Vec<_>>())
    };
    let int = |name: &str, f: &dyn Fn(&JobRecord) -> i64| {
        Column::new(name.into(), rows.iter().map(|&i| f(&records[i])).collect::<Vec<_>>())
    };
    let mut cols = key_columns(records, &rows, &params);
    cols.push(text("status", &|r| &r.status));
    cols.push(Column::new("attempts".into(), rows.iter().map(|&i| records[i].attempts).collect::<Vec<_>>()));
    cols.push(Column::new("metric".into(), metric));
    cols.push(Column::new("value".into(), value));
    cols.push(text("error", &|r| &r.error));
    cols.push(text("worker", &|r| &r.provenance.worker));
    cols.push(text("host", &|r| &r.provenance.host));
    cols.push(text("cpu_model", &|r| &r.provenance.cpu_model));
    cols.push(num("wall_ms", &|r| r.provenance.wall_ms));
    cols.push(num("cpu_ms", &|r| r.provenance.cpu_ms));
    cols.push(num("peak_rss_kb", &|r| r.provenance.peak_rss_kb));
    cols.push(int("started_unix_ms", &|r| r.provenance.started_unix_ms));
    cols.push(int("finished_unix_ms", &|r| r.provenance.finished_unix_ms));
    cols.push(text("rigor_version", &|r| &r.provenance.rigor_version));
    cols.push(text("git_commit", &|r| &r.provenance.git_commit));
    cols.push(text("technique_version", &|r| &r.provenance.technique_version));
    DataFrame::new(rows.len(), cols)
}

/// The series table: one row per point of every series of every job.
pub fn series_frame(records: &[JobRecord]) -> PolarsResult<DataFrame> {
    let params = param_names(records);
    let (mut rows, mut names, mut xs, mut ys) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, r) in records.iter().enumerate() {
        for (name, points) in &r.series {
            for &(x, y) in points {
                rows.push(i);
                names.push(name.as_str());
                xs.push(x);
                ys.push(y);
            }
        }
    }
    let mut cols = key_columns(records, &rows, &params);
    cols.push(Column::new("series".into(), names));
    cols.push(Column::new("x".into(), xs));
    cols.push(Column::new("y".into(), ys));
    DataFrame::new(rows.len(), cols)
}

/// Writes a frame in the given format to any writer.
pub fn write_frame(df: &mut DataFrame, format: TableFormat, w: &mut dyn std::io::Write) -> PolarsResult<()> {
    match format {
        TableFormat::Csv => CsvWriter::new(w).include_header(true).finish(df),
        TableFormat::Json => JsonWriter::new(w).with_json_format(JsonFormat::Json).finish(df),
        TableFormat::Parquet => ParquetWriter::new(w).finish(df).map(|_| ()),
    }
}

/// Writes a frame to a file, the format given.
pub fn write_frame_file(df: &mut DataFrame, format: TableFormat, path: &Path) -> PolarsResult<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    write_frame(df, format, &mut f)?;
    std::io::Write::flush(&mut f)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(exp: &str, rep: u32, params: &[(&str, ParamValue)], metrics: &[(&str, f64)]) -> JobRecord {
        JobRecord {
            study: "s".into(),
            experiment: exp.into(),
            kind: "noop".into(),
            subject: "a".into(),
            params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            repetition: rep,
            seed: u64::MAX - rep as u64,
            job_id: format!("{exp}{rep}"),
            status: if metrics.is_empty() { "failed".into() } else { "ok".into() },
            metrics: metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            series: vec![("trace".into(), vec![(0.0, 1.0), (1.0, 2.5)])],
            ..Default::default()
        }
    }

    fn sample() -> Vec<JobRecord> {
        vec![
            record("e1", 0, &[("budget", ParamValue::Int(10)), ("mode", ParamValue::Str("x".into()))], &[("cov", 0.5), ("faults", 2.0)]),
            record("e1", 1, &[("budget", ParamValue::Int(20)), ("seed", ParamValue::Bool(true))], &[]),
            record("e2", 0, &[("budget", ParamValue::Float(2.5))], &[("cov", f64::NAN)]),
        ]
    }

    #[test]
    fn long_table_has_a_row_per_metric_and_typed_parameters() {
        let df = results_frame(&sample()).unwrap();
        assert_eq!(df.height(), 4, "2 metrics + 1 failed job + 1 metric");
        assert_eq!(df.column("budget").unwrap().dtype(), &DataType::Float64, "ints and floats mix to numbers");
        assert_eq!(df.column("mode").unwrap().dtype(), &DataType::String);
        assert_eq!(df.column("param_seed").unwrap().dtype(), &DataType::Boolean, "a parameter named like a column is renamed");
        assert_eq!(df.column("seed").unwrap().dtype(), &DataType::UInt64);
        assert_eq!(df.column("seed").unwrap().u64().unwrap().get(0), Some(u64::MAX), "seeds keep every bit");
        assert_eq!(df.column("metric").unwrap().null_count(), 1);
        let names: Vec<_> = df.get_column_names().iter().map(|s| s.to_string()).collect();
        assert_eq!(names.last().unwrap(), "technique_version");
    }

    #[test]
    fn series_table_has_a_row_per_point() {
        let df = series_frame(&sample()).unwrap();
        assert_eq!(df.height(), 6);
        assert_eq!(df.column("y").unwrap().f64().unwrap().sum(), Some(3.5 * 3.0));
    }

    #[test]
    fn every_format_round_trips_through_polars_readers() {
        let dir = tempfile::tempdir().unwrap();
        let mut df = results_frame(&sample()).unwrap();
        for (format, name) in [(TableFormat::Csv, "r.csv"), (TableFormat::Json, "r.json"), (TableFormat::Parquet, "r.parquet")] {
            let path = dir.path().join(name);
            write_frame_file(&mut df, format, &path).unwrap();
            let back = match format {
                // Seeds use all 64 bits, beyond the i64 that CSV inference picks: read as text.
                TableFormat::Csv => CsvReadOptions::default()
                    .with_infer_schema_length(Some(0))
                    .try_into_reader_with_file_path(Some(path.clone()))
                    .unwrap()
                    .finish()
                    .unwrap(),
                TableFormat::Json => {
                    // polars' JSON reader infers 64-bit unsigned seeds as Int128; check with serde_json.
                    let rows: Vec<serde_json::Value> = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
                    assert_eq!(rows.len(), df.height());
                    assert_eq!(rows[0]["seed"], serde_json::json!(u64::MAX));
                    assert_eq!(rows[0]["value"], serde_json::json!(0.5));
                    assert_eq!(rows[2]["metric"], serde_json::Value::Null, "a job without metrics has a null metric");
                    continue;
                }
                TableFormat::Parquet => ParquetReader::new(std::fs::File::open(&path).unwrap()).finish().unwrap(),
            };
            assert_eq!(back.shape(), df.shape(), "{name}");
            let value = back.column("value").unwrap().cast(&DataType::Float64).unwrap();
            assert_eq!(value.f64().unwrap().get(0), Some(0.5), "{name}");
            let seed = back.column("seed").unwrap().cast(&DataType::UInt64).unwrap();
            assert_eq!(seed.u64().unwrap().get(0), Some(u64::MAX), "{name}");
            if format == TableFormat::Parquet {
                assert!(back.equals_missing(&df), "parquet keeps types and values exactly");
            }
        }
    }
}
