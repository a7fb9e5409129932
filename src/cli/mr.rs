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
    /// Execute relations against a live query-based system and report violated ones
    #[command(after_help = "Examples:\n  rigor mr execute --spec experiments/mr-movies/spec/movies.yml --tests experiments/mr-movies/spec/testCases.csv --system movies --mutant genre-substring\n  rigor mr execute --spec shop.yml --tests shop.csv --mrs mrs/MRs-random-1.json --url http://localhost:8080 --out verdicts.json\n\n\
Relations come from --mrs (the JSON of `rigor mr generate`) or are generated here (native mode, --seed). \
<TBD> values are filled from the parameter's enum, its `values` pool, or its default (seeded by --seed). \
The spec's `execution` block says how to query: url (with {base}), items and item_id (JSON pointers). \
A relation is violated when the outputs break it; queries the system refuses (4xx) make it inconclusive. \
Exit code 0 whether or not relations are violated (a violation is a finding, not an error).")]
    Execute(ExecuteArgs),
    /// Serve the shipped movies search system (rigor-mr-movies), optionally with a seeded fault
    #[command(after_help = "Examples:\n  rigor mr serve --listen 127.0.0.1:8080\n  rigor mr serve --mutant or-genre-as-and\n  rigor mr serve --list-mutants")]
    Serve(ServeArgs),
}

/// The subject: MRG specification, source tests, feature and system name.
#[derive(Args)]
pub struct SubjectArgs {
    /// MRG specification (YAML); execution needs its `execution` block
    #[arg(long)]
    pub spec: PathBuf,
    /// Source tests: `;`-separated CSV, header row, test id in column 0, empty cell = absent
    #[arg(long, required_unless_present = "pairwise")]
    pub tests: Option<PathBuf>,
    /// Instead of --tests: generate source tests covering every t-tuple of parameter values
    /// (absence included) that the constraints allow; parameters without enum use their `values` pool or default
    #[arg(long, value_name = "T", conflicts_with = "tests")]
    pub pairwise: Option<usize>,
    /// Feature id (case-insensitive); default: the spec's only feature
    #[arg(long)]
    pub feature: Option<String>,
    /// The system's name in the natural-language output; default: the folder holding the spec
    #[arg(long)]
    pub name: Option<String>,
}

impl SubjectArgs {
    fn tests(&self) -> rigor_mr::Tests<'_> {
        match (&self.tests, self.pairwise) {
            (Some(p), _) => rigor_mr::Tests::File(p),
            (None, t) => rigor_mr::Tests::Pairwise { strength: t.unwrap_or(2), seed: None },
        }
    }
}

