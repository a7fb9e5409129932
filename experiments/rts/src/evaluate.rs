//! One version of a system as a selection problem with ground truth ([`Case`]), and the methods
//! compared on it: MRTS-BP, the static baseline and retest-all. Shared by `rigor rts evaluate`,
//! the `rts.select` job kind and `rigor bench rts`, so the three measure the same thing.
//!
//! Selection for version `v` mines the logs of version `v-1` (the traffic seen before the change),
//! propagates the impact of `v`'s changed services, and selects from `v`'s test suite; faults of
//! `v` give the ground truth. TS, the selection time, covers reading and mining the logs plus
//! propagation and selection (the paper's TS); the static baseline's TS is building its graph and
//! selecting.

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::formats::{Format, FormatError, ReadReport, TraceReader, TraceWriter};
use crate::metrics::{evaluate, Metrics};
use crate::mine::{Miner, Supports};
use crate::record::{read_tests, SpanRecord, TestCase, TestsError};
use crate::select::{retest_all, select_from_supports, select_static, Options, StaticGraph};
use crate::simulate::{self, read_changed, read_dependencies, read_faults, trace_file_name, SimError, SimFileError, System};

/// Why a case could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error(transparent)]
    SimFile(#[from] SimFileError),
    #[error(transparent)]
    Tests(#[from] TestsError),
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("version {version}: selection needs a previous version's logs, so versions start at 2")]
    FirstVersion { version: u32 },
    #[error("{}: no traces file (expected one of {expected})", dir.display())]
    NoTraces { dir: PathBuf, expected: String },
}

/// The methods compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Method {
    MrtsBp(Options),
    /// Tests whose path contains a changed service or a service that depends on one within
    /// `depth` edges of the static dependency graph (`None`: transitively); the stand-in for the
    /// paper's RTS-CFG.
    Static { depth: Option<usize> },
    RetestAll,
}

impl Method {
    pub fn name(&self) -> &'static str {
        match self {
            Method::MrtsBp(_) => "mrts-bp",
            Method::Static { .. } => "static",
            Method::RetestAll => "retest-all",
        }
    }
}

/// The files of one case: logs of the version before, and the new version's changes, tests,
/// fault ground truth and static dependencies.
#[derive(Debug, Clone)]
pub struct CaseFiles {
    pub traces: Vec<PathBuf>,
    /// `None`: guessed per file from its name and first bytes.
    pub format: Option<Format>,
    pub changed: PathBuf,
    pub tests: PathBuf,
    pub faults: Option<PathBuf>,
    pub dependencies: Option<PathBuf>,
}

/// One version's selection problem with its ground truth and the mined logs of the version before.
#[derive(Debug, Clone)]
pub struct Case {
    pub version: u32,
    pub tests: Vec<TestCase>,
    pub changed: Vec<String>,
    /// Ids of the tests that reveal some fault of this version.
    pub revealing: HashSet<String>,
    pub faults: usize,
    /// The static service graph of this version, `(caller, callee)`.
    pub dependencies: Vec<(String, String)>,
    /// Supports mined from the previous version's logs.
    pub supports: Supports,
    /// Time to read and mine those logs.
    pub mining: Duration,
    /// Malformed-record reports of the files read (empty when mined in memory).
    pub reports: Vec<ReadReport>,
}

/// What one method selected on a case.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub selected: Vec<usize>,
    /// Absolute `c` and threshold `p` used (MRTS-BP only).
    pub c: Option<f64>,
    pub p: Option<f64>,
    pub metrics: Metrics,
}

/// Reads and mines trace files (the format of each guessed when `format` is `None`), parsing on a
/// second thread.
pub fn mine_files(paths: &[PathBuf], format: Option<Format>) -> Result<(Supports, Vec<ReadReport>), FormatError> {
    let mut miner = Miner::new();
    let mut reports = Vec::new();
    for path in paths {
        let mut reader = TraceReader::open(path, format)?;
        miner.add_reader_parallel(&mut reader)?;
        reports.push(reader.into_report());
    }
    Ok((miner.finish(), reports))
}

/// Feeds a span stream with whole traces contiguous (as the simulator emits it) to a miner.
pub struct TraceBatcher {
    miner: Miner,
    trace: Vec<SpanRecord>,
    len: usize,
    /// Time spent mining (not producing the spans).
    pub mining: Duration,
}

