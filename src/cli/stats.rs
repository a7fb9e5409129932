//! `rigor stats compare`: Mann-Whitney U, p-value and Vargha-Delaney A12 for two samples, without a study.

use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use rigor_analysis::stats::{compare, Alternative, CompareOptions, MagnitudeConvention, MannWhitneyOptions, Method};

use super::UsageError;

#[derive(Subcommand)]
pub enum StatsCommand {
    /// Compare two samples: U, p, A12 and its magnitude
    #[command(after_help = "Examples:\n  rigor stats compare --x 19,22,16 --y 20,11,17\n  rigor stats compare --x 1,2,3,4 --y 5,6,7,8 --method r --alternative less --json\n\n\
Methods: auto (SciPy's default), exact, asymptotic (normal approximation with tie correction), r (R's wilcox.test default). \
When every value is tied, p is NaN and A12 is 0.5.")]
    Compare(CompareArgs),
}

#[derive(Clone, Copy, ValueEnum)]
pub enum MethodArg {
    Auto,
    Exact,
    Asymptotic,
    R,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum AlternativeArg {
    TwoSided,
    Greater,
    Less,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ConventionArg {
    /// Vargha & Delaney on max(A, 1-A): 0.56 / 0.64 / 0.71
    VarghaDelaney,
    /// Hess & Kromrey on |2A-1|: 0.147 / 0.33 / 0.474 (R's effsize)
    HessKromrey,
}

#[derive(Args)]
pub struct CompareArgs {
    /// First sample, comma-separated
    #[arg(long, value_delimiter = ',', required = true, allow_negative_numbers = true)]
    pub x: Vec<f64>,
    /// Second sample, comma-separated
    #[arg(long, value_delimiter = ',', required = true, allow_negative_numbers = true)]
    pub y: Vec<f64>,
    #[arg(long, value_enum, default_value = "auto")]
    pub method: MethodArg,
    /// Turn off the continuity correction of the normal approximation
    #[arg(long)]
    pub no_continuity: bool,
    #[arg(long, value_enum, default_value = "two-sided")]
    pub alternative: AlternativeArg,
    /// Thresholds for the A12 magnitude label
    #[arg(long, value_enum, default_value = "vargha-delaney")]
    pub magnitude: ConventionArg,
    /// Print one JSON object with keys u, p, a12, magnitude
    #[arg(long)]
    pub json: bool,
}

pub fn stats(cmd: StatsCommand) -> anyhow::Result<ExitCode> {
    let StatsCommand::Compare(a) = cmd;
    let options = CompareOptions {
        test: MannWhitneyOptions {
            alternative: match a.alternative {
                AlternativeArg::TwoSided => Alternative::TwoSided,
                AlternativeArg::Greater => Alternative::Greater,
                AlternativeArg::Less => Alternative::Less,
            },
            method: match a.method {
                MethodArg::Auto => Method::Auto,
                MethodArg::Exact => Method::Exact,
                MethodArg::Asymptotic => Method::Asymptotic,
                MethodArg::R => Method::R,
            },
            continuity: !a.no_continuity,
        },
        convention: match a.magnitude {
            ConventionArg::VarghaDelaney => MagnitudeConvention::VarghaDelaney,
            ConventionArg::HessKromrey => MagnitudeConvention::HessKromrey,
        },
    };
    let c = compare(&a.x, &a.y, &options).map_err(|e| UsageError(e.to_string()))?;
    if a.json {
        // NaN has no JSON number: a p of NaN is written as null.
        let p = if c.p.is_nan() { serde_json::Value::Null } else { serde_json::json!(c.p) };
        println!("{}", serde_json::json!({ "u": c.u, "p": p, "a12": c.a12, "magnitude": c.magnitude.to_string() }));
    } else {
        println!("U = {}\np = {}\nA12 = {}\nmagnitude = {}", c.u, c.p, c.a12, c.magnitude);
    }
    Ok(ExitCode::SUCCESS)
}