#[derive(Args)]
pub struct ExecuteArgs {
    #[command(flatten)]
    pub subject: SubjectArgs,
    /// Relations to run (MRs-random-<i>.json of `rigor mr generate`); default: generate here
    #[arg(long)]
    pub mrs: Option<PathBuf>,
    /// The system's base URL (replaces {base} in the spec's execution.url)
    #[arg(long, conflicts_with = "system")]
    pub url: Option<String>,
    /// A shipped system to start for the run (movies)
    #[arg(long)]
    pub system: Option<String>,
    /// Seeded fault of the shipped system (none = the original)
    #[arg(long, default_value = "none", requires = "system")]
    pub mutant: String,
    /// Seed for generation (without --mrs) and for filling <TBD>
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Most follow-up tests per relation (when generating)
    #[arg(long, default_value_t = 6)]
    pub max_follow_ups: i64,
    /// Per-query timeout
    #[arg(long, default_value_t = 30_000)]
    pub timeout_ms: i64,
    /// Write every relation's verdict here (JSON)
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Args)]
pub struct ServeArgs {
    /// Address to listen on
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Seeded fault to run with (none = the original)
    #[arg(long, default_value = "none")]
    pub mutant: String,
    /// List the seeded faults and exit
    #[arg(long)]
    pub list_mutants: bool,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Compat {
    /// The MRG tool (MET22 release): identical output files
    Mrg,
}

#[derive(Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub subject: SubjectArgs,
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

pub async fn mr(c: MrCommand) -> anyhow::Result<ExitCode> {
    match c {
        MrCommand::Generate(a) => generate_cmd(a),
        MrCommand::Execute(a) => tokio::task::spawn_blocking(move || execute_cmd(a)).await?,
        MrCommand::Serve(a) => serve_cmd(a).await,
    }
}

/// Runs the `mr.execute` technique itself on one job made from the flags: one code path for the
/// command line and studies.
fn execute_cmd(a: ExecuteArgs) -> anyhow::Result<ExitCode> {
    use rigor_technique::{Context, Job, ParamValue};
    let mut params = rigor_technique::Params::new();
    let mut set = |k: &str, v: ParamValue| {
        params.insert(k.to_string(), v);
    };
    match (&a.url, &a.system) {
        (Some(url), None) => {
            set("system", ParamValue::Str("url".into()));
            set("base_url", ParamValue::Str(url.clone()));
        }
        (None, Some(system)) => {
            set("system", ParamValue::Str(system.clone()));
            set("mutant", ParamValue::Str(a.mutant.clone()));
        }
        _ => return Err(UsageError("give the system: --url BASE or --system movies".into()).into()),
    }
    let s = &a.subject;
    let Some(tests_path) = &s.tests else {
        return Err(UsageError("rigor mr execute needs --tests (a source-test CSV); --pairwise is an option of rigor mr generate".into()).into());
    };
    if let Some(f) = &s.feature {
        set("feature", ParamValue::Str(f.clone()));
    }
    set("max_follow_ups", ParamValue::Int(a.max_follow_ups));
    set("timeout_ms", ParamValue::Int(a.timeout_ms));
    let registry = crate::techniques::registry();
    let technique = registry.get("mr.execute").expect("built in");
    let subject = rigor_technique::SubjectDecl {
        name: "cli".into(),
        files: [("spec".to_string(), s.spec.clone()), ("tests".to_string(), tests_path.clone())].into(),
    };
    technique.validate(&subject, &params).map_err(|e| UsageError(e.to_string()))?;
    let mut inputs: std::collections::BTreeMap<String, PathBuf> = subject.files.clone().into_iter().collect();
    if let Some(m) = &a.mrs {
        inputs.insert("cli/mrs.json".into(), m.clone());
    }
    let name = s.name.clone().or_else(|| s.spec.canonicalize().ok().and_then(|p| p.parent()?.file_name().map(|n| n.to_string_lossy().into_owned())));
    let job = Job {
        id: "cli".into(),
        study: "cli".into(),
        experiment: "cli".into(),
        kind: "mr.execute".into(),
        subject: name.unwrap_or_else(|| "SUT".into()),
        params,
        repetition: 0,
        seed: a.seed,
    };
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let mut progress = |_f: f64| {};
    let scratch = std::env::temp_dir().join(format!("rigor-mr-{}", std::process::id()));
    let mut ctx = Context::new(inputs, scratch, &cancel, &mut progress);
    let out = technique.run(&job, &mut ctx).map_err(|e| anyhow::anyhow!("{e}"))?;
    println!("{}", out.log);
    let m = |k: &str| out.metrics.get(k).copied().unwrap_or(0.0) as u64;
    println!("{:<22} {:>6} {:>9}", "pattern", "MRs", "violated");
    for ty in MrType::ALL {
        let s = ty.snake();
        println!("{:<22} {:>6} {:>9}", ty.name(), m(&format!("mrs_{s}")), m(&format!("violated_{s}")));
    }
    println!(
        "{:<22} {:>6} {:>9}   (holds {}, unfillable {}, refused {}, errors {}; {} queries sent)",
        "all", m("mrs"), m("violated"), m("holds"), m("unfillable"), m("refused"), m("errors"), m("queries")
    );
    if let Some(path) = &a.out {
        std::fs::write(path, &out.artifacts["verdicts.json"]).with_context(|| format!("writing {}", path.display()))?;
        println!("verdicts: {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

async fn serve_cmd(a: ServeArgs) -> anyhow::Result<ExitCode> {
    if a.list_mutants {
        for m in rigor_mr_movies::Mutant::ALL {
            println!("{:<28} {}", m.name(), m.description());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mutant = crate::techniques::movies_mutant(&a.mutant).map_err(UsageError)?;
    let server = rigor_mr_movies::start(a.listen.as_str(), mutant).await.with_context(|| format!("listening on {}", a.listen))?;
    println!("movies search on {} (mutant {}); GET /search?...; Ctrl-C stops", server.base_url(), a.mutant);
    tokio::signal::ctrl_c().await?;
    server.shutdown().await?;
    Ok(ExitCode::SUCCESS)
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
    let s = &a.subject;
    let subject = Subject::load_with(&s.spec, s.tests(), s.feature.as_deref(), s.name.as_deref(), mode)
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
        let cells: Vec<String> = counts.iter().zip(COLUMNS).map(|(c, _)| format!("{c:>5}")).collect();
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
        let cells: Vec<String> = totals.iter().zip(COLUMNS).map(|(c, _)| format!("{:>5.1}", *c as f64 / n)).collect();
        println!("{:>4} {:>12} {:>6.1} {} {:>14} {:>8.4}s", "mean", "", all as f64 / n, cells.join(" "), "", secs / n);
    }
    println!("wrote {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}

fn cols() -> String {
    COLUMNS.iter().map(|h| format!("{h:>w$}", w = 5)).collect::<Vec<_>>().join(" ")
}