impl Default for TraceBatcher {
    fn default() -> Self {
        TraceBatcher { miner: Miner::new(), trace: Vec::new(), len: 0, mining: Duration::ZERO }
    }
}

impl TraceBatcher {
    pub fn push(&mut self, span: &SpanRecord) {
        if self.len > 0 && self.trace[0].trace_id != span.trace_id {
            self.flush();
        }
        // Slots are reused so that a long stream allocates only for its largest trace.
        if self.len == self.trace.len() {
            self.trace.push(span.clone());
        } else {
            self.trace[self.len].clone_from(span);
        }
        self.len += 1;
    }

    fn flush(&mut self) {
        let start = Instant::now();
        self.miner.add_trace(&self.trace[..self.len]);
        self.mining += start.elapsed();
        self.len = 0;
    }

    pub fn finish(mut self) -> (Supports, Duration) {
        if self.len > 0 {
            self.flush();
        }
        (self.miner.finish(), self.mining)
    }
}

/// Where the previous version's logs come from when a case is built from the simulator.
#[derive(Debug, Clone)]
pub enum LogSource {
    /// Spans go straight from the simulator to the miner; TS counts mining only.
    Memory,
    /// The logs are written in this format into the directory, then read back; TS counts reading.
    File(Format, PathBuf),
}

impl Case {
    /// Version `v` of a simulated system, mining `records` log records of version `v-1`.
    pub fn simulated(system: &System, v: u32, records: u64, logs: &LogSource) -> Result<Case, CaseError> {
        if v < 2 {
            return Err(CaseError::FirstVersion { version: v });
        }
        let version = system.version(v)?;
        let (supports, mining, reports) = match logs {
            LogSource::Memory => {
                let mut batcher = TraceBatcher::default();
                system.traffic(v - 1, records, &mut |span| {
                    batcher.push(span);
                    Ok(())
                })?;
                let (supports, mining) = batcher.finish();
                (supports, mining, Vec::new())
            }
            LogSource::File(format, dir) => {
                let path = dir.join(format!("v{}-{}", v - 1, trace_file_name(*format)));
                write_traffic(system, v - 1, records, *format, &path)?;
                let start = Instant::now();
                let (supports, reports) = mine_files(std::slice::from_ref(&path), Some(*format))?;
                let mining = start.elapsed();
                let _ = std::fs::remove_file(&path);
                (supports, mining, reports)
            }
        };
        Ok(Case {
            version: v,
            tests: system.tests(v)?,
            changed: system.changed_services(v)?.into_iter().map(String::from).collect(),
            revealing: version.faults.iter().flat_map(|f| f.revealing_tests.iter().cloned()).collect(),
            faults: version.faults.len(),
            dependencies: system.dependencies(v)?.into_iter().map(|(a, b)| (a.into(), b.into())).collect(),
            supports,
            mining,
            reports,
        })
    }

    /// Version `v` of a directory written by `rigor rts simulate` (or laid out the same way by
    /// hand): `v{v-1}/traces.*` is mined; `v{v}/` gives changed.txt, tests.csv, faults.csv and
    /// dependencies.csv.
    pub fn from_dir(dir: &Path, v: u32) -> Result<Case, CaseError> {
        if v < 2 {
            return Err(CaseError::FirstVersion { version: v });
        }
        let prev = dir.join(format!("v{}", v - 1));
        let traces = Format::ALL
            .iter()
            .map(|&f| (f, prev.join(trace_file_name(f))))
            .find(|(_, p)| p.is_file())
            .ok_or_else(|| CaseError::NoTraces {
                dir: prev.clone(),
                expected: Format::ALL.iter().map(|&f| trace_file_name(f)).collect::<Vec<_>>().join(", "),
            })?;
        let vdir = dir.join(format!("v{v}"));
        let files = CaseFiles {
            traces: vec![traces.1],
            format: Some(traces.0),
            changed: vdir.join("changed.txt"),
            tests: vdir.join("tests.csv"),
            faults: Some(vdir.join("faults.csv")),
            dependencies: Some(vdir.join("dependencies.csv")),
        };
        Case::from_files(&files, v)
    }

