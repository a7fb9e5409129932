//! `rigor rts ...`: regression test selection for microservices from traces, without a study.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::{Args, Subcommand};
use rigor_rts::evaluate::{largest_safe, mine_files, Case, Method, Outcome};
use rigor_rts::formats::{Format, ReadReport};
use rigor_rts::metrics::evaluate;
use rigor_rts::mine::{Supports, Threshold};
use rigor_rts::propagate::Direction;
use rigor_rts::record::read_tests;
use rigor_rts::select::{impact_of, select_from_supports, Options, Seeds, Strategy};
use rigor_rts::simulate::{read_changed, write_dir, Profile, System};

use super::UsageError;

#[derive(Subcommand)]
pub enum RtsCommand {
    /// Generate a microservice system with versions, traffic, tests and seeded faults
    #[command(after_help = "Examples:\n  rigor rts simulate --profile m-ticket --out sim/m-ticket\n  rigor rts simulate --profile need --format otlp --records 100000 --out sim/need\n\n\
Profiles (the MRTS-BP paper's systems): m-ticket (61 services, 40,000 log records, 5 versions, 1,182 tests), \
z-shop (43, 20,000, 4, 913), need (169, 2,000,000, 4, 847), joa (605, 50,000,000, 9, 13,356). \
The same profile and seed give the same files, byte for byte. DIR gets system.json and per version v<V>/: \
traces.<format>, changed.txt, tests.csv (id,path,time_ms), faults.csv (ground truth), dependencies.csv \
(the static service graph), coverage.csv.")]
    Simulate(SimulateArgs),
    /// Mine traces: the service dependency matrix (SDM) at a threshold c, as CSV
    #[command(after_help = "Examples:\n  rigor rts mine --traces sim/m-ticket/v1/traces.csv\n  rigor rts mine --traces spans.jaeger.json --threshold-c 5%\n\n\
Prints caller,callee,support,weight for every SDM entry (support of the sub-path caller→callee above c; \
weight = supp(caller→callee) / supp(caller)); on stderr the records read, malformed records with their \
line, and the item frequency range that experiment 1's c sweep spans.")]
    Mine(MineArgs),
    /// Propagate the impact of changed services: the change impact table, as CSV
    #[command(after_help = "Examples:\n  rigor rts impact --traces v1/traces.csv --changed svc-orders,svc-pay")]
    Impact(ImpactArgs),
    /// Select the regression tests of a new version from the old version's traces (MRTS-BP)
    #[command(after_help = "Examples:\n  rigor rts select --traces sim/m-ticket/v1/traces.csv --changed sim/m-ticket/v2/changed.txt --tests sim/m-ticket/v2/tests.csv\n  rigor rts select --traces a.json b.json --changed orders,payment --tests tests.csv --strategy k-existent --k 2\n\n\
Prints the selected test ids, one per line; NO, NR, EN and the selection time (reading and mining \
included) go to stderr. Tests are CSV id,path,time_ms with the path's services joined by `;`.")]
    Select(SelectArgs),
    /// Every metric for MRTS-BP, the static baseline and retest-all on one version of a simulated system
    #[command(after_help = "Examples:\n  rigor rts evaluate sim/m-ticket --version 2\n  rigor rts evaluate sim/need --version 4 --c-step largest-safe --seeds frequent\n\n\
Mines DIR/v<V-1>/traces.*, and reads DIR/v<V>/changed.txt, tests.csv, faults.csv and dependencies.csv. \
Prints the c sweep (recall and EN of MRTS-BP at ten equal steps between the smallest and largest item \
frequency) and then NO, NR, EN, TO, TR, TS, ET, NOF, NSF, recall, precision and F per method.")]
    Evaluate(EvaluateArgs),
}

#[derive(Args)]
pub struct SimulateArgs {
    /// m-ticket, z-shop, need or joa
    #[arg(long)]
    pub profile: String,
    /// Seed of the system, its traffic, tests and faults
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Trace format: csv, jaeger, zipkin or otlp
    #[arg(long, default_value = "csv")]
    pub format: Format,
    /// Log records per version (default: the profile's)
    #[arg(long)]
    pub records: Option<u64>,
    /// Output directory (created; existing files are overwritten)
    #[arg(long)]
    pub out: PathBuf,
}

/// Trace files and how to read them.
#[derive(Args)]
pub struct Traces {
    /// Trace files (Jaeger JSON, Zipkin v2 JSON, OTLP JSON or the CSV gateway log)
    #[arg(long, num_args = 1.., required = true)]
    pub traces: Vec<PathBuf>,
    /// Format of every trace file (default: guessed per file from its name and first bytes)
    #[arg(long)]
    pub format: Option<Format>,
}

/// The choices of MRTS-BP.
#[derive(Args)]
pub struct Choices {
    /// Frequent threshold c: a count (`12`) or a share of the transactions (`5%`)
    #[arg(long, default_value = "0")]
    pub threshold_c: Threshold,
    /// existent, complete, k-existent (with --k) or N-existent
    #[arg(long, default_value = "existent")]
    pub strategy: String,
    /// k of k-existent satisfaction: at least k services of the test's path impacted
    #[arg(long, default_value_t = 2)]
    pub k: usize,
    /// Impact threshold p (default: the smallest non-zero impact)
    #[arg(long)]
    pub p: Option<f64>,
    /// forward (caller→callee, as CIPC) or backward (callee→caller)
    #[arg(long, default_value = "forward")]
    pub direction: Direction,
    /// Changed services that seed the propagation: all (safe) or frequent (supp >= c, the paper's reading)
    #[arg(long, default_value = "all")]
    pub seeds: Seeds,
}

impl Choices {
    fn options(&self) -> anyhow::Result<Options> {
        if let Some(p) = self.p {
            if !(0.0..=1.0).contains(&p) {
                return Err(UsageError(format!("--p {p}: an impact threshold is between 0 and 1")).into());
            }
        }
        Ok(Options {
            threshold: self.threshold_c,
            strategy: Strategy::parse(&self.strategy, self.k).map_err(UsageError)?,
            p: self.p,
            direction: self.direction,
            seeds: self.seeds,
        })
    }
}

#[derive(Args)]
pub struct MineArgs {
    #[command(flatten)]
    pub traces: Traces,
    /// Frequent threshold c: a count or a share of the transactions (`5%`)
    #[arg(long, default_value = "0")]
    pub threshold_c: Threshold,
}

#[derive(Args)]
pub struct ImpactArgs {
    #[command(flatten)]
    pub traces: Traces,
    /// Changed services: a comma-separated list, or a file with one per line
    #[arg(long)]
    pub changed: String,
    #[command(flatten)]
    pub choices: Choices,
}

#[derive(Args)]
pub struct SelectArgs {
    #[command(flatten)]
    pub traces: Traces,
    /// Changed services: a comma-separated list, or a file with one per line
    #[arg(long)]
    pub changed: String,
    /// The test suite: CSV id,path,time_ms
    #[arg(long)]
    pub tests: PathBuf,
    #[command(flatten)]
    pub choices: Choices,
}

#[derive(Args)]
pub struct EvaluateArgs {
    /// A directory written by `rigor rts simulate`
    pub dir: PathBuf,
    /// The new version (>= 2); the logs of the version before are mined
    #[arg(long)]
    pub version: u32,
    #[command(flatten)]
    pub choices: Choices,
    /// Use step N of the c sweep (0 = smallest item frequency) or `largest-safe` (the largest c
    /// with recall 100%, the paper's experiment 2) instead of --threshold-c
    #[arg(long)]
    pub c_step: Option<String>,
    /// Steps of the c sweep
    #[arg(long, default_value_t = 10)]
    pub steps: usize,
    /// Static baseline: dependents of a changed service within this many edges (0 = transitively)
    #[arg(long, default_value_t = 1)]
    pub static_depth: usize,
}

pub fn rts(c: RtsCommand) -> anyhow::Result<ExitCode> {
    match c {
        RtsCommand::Simulate(a) => simulate(a),
        RtsCommand::Mine(a) => mine(a),
        RtsCommand::Impact(a) => impact(a),
        RtsCommand::Select(a) => select(a),
        RtsCommand::Evaluate(a) => evaluate_cmd(a),
    }
}

fn simulate(a: SimulateArgs) -> anyhow::Result<ExitCode> {
    let mut profile = Profile::by_name(&a.profile)
        .ok_or_else(|| UsageError(format!("unknown profile `{}` (known: {})", a.profile, Profile::NAMES.join(", "))))?;
    if let Some(r) = a.records {
        profile.log_records = r;
    }
    let start = Instant::now();
    let system = System::generate(&profile, a.seed).map_err(|e| UsageError(e.to_string()))?;
    write_dir(&system, &a.out, a.format)?;
    for v in &system.versions {
        let changed = system.changed_services(v.number)?;
        eprintln!("v{}: {} changed services, {} faults", v.number, changed.len(), v.faults.len());
    }
    eprintln!(
        "{}: {} services, {} tests, {} versions × {} log records ({}) in {:.1} s → {}",
        profile.name,
        system.services.len(),
        system.tests.len(),
        system.versions.len(),
        profile.log_records,
        a.format,
        start.elapsed().as_secs_f64(),
        a.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Reads and mines the traces, reporting malformed records on stderr.
fn mine_traces(t: &Traces) -> anyhow::Result<(Supports, Duration)> {
    for p in &t.traces {
        if !p.is_file() {
            return Err(UsageError(format!("{}: no such trace file", p.display())).into());
        }
    }
    let start = Instant::now();
    let (supports, reports) = mine_files(&t.traces, t.format).map_err(|e| UsageError(e.to_string()))?;
    let elapsed = start.elapsed();
    report_malformed(&reports);
    Ok((supports, elapsed))
}

fn report_malformed(reports: &[ReadReport]) {
    for r in reports {
        eprint!("{}: {} records", r.file, r.records);
        if r.malformed_count == 0 {
            eprintln!();
            continue;
        }
        eprintln!(", {} malformed (skipped):", r.malformed_count);
        for (line, message) in &r.malformed {
            eprintln!("  {}:{line}: {message}", r.file);
        }
        if r.malformed_count > r.malformed.len() as u64 {
            eprintln!("  ... and {} more", r.malformed_count - r.malformed.len() as u64);
        }
    }
}

/// `a,b,c`, or a file with one service per line.
fn changed_services(arg: &str) -> anyhow::Result<Vec<String>> {
    let path = Path::new(arg);
    if path.is_file() {
        let f = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
        return read_changed(&path.display().to_string(), f).map_err(|e| UsageError(e.to_string()).into());
    }
    let list: Vec<String> = arg.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
    if list.is_empty() {
        return Err(UsageError("--changed names no service (a comma-separated list or a file)".into()).into());
    }
    Ok(list)
}

fn mine(a: MineArgs) -> anyhow::Result<ExitCode> {
    let (supports, elapsed) = mine_traces(&a.traces)?;
    let sdm = supports.sdm(a.threshold_c);
    println!("caller,callee,support,weight");
    for (i, j, w) in sdm.entries() {
        let (from, to) = (&sdm.services()[i], &sdm.services()[j]);
        println!("{from},{to},{},{w}", supports.pair_support(from, to));
    }
    eprintln!(
        "{} traces, {} spans, {} transactions, {} services; {} SDM entries at c = {}; mined in {:.3} s",
        supports.traces,
        supports.spans,
        supports.transactions,
        supports.services().len(),
        sdm.len(),
        supports.absolute(a.threshold_c),
        elapsed.as_secs_f64()
    );
    if let Some((lo, hi)) = supports.item_frequency_range() {
        eprintln!("item frequency range: {lo}..={hi} (the c sweep of experiment 1)");
    }
    Ok(ExitCode::SUCCESS)
}

fn impact(a: ImpactArgs) -> anyhow::Result<ExitCode> {
    let options = a.choices.options()?;
    let changed = changed_services(&a.changed)?;
    let (supports, _) = mine_traces(&a.traces)?;
    let (cit, _) = impact_of(&supports, &changed, &options);
    println!("service,impact");
    for (s, p) in cit.table() {
        println!("{s},{p}");
    }
    Ok(ExitCode::SUCCESS)
}

fn select(a: SelectArgs) -> anyhow::Result<ExitCode> {
    let options = a.choices.options()?;
    let changed = changed_services(&a.changed)?;
    let file = std::fs::File::open(&a.tests).with_context(|| format!("reading {}", a.tests.display()))?;
    let tests = read_tests(&a.tests.display().to_string(), file).map_err(|e| UsageError(e.to_string()))?;
    let (supports, mining) = mine_traces(&a.traces)?;
    let start = Instant::now();
    let selection = select_from_supports(&supports, &changed, &tests, &options);
    let ts = mining + start.elapsed();
    for id in selection.ids(&tests) {
        println!("{id}");
    }
    let m = evaluate(&tests, &selection.selected, &HashSet::new(), ts);
    eprintln!(
        "NO {}  NR {}  EN {}  p {}  TS {:.3} s (reading and mining {:.3} s)",
        m.no,
        m.nr,
        percent(m.en),
        selection.p.map_or("-".into(), |p| format!("{p:.4}")),
        ts.as_secs_f64(),
        mining.as_secs_f64()
    );
    Ok(ExitCode::SUCCESS)
}

fn evaluate_cmd(a: EvaluateArgs) -> anyhow::Result<ExitCode> {
    let mut options = a.choices.options()?;
    let case = Case::from_dir(&a.dir, a.version).map_err(|e| UsageError(e.to_string()))?;
    report_malformed(&case.reports);
    let sweep = case.sweep(a.steps, &options);
    println!("c sweep (MRTS-BP, {}):", a.choices.strategy);
    println!("{:>5} {:>12} {:>8} {:>8} {:>6}", "step", "c", "recall", "EN", "NR");
    for (i, o) in sweep.iter().enumerate() {
        println!("{i:>5} {:>12.1} {:>8} {:>8} {:>6}", o.c.unwrap_or(0.0), percent(o.metrics.recall), percent(o.metrics.en), o.metrics.nr);
    }
    if let Some(step) = &a.c_step {
        let index = match step.as_str() {
            "largest-safe" => largest_safe(&sweep).ok_or_else(|| UsageError("no c of the sweep has recall 100%".into()))?,
            n => n.parse::<usize>().map_err(|_| UsageError(format!("--c-step `{n}`: a step number or largest-safe")))?,
        };
        let o = sweep.get(index).ok_or_else(|| UsageError(format!("--c-step {index}: the sweep has {} steps", sweep.len())))?;
        options.threshold = Threshold::Absolute(o.c.unwrap_or(0.0));
    }
    println!();
    println!(
        "version {}: {} tests, {} changed services, {} faults ({} revealing tests)",
        case.version,
        case.tests.len(),
        case.changed.len(),
        case.faults,
        case.revealing.len()
    );
    println!(
        "{:<11} {:>6} {:>6} {:>7} {:>11} {:>11} {:>9} {:>7} {:>4} {:>4} {:>7} {:>9} {:>7}",
        "method", "NO", "NR", "EN", "TO (ms)", "TR (ms)", "TS (ms)", "ET", "NOF", "NSF", "recall", "precision", "F"
    );
    let depth = (a.static_depth > 0).then_some(a.static_depth);
    for method in [Method::MrtsBp(options), Method::Static { depth }, Method::RetestAll] {
        let Outcome { metrics: m, .. } = case.run(&method);
        println!(
            "{:<11} {:>6} {:>6} {:>7} {:>11.0} {:>11.0} {:>9.1} {:>7} {:>4} {:>4} {:>7} {:>9} {:>7}",
            method.name(),
            m.no,
            m.nr,
            percent(m.en),
            m.to_ms,
            m.tr_ms,
            m.ts_ms,
            percent(m.et),
            m.nof,
            m.nsf,
            percent(m.recall),
            percent(m.precision),
            percent(m.f)
        );
    }
    eprintln!("MRTS-BP at c = {}", case.supports.absolute(options.threshold));
    Ok(ExitCode::SUCCESS)
}

fn percent(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.1}%", 100.0 * x))
}
