//! The simulator's output directory, and readers for the ground-truth files that
//! `rigor rts evaluate DIR --version V` reads back.
//!
//! ```text
//! DIR/system.json              profile, seed, services with layer, tier and APIs, entry APIs
//!                              with popularity and variant weights, per version the changed
//!                              services, call edits and fault count
//! DIR/v{V}/traces.{csv|jaeger.json|zipkin.json|otlp.jsonl}
//!                              the version's traffic, profile.log_records spans
//! DIR/v{V}/changed.txt         services changed since version V-1, one per line (empty for 1)
//! DIR/v{V}/tests.csv           id,path,time_ms (path: services joined by `;`)
//! DIR/v{V}/faults.csv          fault_id,service,api,revealing_tests (test ids joined by `;`)
//! DIR/v{V}/dependencies.csv    caller,callee: the static service graph (all possible calls),
//!                              the input of the static RTS baseline
//! DIR/v{V}/coverage.csv        id,apis: the `service:api` pairs each test calls (`;`-joined)
//! ```

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;

use serde::Serialize;

use super::evolve::Edit;
use super::profile::Profile;
use super::system::{Fault, System};
use super::topology::{ApiId, Layer};
use super::SimError;
use crate::formats::{Format, TraceWriter};
use crate::record::write_tests;

/// The traces file name of a version directory for `format`.
pub fn trace_file_name(format: Format) -> &'static str {
    match format {
        Format::Csv => "traces.csv",
        Format::Jaeger => "traces.jaeger.json",
        Format::Zipkin => "traces.zipkin.json",
        Format::Otlp => "traces.otlp.jsonl",
    }
}

/// Writes the whole system with each version's traffic in `format` into `dir` (created if
/// missing; existing files are overwritten).
pub fn write_dir(system: &System, dir: &Path, format: Format) -> Result<(), SimError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| SimError::Io { path, source }
    };
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let summary = dir.join("system.json");
    write_file(&summary, |out| {
        serde_json::to_writer_pretty(&mut *out, &Summary::of(system))?;
        writeln!(out)
    })
    .map_err(io_err(&summary))?;

    for version in &system.versions {
        let v = version.number;
        let vdir = dir.join(format!("v{v}"));
        fs::create_dir_all(&vdir).map_err(io_err(&vdir))?;
        let path = vdir.join("changed.txt");
        let changed = system.changed_services(v)?;
        write_file(&path, |out| changed.iter().try_for_each(|s| writeln!(out, "{s}"))).map_err(io_err(&path))?;
        let path = vdir.join("tests.csv");
        let tests = system.tests(v)?;
        write_file(&path, |out| write_tests(&tests, out)).map_err(io_err(&path))?;
        let path = vdir.join("faults.csv");
        write_file(&path, |out| write_faults(&version.faults, out)).map_err(io_err(&path))?;
        let path = vdir.join("dependencies.csv");
        let edges = system.dependencies(v)?;
        write_file(&path, |out| write_csv(out, ["caller", "callee"], edges.iter().map(|(a, b)| [*a, *b])))
            .map_err(io_err(&path))?;
        let path = vdir.join("coverage.csv");
        let apis = system.test_apis(v)?;
        let rows = system.tests.iter().zip(&apis).map(|(t, apis)| [t.id.clone(), api_list(system, apis)]);
        write_file(&path, |out| write_csv(out, ["id", "apis"], rows)).map_err(io_err(&path))?;

        let path = vdir.join(trace_file_name(format));
        let file = File::create(&path).map_err(io_err(&path))?;
        let mut writer = TraceWriter::new(format, BufWriter::with_capacity(1 << 20, file));
        system.traffic(v, system.profile.log_records, &mut |span| writer.write(span)).map_err(|e| match e {
            SimError::Sink(source) => SimError::Io { path: path.clone(), source },
            other => other,
        })?;
        writer.finish().and_then(|mut out| out.flush()).map_err(io_err(&path))?;
    }
    Ok(())
}

fn write_file(path: &Path, body: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>) -> io::Result<()> {
    let mut out = BufWriter::new(File::create(path)?);
    body(&mut out)?;
    out.flush()
}

fn write_csv<const N: usize, S: AsRef<[u8]>>(
    out: impl Write,
    header: [&str; N],
    rows: impl Iterator<Item = [S; N]>,
) -> io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(header)?;
    for row in rows {
        writer.write_record(row)?;
    }
    writer.flush()
}

fn api_list(system: &System, apis: &[ApiId]) -> String {
    let names: Vec<String> =
        apis.iter().map(|&a| format!("{}:{}", system.service_of(a).name, system.apis[a as usize].name)).collect();
    names.join(";")
}

