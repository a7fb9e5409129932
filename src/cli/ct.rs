//! `rigor ct ...`: combinatorial test suites without a study.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context as _;
use clap::{Args, Subcommand, ValueEnum};
use rigor_ct::check::check;
use rigor_ct::ipog::Variant;
use rigor_ct::parse::{self, Format};
use rigor_ct::technique::goal;

use super::UsageError;

#[derive(Subcommand)]
pub enum CtCommand {
    /// Generate a suite for a model: t-wise relevant or valid (IPOG-C), a-wise strong invalid, or both
    #[command(after_help = "Examples:\n  rigor ct generate experiments/ct-insurance/model.toml --strength 2 --criterion valid\n  rigor ct generate spins_2way.model --strength 3 --out spins.csv\n  rigor ct generate model.toml --criterion robust --strength 1 --robustness 0 --format-out json\n\n\
Criteria: relevant = every t-tuple allowed by the exclusion constraints, in tests satisfying them; valid = \
every t-tuple allowed by exclusions and error constraints, in valid tests; strong-invalid = per error \
constraint, every violating assignment of its parameters (times every a-wise combination of the others with \
--robustness a) in tests that violate exactly that constraint; robust = valid + strong-invalid.\n\
Formats: native TOML (.toml), PICT (.pict, .txt), ACTS (.acts), CASA (.model, with .constraints beside it). \
The suite is checked by the independent checker before it is printed; size and time go to stderr.")]
    Generate(GenerateArgs),
    /// Check that a suite (CSV with a header row of parameter names) meets a criterion
    #[command(after_help = "Examples:\n  rigor ct check model.toml suite.csv --strength 2 --criterion valid\n\nExit 0 when the suite meets the criterion; 1 and the missing tuples (up to --show) otherwise.")]
    Check(CheckArgs),
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ModelFormat {
    Native,
    Pict,
    Acts,
    Casa,
}

impl From<ModelFormat> for Format {
    fn from(f: ModelFormat) -> Format {
        match f {
            ModelFormat::Native => Format::Native,
            ModelFormat::Pict => Format::Pict,
            ModelFormat::Acts => Format::Acts,
            ModelFormat::Casa => Format::Casa,
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Criterion {
    Relevant,
    Valid,
    StrongInvalid,
    Robust,
}

impl Criterion {
    fn name(self) -> &'static str {
        match self {
            Criterion::Relevant => "relevant",
            Criterion::Valid => "valid",
            Criterion::StrongInvalid => "strong-invalid",
            Criterion::Robust => "robust",
        }
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SuiteFormat {
    Csv,
    Tsv,
    Json,
}

/// The model and what to cover.
#[derive(Args)]
pub struct Target {
    /// The model file
    pub model: PathBuf,
    /// Model format (default: from the extension)
    #[arg(long, value_enum)]
    pub format: Option<ModelFormat>,
    /// t of t-wise coverage
    #[arg(long, short = 't', default_value_t = 2)]
    pub strength: usize,
    #[arg(long, value_enum, default_value = "relevant")]
    pub criterion: Criterion,
    /// a of a-wise strong invalid coverage (0: single-error coverage)
    #[arg(long, short = 'a', default_value_t = 0)]
    pub robustness: usize,
}

#[derive(Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub target: Target,
    /// Break ties between equal-sized parameters and permute values from this seed (default: two fixed orders)
    #[arg(long)]
    pub seed: Option<u64>,
    /// Write the suite here instead of stdout
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "csv")]
    pub format_out: SuiteFormat,
}

#[derive(Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub target: Target,
    /// The suite (CSV or TSV with a header row of parameter names)
    pub suite: PathBuf,
    /// Most missing tuples to list
    #[arg(long, default_value_t = 20)]
    pub show: usize,
}

pub fn ct(c: CtCommand) -> anyhow::Result<ExitCode> {
    match c {
        CtCommand::Generate(a) => generate_cmd(a),
        CtCommand::Check(a) => check_cmd(a),
    }
}

fn load(t: &Target) -> anyhow::Result<(rigor_ct::Model, rigor_ct::suite::Goal)> {
    if t.strength > 6 {
        return Err(UsageError("--strength must be at most 6".into()).into());
    }
    let model = parse::read(&t.model, t.format.map(Format::from)).map_err(|e| UsageError(e.to_string()))?;
    let g = goal(t.criterion.name(), t.strength, t.robustness).map_err(UsageError)?;
    Ok((model, g))
}

fn generate_cmd(a: GenerateArgs) -> anyhow::Result<ExitCode> {
    let (model, g) = load(&a.target)?;
    let start = Instant::now();
    let suite = rigor_ct::suite::generate(&model, g, Variant { seed: a.seed, reduce: true })?;
    let secs = start.elapsed().as_secs_f64();
    for c in g.criteria() {
        let r = check(&model, &suite, c);
        anyhow::ensure!(r.ok(), "internal error: the checker finds {} tuples missing for {c:?}", r.missing.len());
    }
    let text = match a.format_out {
        SuiteFormat::Csv => rigor_ct::export::to_csv(&model, &suite, ','),
        SuiteFormat::Tsv => rigor_ct::export::to_csv(&model, &suite, '\t'),
        SuiteFormat::Json => rigor_ct::export::to_json(&model, &suite),
    };
    match &a.out {
        Some(path) => std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?,
        None => print!("{text}"),
    }
    eprintln!("{}: {} tests ({} {}), {:.3} s", model.name, suite.len(), a.target.criterion.name(), describe(&a.target), secs);
    Ok(ExitCode::SUCCESS)
}

fn describe(t: &Target) -> String {
    match t.criterion {
        Criterion::Relevant | Criterion::Valid => format!("t={}", t.strength),
        Criterion::StrongInvalid => format!("a={}", t.robustness),
        Criterion::Robust => format!("t={}, a={}", t.strength, t.robustness),
    }
}

fn check_cmd(a: CheckArgs) -> anyhow::Result<ExitCode> {
    let (model, g) = load(&a.target)?;
    let text = std::fs::read_to_string(&a.suite).with_context(|| format!("reading {}", a.suite.display()))?;
    let suite = rigor_ct::export::read_csv_from(&model, &text, &a.suite, None).map_err(|e| UsageError(e.to_string()))?;
    let mut ok = true;
    for c in g.criteria() {
        let r = check(&model, &suite, c);
        println!("{c:?}: {} of {} required tuples covered", r.required - r.missing.len(), r.required);
        for m in r.missing.iter().take(a.show) {
            let tuple: Vec<String> = m.tuple.iter().map(|&(p, v)| format!("{}={}", model.params[p].name, model.params[p].values[v])).collect();
            match &m.error {
                Some(e) => println!("  missing (violating {e}): {}", tuple.join(", ")),
                None => println!("  missing: {}", tuple.join(", ")),
            }
        }
        ok &= r.ok();
    }
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
