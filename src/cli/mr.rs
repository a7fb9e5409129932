//! `rigor mr ...`: metamorphic relations for query-based systems, without a study.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Args, Subcommand, ValueEnum};
use rigor_mr::{generate, render, run_seed, Mode, MrType, Options, Subject};

use super::UsageError;

#[derive(Subcommand)]
pub enum MrCommand {
    /// Generate metamorphic relations from an MRG specification and source tests
    #[command(after_help = "Examples:\n  rigor mr generate --spec Steam/spec.yml --tests Steam/testCases.csv --compat mrg --runs 10 --out results/\n  rigor mr generate --spec shop.yml --tests shop.csv --seed 7 --out mrs/\n\n\
Writes, for each run i = 1..N, MRs-random-<i>.csv, MRs-random-extended-<i>.csv and MRs-random-<i>.txt \
(plus MRs-random-<i>.json in native mode) into DIR, and prints per-run counts by pattern and the time. \
Run i uses seed S + 10000*(i-1) (S = --seed, default 1, the original's scheme). With --compat mrg the files \
are byte-identical to the MRG tool's; without it (native mode) specifications the original mishandles are \
refused with the reason, constraint values may contain spaces, and a complete-partition relation with an \
invalid part is dropped whole.\n\n\
Pattern columns: CC-/CC+ conjunctive contract/extend, DC-/DC+ disjunctive contract/extend, S-/S+ shuffling \
contract/extend, DP disjoint partition, CP complete partition, IE equivalence (default values).")]
    Generate(GenerateArgs),
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Compat {
    /// The MRG tool (MET22 release): identical output files
    Mrg,
}

#[derive(Args)]
pub struct GenerateArgs {
    /// MRG specification (YAML)
    #[arg(long)]
    pub spec: PathBuf,
    /// Source tests: `;`-separated CSV, header row, test id in column 0, empty cell = absent
    #[arg(long)]
    pub tests: PathBuf,
    /// Feature id (case-insensitive); default: the spec's only feature
    #[arg(long)]
    pub feature: Option<String>,
    /// The system's name in the natural-language output; default: the folder holding the spec
    #[arg(long)]
    pub name: Option<String>,
    /// Reproduce another tool's output exactly
    #[arg(long, value_enum)]
    pub compat: Option<Compat>,
    /// Number of runs
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Base seed; run i uses seed + 10000*(i-1)
    #[arg(long, default_value_t = 1, allow_negative_numbers = true)]
    pub seed: i64,
    /// Most follow-up tests per relation
    #[arg(long, default_value_t = 6)]
    pub max_follow_ups: usize,
    /// Tries per pattern and source test = this x the pattern's number of parameters
    #[arg(long, default_value_t = 1)]
    pub search_strength: usize,
    /// Native mode: relations differing only in the order of their follow-ups are duplicates
    #[arg(long)]
    pub unordered_duplicates: bool,
    /// Output directory (created)
    #[arg(long)]
    pub out: PathBuf,
}

pub fn mr(c: MrCommand) -> anyhow::Result<ExitCode> {
    match c {
        MrCommand::Generate(a) => generate_cmd(a),
    }
}

/// Short column names, in [`MrType::ALL`] order.
const COLUMNS: [&str; 9] = ["CC-", "CC+", "DC-", "DC+", "S-", "S+", "DP", "CP", "IE"];

fn generate_cmd(a: GenerateArgs) -> anyhow::Result<ExitCode> {
    if a.runs == 0 || a.max_follow_ups == 0 || a.search_strength == 0 {
        return Err(UsageError("--runs, --max-follow-ups and --search-strength must be at least 1".into()).into());
    }
    let mode = if a.compat.is_some() { Mode::Compat } else { Mode::Native };
    if mode == Mode::Compat && a.unordered_duplicates {
        return Err(UsageError("--unordered-duplicates is a native-mode option (drop --compat)".into()).into());
    }
    let subject = Subject::load(&a.spec, &a.tests, a.feature.as_deref(), a.name.as_deref(), mode)
        .map_err(|e| UsageError(e.to_string()))?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    println!(
        "{}: {} source tests, {} mode, {} run(s)",
        subject.domain,
        subject.tests.len(),
        if mode == Mode::Compat { "compat (mrg)" } else { "native" },
        a.runs
    );
    println!("{:>4} {:>12} {:>6} {} {:>14} {:>9}", "run", "seed", "MRs", cols(), "FU min/max/avg", "time");
    let mut totals = [0usize; 9];
    let mut all = 0usize;
    let mut secs = 0.0;
    for i in 1..=a.runs {
        let opts = Options {
            seed: run_seed(a.seed, i),
            search_strength: a.search_strength,
            max_futcs: a.max_follow_ups,
            max_per_test: None,
            unordered_duplicates: a.unordered_duplicates,
        };
        let run = generate(&subject.sut, &subject.tests, &opts)?;
        for (name, body) in render::files(&subject.sut, &subject.domain, i, &run.mrs, opts.max_futcs) {
            let path = a.out.join(&name);
            std::fs::write(&path, body).with_context(|| format!("writing {}", path.display()))?;
        }
        let counts: Vec<usize> = MrType::ALL.iter().map(|&t| run.count(t)).collect();
        for (t, c) in totals.iter_mut().zip(&counts) {
            *t += c;
        }
        all += run.mrs.len();
        secs += run.elapsed.as_secs_f64();
        let fu = match run.follow_up_stats() {
            Some((lo, hi, mean)) => format!("{lo}/{hi}/{mean:.2}"),
            None => "-".into(),
        };
        let cells: Vec<String> = counts.iter().zip(COLUMNS).map(|(c, h)| format!("{c:>w$}", w = 5)).collect();
        println!(
            "{i:>4} {:>12} {:>6} {} {fu:>14} {:>8.4}s",
            opts.seed,
            run.mrs.len(),
            cells.join(" "),
            run.elapsed.as_secs_f64()
        );
    }
    if a.runs > 1 {
        let n = a.runs as f64;
        let cells: Vec<String> = totals.iter().zip(COLUMNS).map(|(c, h)| format!("{:>w$.1}", *c as f64 / n, w = 5)).collect();
        println!("{:>4} {:>12} {:>6.1} {} {:>14} {:>8.4}s", "mean", "", all as f64 / n, cells.join(" "), "", secs / n);
    }
    println!("wrote {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}

fn cols() -> String {
    COLUMNS.iter().map(|h| format!("{h:>w$}", w = 5)).collect::<Vec<_>>().join(" ")
}