/// Writes faults in the format [`read_faults`] reads.
pub fn write_faults(faults: &[Fault], out: impl Write) -> io::Result<()> {
    let rows = faults.iter().map(|f| [f.id.clone(), f.service.clone(), f.api.clone(), f.revealing_tests.join(";")]);
    write_csv(out, FAULTS_HEADER, rows)
}

const FAULTS_HEADER: [&str; 4] = ["fault_id", "service", "api", "revealing_tests"];

/// The summary in `system.json`.
#[derive(Serialize)]
struct Summary<'a> {
    profile: &'a Profile,
    seed: u64,
    tests: usize,
    services: Vec<ServiceSummary<'a>>,
    entry_apis: Vec<EntrySummary<'a>>,
    versions: Vec<VersionSummary<'a>>,
}

#[derive(Serialize)]
struct ServiceSummary<'a> {
    name: &'a str,
    layer: Layer,
    tier: u8,
    apis: Vec<&'a str>,
}

#[derive(Serialize)]
struct EntrySummary<'a> {
    service: &'a str,
    api: &'a str,
    popularity: f64,
    variant_weights: Vec<f64>,
}

#[derive(Serialize)]
struct VersionSummary<'a> {
    version: u32,
    changed: Vec<&'a str>,
    /// `added` or `dropped`, from and to as `service:api`.
    call_edits: Vec<BTreeMap<&'static str, String>>,
    faults: usize,
}

impl<'a> Summary<'a> {
    fn of(system: &'a System) -> Summary<'a> {
        let api = |a: ApiId| format!("{}:{}", system.service_of(a).name, system.apis[a as usize].name);
        Summary {
            profile: &system.profile,
            seed: system.seed,
            tests: system.tests.len(),
            services: system
                .services
                .iter()
                .map(|s| ServiceSummary {
                    name: &s.name,
                    layer: s.layer,
                    tier: s.tier,
                    apis: s.apis.clone().map(|a| system.apis[a as usize].name.as_str()).collect(),
                })
                .collect(),
            entry_apis: system
                .entries
                .iter()
                .map(|e| EntrySummary {
                    service: &system.service_of(e.api).name,
                    api: &system.apis[e.api as usize].name,
                    popularity: e.popularity,
                    variant_weights: e.variants.iter().map(|v| v.weight).collect(),
                })
                .collect(),
            versions: system
                .versions
                .iter()
                .map(|v| VersionSummary {
                    version: v.number,
                    changed: v.changed.iter().map(|&s| system.services[s as usize].name.as_str()).collect(),
                    call_edits: v
                        .edits
                        .iter()
                        .map(|e| {
                            let (kind, from, to) = match e {
                                Edit::Added { from, to, .. } => ("added", from, to),
                                Edit::Dropped { from, to, .. } => ("dropped", from, to),
                            };
                            BTreeMap::from([("edit", kind.to_string()), ("from", api(*from)), ("to", api(*to))])
                        })
                        .collect(),
                    faults: v.faults.len(),
                })
                .collect(),
        }
    }
}

/// A ground-truth file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SimFileError {
    #[error("{file}:{line}: {message}")]
    Row { file: String, line: u64, message: String },
    #[error("{file}: {source}")]
    Io { file: String, source: io::Error },
}

/// Reads a changed-services file: one service per line; blank lines and `#` comments skipped.
pub fn read_changed(file: &str, input: impl Read) -> Result<Vec<String>, SimFileError> {
    let mut services: Vec<(String, u64)> = Vec::new();
    for (i, line) in BufReader::new(input).lines().enumerate() {
        let line_no = i as u64 + 1;
        let line = line.map_err(|source| SimFileError::Io { file: file.to_string(), source })?;
        let name = line.trim();
        if name.is_empty() || name.starts_with('#') {
            continue;
        }
        let row_err = |message| Err(SimFileError::Row { file: file.to_string(), line: line_no, message });
        if name.contains(|c: char| c.is_whitespace() || c == ',' || c == ';') {
            return row_err(format!("`{name}` is not a service name (one service per line)"));
        }
        if let Some((_, first)) = services.iter().find(|(s, _)| s == name) {
            return row_err(format!("service `{name}` is listed twice (first on line {first})"));
        }
        services.push((name.to_string(), line_no));
    }
    Ok(services.into_iter().map(|(s, _)| s).collect())
}

