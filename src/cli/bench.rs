//! `rigor bench`: figures about rigor itself, measured end to end with real processes.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Instant;

use clap::{Args, Subcommand};
use rigor_proto::client::Target;

use super::remote::follow;
use super::submit;

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Scheduler throughput (noop jobs, coordinator + worker processes) and million-job planning
    #[command(after_help = "Examples:\n  rigor bench scheduler\n  rigor bench scheduler --jobs 50000 --plan-jobs 0 --prefetch 4\n\nThe last line is `jobs/s: <figure>`: noop jobs submitted, leased, run in executors, completed and durably stored per second. Build with --release for meaningful figures.")]
    Scheduler(SchedulerArgs),
    /// Pairwise A12 + Mann-Whitney over a synthetic million-row results frame, next to SciPy
    #[command(after_help = "Examples:\n  rigor bench analysis\n  rigor bench analysis --no-scipy\n\n\
The frame is subjects x techniques x cells x repetitions values (default 10 x 10 x 100 x 100 = 1,000,000 rows). \
Within each subject and cell, every pair of techniques is compared (Mann-Whitney U with SciPy's default method, \
A12, Holm per cell) and the comparison table is rendered (LaTeX, Markdown, CSV). The same data then goes to \
analysis/bench/scipy_pairwise.py (python3 with numpy and scipy) for the same computation. The last line is `speedup: <x>`.")]
    Analysis(AnalysisArgs),
    /// Metamorphic relation generation: time per run on MRG's largest subjects and a 32-parameter one
    #[command(after_help = "Examples:\n  rigor bench mr\n  rigor bench mr --runs 50 --mrg-dir experiments/mr/tests/fixtures/mrg\n\n\
Times generation only (spec and tests loaded once), in compat mode (MRG's output) and native mode, for \
Prestashop and Steam (the largest MRG subjects shipped with rigor) and a synthetic subject of 32 parameters \
(27 conjunctive filters, 2 disjoint, 7 complete, 1 ordering; 20 source tests; ~1,000 relations per run). \
The anchors are the original Java tool's published times on a 2-core machine (it cannot be run here: \
its source is not shipped); the last line is `synthetic speedup vs 29 s: <x>`.")]
    Mr(MrBenchArgs),
    /// Covering arrays: suite sizes and times on unconstrained arrays and the CASA benchmarks
    #[command(after_help = "Examples:\n  rigor bench ct\n  rigor bench ct --only unconstrained\n\n\
Every suite is verified by the independent coverage checker before its size is printed. Best-known sizes \
of unconstrained arrays are Colbourn's tables (experiments/ct/tests/fixtures/casa/NOTE.md). `insurance` runs \
t=4 and t=5 relevant coverage on the CRT case study's 32-parameter profile.")]
    Ct(CtBenchArgs),
    /// Regression test selection (MRTS-BP): records/s per trace format, and JOA end to end
    #[command(after_help = "Examples:\n  rigor bench rts\n  rigor bench rts --profile need --format-records 500000\n  rigor bench rts --records 5000000 --dir /scratch\n\n\
Generates the profile's system (default JOA: 605 services, 13,356 tests), measures reading + mining of \
--format-records log records in each trace format, then writes version 1's whole log (JOA: 50,000,000 CSV \
records, about 6 GB) and times MRTS-BP end to end on it: reading, mining, propagation and selection for \
version 2. The last line is `seconds: <end-to-end figure>` (the paper's TS for JOA reaches 137 s).")]
    Rts(super::rts_bench::RtsBenchArgs),
}

#[derive(Args)]
pub struct CtBenchArgs {
    /// unconstrained | casa | insurance | all
    #[arg(long, default_value = "all")]
    pub only: String,
    /// Folder with the CASA models
    #[arg(long, default_value = "experiments/ct/tests/fixtures/casa")]
    pub casa_dir: std::path::PathBuf,
    /// Variants per model (the natural order, then seeded random orders); the smallest is kept
    #[arg(long, default_value_t = 1)]
    pub tries: usize,
    /// Time budget per model for the variants
    #[arg(long, default_value_t = 8.0)]
    pub budget_s: f64,
}

#[derive(Args)]
pub struct MrBenchArgs {
    /// Runs per subject and mode (seeds 1 + 10000*(i-1))
    #[arg(long, default_value_t = 20)]
    pub runs: usize,
    /// Folder with the MRG subjects (Prestashop/, Steam/)
    #[arg(long, default_value = "experiments/mr/tests/fixtures/mrg")]
    pub mrg_dir: std::path::PathBuf,
}

#[derive(Args)]
pub struct AnalysisArgs {
    #[arg(long, default_value_t = 10)]
    pub subjects: usize,
    #[arg(long, default_value_t = 10)]
    pub techniques: usize,
    #[arg(long, default_value_t = 100)]
    pub cells: usize,
    #[arg(long, default_value_t = 100)]
    pub repetitions: usize,
    /// Skip the SciPy run
    #[arg(long)]
    pub no_scipy: bool,
    /// Python interpreter with numpy and scipy
    #[arg(long, default_value = "python3")]
    pub python: String,
}

#[derive(Args)]
pub struct SchedulerArgs {
    /// Noop jobs in the throughput run
    #[arg(long, default_value_t = 20_000)]
    pub jobs: u64,
    /// Worker processes
    #[arg(long, default_value_t = 2)]
    pub workers: usize,
    /// Slots per worker
    #[arg(long, default_value_t = 8)]
    pub slots: usize,
    /// Jobs each worker leases ahead of its free slots
    #[arg(long, default_value_t = 2)]
    pub prefetch: usize,
    /// Jobs in the planning run (0 skips it)
    #[arg(long, default_value_t = 1_000_000)]
    pub plan_jobs: u64,
}

/// Kills a child process when dropped, so a failed bench leaves nothing behind.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_coordinator(data: &Path) -> anyhow::Result<(Guard, String)> {
    let exe = std::env::current_exe()?;
    let mut child = Command::new(exe)
        .args(["coordinator", "--listen", "127.0.0.1:0", "--data"])
        .arg(data)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let stdout = child.stdout.take().expect("piped");
    let guard = Guard(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let addr = line.trim().strip_prefix("listening on ").ok_or_else(|| anyhow::anyhow!("coordinator said `{line}`"))?;
    Ok((guard, format!("http://{addr}")))
}

/// A noop study of about `jobs` jobs: subjects × repetitions.
fn write_study(dir: &Path, name: &str, jobs: u64) -> anyhow::Result<std::path::PathBuf> {
    let subjects = 100u64.min(jobs.max(1));
    let reps = jobs.div_ceil(subjects);
    let list: Vec<String> = (0..subjects).map(|i| format!("\"s{i}\"")).collect();
    let text = format!(
        "[study]\nname = \"{name}\"\nseed = 1\nrepetitions = {reps}\n\n[[experiment]]\nid = \"noop\"\nkind = \"noop\"\nsubjects = [{}]\nparams = {{ work_ms = [0], points = [0] }}\n",
        list.join(", ")
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text)?;
    Ok(path)
}

pub(super) fn peak_rss_mib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse::<f64>().ok()))
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