    /// A case from files named one by one (the `rts.select` job kind's subject files, or
    /// `rigor rts evaluate` on data laid out otherwise). Without faults every metric of safety is
    /// absent; without dependencies the static baseline uses the edges seen in the logs.
    pub fn from_files(files: &CaseFiles, version: u32) -> Result<Case, CaseError> {
        let start = Instant::now();
        let (supports, reports) = mine_files(&files.traces, files.format)?;
        let mining = start.elapsed();
        let open = |path: &Path| {
            File::open(path)
                .map(|f| (path.display().to_string(), f))
                .map_err(|source| CaseError::Io { path: path.to_path_buf(), source })
        };
        let (name, f) = open(&files.changed)?;
        let changed = read_changed(&name, f)?;
        let (name, f) = open(&files.tests)?;
        let tests = read_tests(&name, f)?;
        let faults = match &files.faults {
            Some(path) => {
                let (name, f) = open(path)?;
                read_faults(&name, f)?
            }
            None => Vec::new(),
        };
        let dependencies = match &files.dependencies {
            Some(path) => {
                let (name, f) = open(path)?;
                read_dependencies(&name, f)?
            }
            None => supports.pairs().into_iter().map(|(a, b, _)| (a.to_string(), b.to_string())).collect(),
        };
        Ok(Case {
            version,
            tests,
            changed,
            revealing: faults.iter().flat_map(|f| f.revealing_tests.iter().cloned()).collect(),
            faults: faults.len(),
            dependencies,
            supports,
            mining,
            reports,
        })
    }

    /// Runs one method; TS is measured (plus the mining time for MRTS-BP).
    pub fn run(&self, method: &Method) -> Outcome {
        let start = Instant::now();
        let (selected, c, p, ts) = match method {
            Method::MrtsBp(options) => {
                let s = select_from_supports(&self.supports, &self.changed, &self.tests, options);
                (s.selected, Some(self.supports.absolute(options.threshold)), s.p, self.mining + start.elapsed())
            }
            Method::Static { depth } => {
                let graph = StaticGraph::from_edges(self.dependencies.iter().map(|(a, b)| (a.as_str(), b.as_str())));
                let s = select_static(&self.tests, &graph, &self.changed, *depth);
                (s, None, None, start.elapsed())
            }
            Method::RetestAll => (retest_all(&self.tests), None, None, Duration::ZERO),
        };
        let metrics = evaluate(&self.tests, &selected, &self.revealing, ts);
        Outcome { selected, c, p, metrics }
    }

    /// MRTS-BP at each `c` of the sweep over `steps` equal steps between the smallest and largest
    /// item frequency of the mined logs (experiment 1); `options.threshold` is replaced.
    pub fn sweep(&self, steps: usize, options: &Options) -> Vec<Outcome> {
        self.supports
            .c_sweep(steps)
            .into_iter()
            .map(|threshold| self.run(&Method::MrtsBp(Options { threshold, ..*options })))
            .collect()
    }
}

/// The index of the largest `c` of a sweep at which recall is 100% (a version without faults
/// counts as safe everywhere), or `None` when no step is safe.
pub fn largest_safe(sweep: &[Outcome]) -> Option<usize> {
    sweep.iter().rposition(|o| o.metrics.recall.is_none_or(|r| r >= 1.0))
}