/// Reads CSV rows after checking the header; `row` turns the trimmed fields into a value.
fn read_rows<T, const N: usize>(
    file: &str,
    input: impl Read,
    header: [&str; N],
    mut row: impl FnMut([&str; N]) -> Result<T, String>,
) -> Result<Vec<T>, SimFileError> {
    let row_err = |line: u64, message: String| SimFileError::Row { file: file.to_string(), line, message };
    let mut reader = csv::ReaderBuilder::new().has_headers(true).flexible(true).from_reader(input);
    let found = reader.headers().map_err(|e| row_err(1, e.to_string()))?.clone();
    if found.len() != N || found.iter().zip(header).any(|(h, w)| h.trim() != w) {
        let found: Vec<&str> = found.iter().collect();
        return Err(row_err(1, format!("header must be `{}`, found `{}`", header.join(","), found.join(","))));
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| row_err(e.position().map_or(0, |p| p.line()), e.to_string()))?;
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != N {
            return Err(row_err(line, format!("expected {N} fields, found {}", record.len())));
        }
        let fields: [&str; N] = std::array::from_fn(|i| record[i].trim());
        rows.push(row(fields).map_err(|message| row_err(line, message))?);
    }
    Ok(rows)
}

/// Reads a faults file (`fault_id,service,api,revealing_tests`, tests joined by `;`).
pub fn read_faults(file: &str, input: impl Read) -> Result<Vec<Fault>, SimFileError> {
    let mut ids = std::collections::BTreeSet::new();
    read_rows(file, input, FAULTS_HEADER, |[id, service, api, tests]| {
        for (name, value) in [("fault_id", id), ("service", service), ("api", api)] {
            if value.is_empty() {
                return Err(format!("empty {name}"));
            }
        }
        if !ids.insert(id.to_string()) {
            return Err(format!("fault `{id}` is listed twice"));
        }
        let revealing_tests = tests.split(';').map(str::trim).filter(|t| !t.is_empty()).map(String::from).collect();
        Ok(Fault { id: id.to_string(), service: service.to_string(), api: api.to_string(), revealing_tests })
    })
}

/// Reads a static dependency file (`caller,callee`).
pub fn read_dependencies(file: &str, input: impl Read) -> Result<Vec<(String, String)>, SimFileError> {
    read_rows(file, input, ["caller", "callee"], |[caller, callee]| {
        if caller.is_empty() || callee.is_empty() {
            return Err("empty caller or callee".into());
        }
        Ok((caller.to_string(), callee.to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_files_skip_blanks_and_name_bad_lines() {
        let read = |s: &str| read_changed("changed.txt", s.as_bytes());
        assert_eq!(read("order\n\n# a comment\n  payment \n").unwrap(), ["order", "payment"]);
        assert!(read("").unwrap().is_empty());
        assert_eq!(read("order\norder payment\n").unwrap_err().to_string(), "changed.txt:2: `order payment` is not a service name (one service per line)");
        assert_eq!(read("a\nb\na\n").unwrap_err().to_string(), "changed.txt:3: service `a` is listed twice (first on line 1)");
    }

    #[test]
    fn faults_round_trip_and_errors_name_the_line() {
        let faults = vec![
            Fault { id: "v2-f1".into(), service: "order".into(), api: "getOrder".into(), revealing_tests: vec!["t1".into(), "t3".into()] },
            Fault { id: "v2-f2".into(), service: "auth".into(), api: "checkAuth".into(), revealing_tests: vec![] },
        ];
        let mut buf = Vec::new();
        write_faults(&faults, &mut buf).unwrap();
        assert_eq!(String::from_utf8(buf.clone()).unwrap().lines().next(), Some("fault_id,service,api,revealing_tests"));
        assert_eq!(read_faults("f.csv", &buf[..]).unwrap(), faults);
        let read = |s: &str| read_faults("f.csv", s.as_bytes()).unwrap_err().to_string();
        assert_eq!(read("fault_id,service\n"), "f.csv:1: header must be `fault_id,service,api,revealing_tests`, found `fault_id,service`");
        assert_eq!(read("fault_id,service,api,revealing_tests\nf1,a,x,t1\nf2,,x,\n"), "f.csv:3: empty service");
        assert_eq!(read("fault_id,service,api,revealing_tests\nf1,a,x,t1\nf1,b,y,\n"), "f.csv:3: fault `f1` is listed twice");
        assert_eq!(read("fault_id,service,api,revealing_tests\nf1,a,x\n"), "f.csv:2: expected 4 fields, found 3");
    }

    #[test]
    fn dependencies_read() {
        let deps = read_dependencies("d.csv", "caller,callee\ngateway,order\norder,auth\n".as_bytes()).unwrap();
        assert_eq!(deps, [("gateway".to_string(), "order".to_string()), ("order".into(), "auth".into())]);
        assert!(read_dependencies("d.csv", "caller,callee\n,order\n".as_bytes()).is_err());
    }
}