pub async fn bench(cmd: BenchCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        BenchCommand::Scheduler(a) => scheduler(a).await,
        BenchCommand::Analysis(a) => analysis(a),
        BenchCommand::Mr(a) => mr_bench(a),
        BenchCommand::Ct(a) => ct_bench(a),
        BenchCommand::Rts(a) => tokio::task::spawn_blocking(move || super::rts_bench::rts_bench(a)).await?,
    }
}

/// `counts` like [(4, 15), (3, 17), (2, 29)]: 4^15 3^17 2^29.
fn uniform_model(counts: &[(usize, usize)]) -> rigor_ct::Model {
    let mut params = Vec::new();
    for &(size, n) in counts {
        for _ in 0..n {
            params.push(rigor_ct::Param {
                name: format!("p{}", params.len()),
                values: (0..size).map(|v| v.to_string()).collect(),
                invalid: vec![],
            });
        }
    }
    rigor_ct::Model { name: "unconstrained".into(), params, ..Default::default() }
}

fn ct_bench(a: CtBenchArgs) -> anyhow::Result<ExitCode> {
    use rigor_ct::check::{check, Criterion};
    use rigor_ct::ipog::Variant;
    use rigor_ct::suite::{generate, Goal};
    let run = |label: &str, model: &rigor_ct::Model, t: usize, reference: &str| -> anyhow::Result<()> {
        let start = Instant::now();
        let suite = if a.tries > 1 {
            rigor_ct::suite::generate_best(model, Goal::Relevant(t), std::time::Duration::from_secs_f64(a.budget_s), a.tries)?
        } else {
            generate(model, Goal::Relevant(t), Variant::default())?
        };
        let secs = start.elapsed().as_secs_f64();
        let report = check(model, &suite, Criterion::Relevant(t));
        anyhow::ensure!(report.ok(), "{label} t={t}: the checker finds {} missing tuples", report.missing.len());
        println!("{label:<22} {t:>2} {:>8} {secs:>9.3} {reference:>24}", suite.len());
        Ok(())
    };
    println!("{:<22} {:>2} {:>8} {:>9} {:>24}", "model", "t", "tests", "seconds", "reference");
    if !["all", "unconstrained", "casa", "insurance"].contains(&a.only.as_str()) {
        return Err(super::UsageError(format!("--only {}: one of unconstrained, casa, insurance, all", a.only)).into());
    }
    if a.only == "all" || a.only == "unconstrained" {
        let cases: [(&str, &[(usize, usize)], usize, &str); 13] = [
            ("3^4", &[(3, 4)], 2, "best 9"),
            ("3^13", &[(3, 13)], 2, "best 15, PICT 18"),
            ("4^15 3^17 2^29", &[(4, 15), (3, 17), (2, 29)], 2, "PICT 37, best 29"),
            ("4^1 3^39 2^35", &[(4, 1), (3, 39), (2, 35)], 2, "-"),
            ("2^100", &[(2, 100)], 2, "best 10"),
            ("10^20", &[(10, 20)], 2, "best 155, PICT 210"),
            ("3^6", &[(3, 6)], 3, "best 33"),
            ("4^6", &[(4, 6)], 3, "best 64"),
            ("5^6", &[(5, 6)], 3, "best 125"),
            ("6^6", &[(6, 6)], 3, "best 258"),
            ("3^13", &[(3, 13)], 3, "best 45"),
            ("4^10", &[(4, 10)], 3, "best 100"),
            ("2^100", &[(2, 100)], 3, "best 33"),
        ];
        for (label, counts, t, reference) in cases {
            run(label, &uniform_model(counts), t, reference)?;
        }
    }
    if a.only == "all" || a.only == "casa" {
        // (file stem, label, ACTS 2.92 at t=2 and t=3, PICT at t=2 and t=3)
        let casa = [
            ("spins", "SPIN-S", [26, 98], [29, 130]),
            ("spinv", "SPIN-V", [45, 286], [63, 340]),
            ("gcc", "GCC", [23, 108], [32, 131]),
            ("apache", "Apache", [33, 173], [40, 198]),
            ("bugzilla", "Bugzilla", [19, 68], [19, 71]),
        ];
        for (stem, label, acts, pict) in casa {
            let path = a.casa_dir.join(format!("{stem}_2way.model"));
            let (model, _) = rigor_ct::parse::casa::read_with_strength(&path)
                .map_err(|e| anyhow::anyhow!("{e} (run from the repository root or pass --casa-dir)"))?;
            for (i, t) in [2usize, 3].into_iter().enumerate() {
                run(label, &model, t, &format!("ACTS {}, PICT {}", acts[i], pict[i]))?;
            }
        }
    }
    if a.only == "all" || a.only == "insurance" {
        // The CRT case study's profile: 32 parameters, 3 exclusions (error constraints do not
        // restrict relevant coverage). Its published suites: t=4 2,813 tests, t=5 15,024.
        let model = rigor_ct_insurance::model();
        for (t, reference) in [(4, "case study 2,813"), (5, "case study 15,024")] {
            run("insurance (relevant)", &model, t, reference)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn mr_bench(a: MrBenchArgs) -> anyhow::Result<ExitCode> {
    use rigor_mr::{generate, run_seed, spec::Spec, synthetic, tests_csv, Mode, Options, Sut};
    if a.runs == 0 {
        return Err(super::UsageError("--runs must be at least 1".into()).into());
    }
    // (subject, spec text, tests text, the original's published seconds per run)
    let mut subjects: Vec<(String, String, String, Option<f64>)> = Vec::new();
    for (name, anchor) in [("Prestashop", 0.5), ("Steam", 0.7)] {
        let dir = a.mrg_dir.join(name);
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).map_err(|e| anyhow::anyhow!("{}: {e} (run from the repository root or pass --mrg-dir)", dir.join(f).display()));
        subjects.push((name.into(), read("spec.yml")?, read("testCases.csv")?, Some(anchor)));
    }
    subjects.push(("synthetic-32".into(), synthetic::spec_yaml(), synthetic::tests_csv(), Some(29.0)));
    println!("{:<14} {:<7} {:>6} {:>9} {:>11} {:>12} {:>9}", "subject", "mode", "runs", "MRs/run", "ms/run", "original s", "speedup");
    let mut synthetic_speedup = f64::NAN;
    for (name, spec_text, tests_text, anchor) in &subjects {
        let spec = Spec::parse(spec_text, format!("{name}/spec.yml"))?;
        let f = &spec.features[0];
        for mode in [Mode::Compat, Mode::Native] {
            let sut = Sut::new(f, &f.id, mode)?;
            let tests = sut.tests(&tests_csv::parse(tests_text, format!("{name}/testCases.csv"), f)?)?;
            let mut mrs = 0;
            let start = Instant::now();
            for i in 1..=a.runs {
                let opts = Options { seed: run_seed(1, i), ..Options::default() };
                mrs += generate(&sut, &tests, &opts)?.mrs.len();
            }
            let per_run = start.elapsed().as_secs_f64() / a.runs as f64;
            let (anchor_s, speedup) = match (mode, anchor) {
                (Mode::Compat, Some(s)) => (format!("{s:.2}"), format!("{:.0}x", s / per_run)),
                _ => ("-".into(), "-".into()),
            };
            if mode == Mode::Compat && name == "synthetic-32" {
                synthetic_speedup = 29.0 / per_run;
            }
            let mode_name = if mode == Mode::Compat { "compat" } else { "native" };
            println!(
                "{name:<14} {mode_name:<7} {:>6} {:>9.1} {:>11.3} {anchor_s:>12} {speedup:>9}",
                a.runs,
                mrs as f64 / a.runs as f64,
                per_run * 1e3
            );
        }
    }
    println!("synthetic speedup vs 29 s: {synthetic_speedup:.0}x");
    Ok(ExitCode::SUCCESS)
}

async fn scheduler(a: SchedulerArgs) -> anyhow::Result<ExitCode> {
    let dir = tempfile::Builder::new().prefix("rigor-bench-").tempdir()?;
    let exe = std::env::current_exe()?;

    if a.plan_jobs > 0 {
        let (coordinator, url) = start_coordinator(&dir.path().join("plan"))?;
        let study = write_study(dir.path(), "plan", a.plan_jobs)?;
        let prepared = submit::prepare(&study)?;
        let clients = Target { url, ..Default::default() }.connect().await?;
        let t = Instant::now();
        let r = submit::send(&clients, &prepared, false).await?;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "plan: {} jobs planned and stored in {:.1} s ({:.0} jobs/s); coordinator peak RSS {:.0} MiB",
            r.jobs_total,
            secs,
            r.jobs_total as f64 / secs,
            peak_rss_mib(coordinator.0.id())
        );
    }

    let (coordinator, url) = start_coordinator(&dir.path().join("run"))?;
    let mut workers = Vec::new();
    for i in 0..a.workers {
        let child = Command::new(&exe)
            .args(["worker", "--coordinator", &url, "--slots", &a.slots.to_string(), "--id", &format!("bench-{i}")])
            .args(["--prefetch", &a.prefetch.to_string()])
            .arg("--cache")
            .arg(dir.path().join(format!("w{i}")))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()?;
        workers.push(Guard(child));
    }
    let study = write_study(dir.path(), "throughput", a.jobs)?;
    let prepared = submit::prepare(&study)?;
    let clients = Target { url, ..Default::default() }.connect().await?;
    // Let the workers register and start their executors before the clock starts.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let t = Instant::now();
    let r = submit::send(&clients, &prepared, false).await?;
    let status = follow(&clients, &r.study).await?;
    let secs = t.elapsed().as_secs_f64();
    let done: u64 = status.experiments.iter().map(|e| e.done).sum();
    println!(
        "throughput: {done} noop jobs on {} workers x {} slots (prefetch {}) in {:.2} s; coordinator peak RSS {:.0} MiB",
        a.workers,
        a.slots,
        a.prefetch,
        secs,
        peak_rss_mib(coordinator.0.id())
    );
    println!("jobs/s: {:.0}", done as f64 / secs);
    drop(workers);
    Ok(ExitCode::SUCCESS)
}

/// The SciPy side of `rigor bench analysis`, shipped inside the binary so it runs from anywhere.
const SCIPY_SCRIPT: &str = include_str!("../../analysis/bench/scipy_pairwise.py");

fn analysis(a: AnalysisArgs) -> anyhow::Result<ExitCode> {
    use rand::Rng;
    use rigor_analysis::pairwise::{all_pairs, pairs_table};
    use rigor_analysis::polars::prelude::{Column, DataFrame};
    use rigor_analysis::stats::CompareOptions;

    let (s, t, c, r) = (a.subjects, a.techniques, a.cells, a.repetitions);
    let n = s * t * c * r;
    // Values in subject, technique, cell, repetition order; technique k shifts the mean by k/20.
    let mut rng = rigor_technique::rng(7);
    let values: Vec<f64> = (0..n).map(|i| (i / (c * r) % t) as f64 / 20.0 + rng.random::<f64>()).collect();
    let idx = |i: usize| (i / (t * c * r), i / (c * r) % t, i / r % c);
    let df = DataFrame::new(
        n,
        vec![
            Column::new("subject".into(), (0..n).map(|i| format!("s{}", idx(i).0)).collect::<Vec<_>>()),
            Column::new("technique".into(), (0..n).map(|i| format!("t{}", idx(i).1)).collect::<Vec<_>>()),
            Column::new("cell".into(), (0..n).map(|i| format!("c{}", idx(i).2)).collect::<Vec<_>>()),
            Column::new("value".into(), values.clone()),
        ],
    )?;
    let threads = std::thread::available_parallelism().map_or(1, |p| p.get());
    let start = Instant::now();
    let pairs = all_pairs(&df, &["subject", "cell"], "technique", "value", &CompareOptions::default(), threads)?;
    let table = pairs_table("pairs", &["subject", "cell"], &pairs);
    let rendered = table.to_latex().len() + table.to_markdown().len() + table.to_csv().len();
    let rigor_s = start.elapsed().as_secs_f64();
    println!("frame: {n} rows ({s} subjects x {t} techniques x {c} cells x {r} repetitions)");
    println!("rigor: {} comparisons and tables ({} bytes) in {rigor_s:.3} s on {threads} threads", pairs.len(), rendered);
    let first = &pairs[0];
    println!("rigor first: u={} p={} a12={}", first.u, first.p, first.a12);
    if a.no_scipy {
        return Ok(ExitCode::SUCCESS);
    }
    let dir = tempfile::Builder::new().prefix("rigor-bench-analysis-").tempdir()?;
    let data = dir.path().join("values.f64");
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(&data, bytes)?;
    let script = dir.path().join("scipy_pairwise.py");
    std::fs::write(&script, SCIPY_SCRIPT)?;
    let out = Command::new(&a.python)
        .arg(&script)
        .arg(&data)
        .args([s, t, c, r].map(|x| x.to_string()))
        .arg(dir.path().join("scipy.csv"))
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run {}: {e} (or pass --no-scipy)", a.python))?;
    if !out.status.success() {
        anyhow::bail!("the SciPy script failed (needs numpy and scipy: pip install numpy scipy):\n{}", String::from_utf8_lossy(&out.stderr));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    print!("{}", text.lines().map(|l| format!("scipy {l}\n")).collect::<String>());
    let scipy_s: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("seconds: "))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| anyhow::anyhow!("the SciPy script printed no `seconds:` line"))?;
    println!("scipy: {scipy_s:.3} s");
    println!("speedup: {:.1}", scipy_s / rigor_s);
    Ok(ExitCode::SUCCESS)
}