/// Writes `records` log records of version `v` in `format` to `path`.
pub fn write_traffic(system: &System, v: u32, records: u64, format: Format, path: &Path) -> Result<(), CaseError> {
    use std::io::{BufWriter, Write};
    let io = |source| CaseError::Io { path: path.to_path_buf(), source };
    let file = File::create(path).map_err(io)?;
    let mut writer = TraceWriter::new(format, BufWriter::with_capacity(1 << 20, file));
    system.traffic(v, records, &mut |span| writer.write(span)).map_err(|e| match e {
        simulate::SimError::Sink(source) => CaseError::Io { path: path.to_path_buf(), source },
        other => other.into(),
    })?;
    writer.finish().and_then(|mut out| out.flush()).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::select::{Seeds, Strategy};
    use crate::simulate::{write_dir, Profile};

    fn small() -> System {
        System::generate(&Profile::custom("small", 30, 3_000, 3, 120), 5).unwrap()
    }

    #[test]
    fn memory_file_and_directory_cases_agree() {
        let system = small();
        let dir = tempfile::tempdir().unwrap();
        let memory = Case::simulated(&system, 2, 3_000, &LogSource::Memory).unwrap();
        for format in Format::ALL {
            let file = Case::simulated(&system, 2, 3_000, &LogSource::File(format, dir.path().to_path_buf())).unwrap();
            assert_eq!(file.supports.pairs(), memory.supports.pairs(), "{format}");
            assert_eq!(file.reports[0].records, 3_000, "{format}");
            assert_eq!(file.reports[0].malformed_count, 0, "{format}");
        }
        let out = dir.path().join("sim");
        write_dir(&system, &out, Format::Zipkin).unwrap();
        let from_dir = Case::from_dir(&out, 2).unwrap();
        assert_eq!(from_dir.supports.pairs(), memory.supports.pairs());
        assert_eq!(from_dir.tests, memory.tests);
        assert_eq!(from_dir.changed, memory.changed);
        assert_eq!(from_dir.revealing, memory.revealing);
        assert_eq!(from_dir.dependencies, memory.dependencies);
        let options = Options::default();
        assert_eq!(from_dir.run(&Method::MrtsBp(options)).selected, memory.run(&Method::MrtsBp(options)).selected);
    }

    #[test]
    fn first_version_and_missing_files_are_errors() {
        let system = small();
        assert!(matches!(Case::simulated(&system, 1, 10, &LogSource::Memory), Err(CaseError::FirstVersion { version: 1 })));
        let dir = tempfile::tempdir().unwrap();
        let e = Case::from_dir(dir.path(), 2).unwrap_err().to_string();
        assert!(e.contains("no traces file") && e.contains("v1"), "{e}");
    }

    #[test]
    fn baselines_bracket_mrts_bp_and_all_seeds_are_safe() {
        let system = small();
        for v in 2..=3 {
            let case = Case::simulated(&system, v, 3_000, &LogSource::Memory).unwrap();
            let all = case.run(&Method::RetestAll);
            assert_eq!(all.metrics.nr, case.tests.len());
            assert_eq!(all.metrics.recall.unwrap_or(1.0), 1.0);
            let sweep = case.sweep(10, &Options::default());
            assert!(!sweep.is_empty());
            // Every changed service seeds the propagation, so existent satisfaction selects every
            // test through a faulty (changed) service at any c.
            for o in &sweep {
                assert_eq!(o.metrics.recall.unwrap_or(1.0), 1.0, "c = {:?}", o.c);
                assert!(o.metrics.nr <= all.metrics.nr);
            }
            // Larger c never adds SDM edges, so the selection only shrinks along the sweep.
            for w in sweep.windows(2) {
                let later: HashSet<_> = w[1].selected.iter().collect();
                assert!(later.iter().all(|i| w[0].selected.contains(i)));
            }
            let frequent = case.sweep(10, &Options { seeds: Seeds::Frequent, ..Options::default() });
            let last = frequent.last().unwrap();
            assert!(last.metrics.nr <= sweep.last().unwrap().metrics.nr);
            assert_eq!(largest_safe(&sweep), Some(sweep.len() - 1));
            let complete = case.run(&Method::MrtsBp(Options { strategy: Strategy::Complete, ..Options::default() }));
            assert!(complete.metrics.nr <= sweep[0].metrics.nr);
        }
    }

    #[test]
    fn largest_safe_picks_the_last_step_with_full_recall() {
        let outcome = |recall: Option<f64>| Outcome {
            selected: vec![],
            c: None,
            p: None,
            metrics: Metrics { recall, ..evaluate(&[], &[], &HashSet::new(), Duration::ZERO) },
        };
        let sweep = [outcome(Some(1.0)), outcome(Some(1.0)), outcome(Some(0.5)), outcome(Some(1.0)), outcome(Some(0.2))];
        assert_eq!(largest_safe(&sweep), Some(3));
        assert_eq!(largest_safe(&[outcome(Some(0.9))]), None);
        assert_eq!(largest_safe(&[outcome(None), outcome(Some(0.0))]), Some(0));
    }
}
