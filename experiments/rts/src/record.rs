//! The records every part of the crate shares: spans (what every trace format is read into and
//! written from) and regression tests (id, path, execution time) with their CSV file.

use std::io::{Read, Write};

/// One span (one call handled by one service) of one trace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpanRecord {
    pub trace_id: String,
    pub span_id: String,
    /// The calling span in the same trace; `None` for a root span.
    pub parent_id: Option<String>,
    /// The service that handled the call (the callee).
    pub service: String,
    /// The API / operation of `service` that was called (may be empty when a format lacks it).
    pub operation: String,
    /// The caller's service when the format states it (the CSV gateway log does); otherwise `None`.
    pub caller: Option<String>,
    pub timestamp_us: u64,
}

/// One regression test: the services it passes through, in call order, and how long it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    pub id: String,
    pub path: Vec<String>,
    pub time_ms: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum TestsError {
    #[error("{file}:{line}: {message}")]
    Row { file: String, line: u64, message: String },
    #[error("{file}: {source}")]
    Io { file: String, source: std::io::Error },
}

/// Reads a tests file: CSV with header `id,path,time_ms`, the path as services joined by `;`.
pub fn read_tests(file: &str, input: impl Read) -> Result<Vec<TestCase>, TestsError> {
    let mut reader = csv::ReaderBuilder::new().has_headers(true).from_reader(input);
    let row_err = |line: u64, message: String| TestsError::Row { file: file.to_string(), line, message };
    let headers = reader.headers().map_err(|e| row_err(1, e.to_string()))?.clone();
    let want = ["id", "path", "time_ms"];
    if headers.len() != 3 || headers.iter().zip(want).any(|(h, w)| h.trim() != w) {
        return Err(row_err(1, format!("header must be `id,path,time_ms`, found `{}`", headers.iter().collect::<Vec<_>>().join(","))));
    }
    let mut tests = Vec::new();
    for row in reader.records() {
        let row = row.map_err(|e| row_err(e.position().map_or(0, |p| p.line()), e.to_string()))?;
        let line = row.position().map_or(0, |p| p.line());
        let id = row[0].trim().to_string();
        if id.is_empty() {
            return Err(row_err(line, "empty test id".into()));
        }
        let path: Vec<String> = row[1].split(';').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
        let time_ms: f64 = row[2].trim().parse().map_err(|_| row_err(line, format!("time_ms `{}` is not a number", &row[2])))?;
        if !time_ms.is_finite() || time_ms < 0.0 {
            return Err(row_err(line, format!("time_ms `{}` must be a finite number >= 0", &row[2])));
        }
        tests.push(TestCase { id, path, time_ms });
    }
    Ok(tests)
}

/// Writes tests in the format [`read_tests`] reads.
pub fn write_tests(tests: &[TestCase], out: impl Write) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(["id", "path", "time_ms"])?;
    for t in tests {
        writer.write_record([t.id.as_str(), &t.path.join(";"), &t.time_ms.to_string()])?;
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_round_trip_and_errors_name_the_line() {
        let tests = vec![
            TestCase { id: "t1".into(), path: vec!["gateway".into(), "order".into()], time_ms: 12.5 },
            TestCase { id: "t2".into(), path: vec!["gateway".into()], time_ms: 0.0 },
        ];
        let mut buf = Vec::new();
        write_tests(&tests, &mut buf).unwrap();
        assert_eq!(read_tests("t.csv", &buf[..]).unwrap(), tests);
        let err = read_tests("t.csv", "id,path,time_ms\nt1,a;b,1\nt2,a,x\n".as_bytes()).unwrap_err();
        assert_eq!(err.to_string(), "t.csv:3: time_ms `x` is not a number");
        assert!(read_tests("t.csv", "id,services\n".as_bytes()).is_err());
    }
}
