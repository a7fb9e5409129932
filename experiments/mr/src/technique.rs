//! The job kinds `mr.generate` and `mr.execute`: what orchestration sees of this crate.
//!
//! Subjects give their files by role: `spec` (MRG YAML) and `tests` (source-test CSV). Execution
//! reads the relations of an `mr.generate` job it `needs` (its `mrs.json`), or generates them
//! itself with the same parameters when it has none.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rigor_technique::{
    rng, Context, Job, Output, ParamSpec, ParamType, Params, SubjectDecl, Technique, TechniqueError,
    ValidationError,
};

use crate::execute::{run_all, Cached};
use crate::generate::{generate, Options, Run};
use crate::http::HttpSystem;
use crate::input::{run_seed, Subject};
use crate::render;
use crate::sut::Mode;
use crate::transform::MrType;

use TechniqueError as E;

fn generation_params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::new("compat", ParamType::Str { choices: vec!["none", "mrg"] }, "mrg: the MRG tool's exact output (default none: native mode)"),
        ParamSpec::new("feature", ParamType::Str { choices: vec![] }, "feature id (default: the spec's only feature)"),
        ParamSpec::new("name", ParamType::Str { choices: vec![] }, "system name in the text output (default: the subject)"),
        ParamSpec::new("max_follow_ups", ParamType::Int { min: 1, max: 1000 }, "most follow-up tests per relation (default 6)"),
        ParamSpec::new("search_strength", ParamType::Int { min: 1, max: 1000 }, "tries per pattern = this x relevant parameters (default 1)"),
        ParamSpec::new("unordered_duplicates", ParamType::Bool, "native: follow-up order does not make relations different"),
        ParamSpec::new(
            "seed_scheme",
            ParamType::Str { choices: vec!["job", "mrg"] },
            "job: the job's seed (default); mrg: 1 + 10000 x repetition, the seeds of MRG's published runs",
        ),
    ]
}

fn check_files(subject: &SubjectDecl) -> Result<(), ValidationError> {
    for role in ["spec", "tests"] {
        if !subject.files.contains_key(role) {
            return Err(ValidationError::new(
                "subjects",
                format!("subject `{}` needs files.{role} (MRG {})", subject.name, if role == "spec" { "spec.yml" } else { "source tests CSV" }),
            ));
        }
    }
    Ok(())
}

/// Loads the job's subject in the mode its `compat` parameter names.
fn load(job: &Job, ctx: &Context<'_>) -> Result<Subject, TechniqueError> {
    let mode = if job.str("compat") == Some("mrg") { Mode::Compat } else { Mode::Native };
    let name = job.str("name").unwrap_or(&job.subject);
    Subject::load(ctx.input("spec")?, ctx.input("tests")?, job.str("feature"), Some(name), mode).map_err(E::failed)
}

/// Loads the subject and generates one run as the job's parameters say.
fn generate_for(job: &Job, ctx: &Context<'_>) -> Result<(Subject, Run, usize), TechniqueError> {
    let subject = load(job, ctx)?;
    let seed = match job.str("seed_scheme") {
        Some("mrg") => run_seed(1, job.repetition as usize + 1),
        _ => job.seed as i64,
    };
    let max_futcs = job.int("max_follow_ups", 6) as usize;
    let opts = Options {
        seed,
        search_strength: job.int("search_strength", 1) as usize,
        max_futcs,
        max_per_test: None,
        unordered_duplicates: job.flag("unordered_duplicates", false),
    };
    let run = generate(&subject.sut, &subject.tests, &opts).map_err(E::failed)?;
    Ok((subject, run, max_futcs))
}

/// `mr.generate`: one run of relation generation (the paper's Table 2 per repetition).
pub struct MrGenerate;

impl Technique for MrGenerate {
    fn kind(&self) -> &'static str {
        "mr.generate"
    }

    fn version(&self) -> &'static str {
        "1"
    }

    fn summary(&self) -> &'static str {
        "generate metamorphic relations for a query-based system from an MRG specification (MET 2022)"
    }

    fn params(&self) -> Vec<ParamSpec> {
        generation_params()
    }

    fn validate(&self, subject: &SubjectDecl, params: &Params) -> Result<(), ValidationError> {
        rigor_technique::check_params(&self.params(), params)?;
        check_files(subject)
    }

    fn run(&self, job: &Job, ctx: &mut Context<'_>) -> Result<Output, TechniqueError> {
        let (subject, run, max_futcs) = generate_for(job, ctx)?;
        let mut out = Output::default();
        out.metrics.insert("source_tests".into(), subject.tests.len() as f64);
        out.metrics.insert("mrs".into(), run.mrs.len() as f64);
        out.metrics.insert("tries".into(), run.tries as f64);
        out.metrics.insert("time_ms".into(), run.elapsed.as_secs_f64() * 1e3);
        for ty in MrType::ALL {
            out.metrics.insert(format!("mrs_{}", ty.snake()), run.count(ty) as f64);
        }
        if let Some((lo, hi, mean)) = run.follow_up_stats() {
            out.metrics.insert("follow_ups_min".into(), lo as f64);
            out.metrics.insert("follow_ups_max".into(), hi as f64);
            out.metrics.insert("follow_ups_mean".into(), mean);
        }
        let sut = &subject.sut;
        out.artifacts.insert("mrs.csv".into(), render::csv(sut, &run.mrs).into_bytes());
        out.artifacts.insert("mrs-extended.csv".into(), render::extended_csv(sut, &run.mrs, max_futcs).into_bytes());
        out.artifacts.insert("mrs.txt".into(), render::text(sut, &subject.domain, &run.mrs).into_bytes());
        out.artifacts.insert("mrs.json".into(), render::json(sut, &run.mrs).into_bytes());
        out.log = format!("{}: {} relations, seed {}", subject.domain, run.mrs.len(), run.seed);
        ctx.progress(1.0);
        Ok(out)
    }
}

/// A system under test that `mr.execute` can start itself (a shipped service with seeded faults).
pub trait Launcher: Send + Sync {
    /// Checks a system and fault name at plan time.
    fn check(&self, system: &str, mutant: &str) -> Result<(), String>;
    /// Starts the system with the fault (`none`: the original); stops when dropped.
    fn launch(&self, system: &str, mutant: &str) -> Result<Box<dyn Running>, String>;
}

/// A started system.
pub trait Running {
    fn base_url(&self) -> String;
}

/// `mr.execute`: run relations against a live system and record which are violated.
pub struct MrExecute {
    launcher: Option<Arc<dyn Launcher>>,
}

impl MrExecute {
    /// `launcher` starts the shipped systems (`system = "..."`); without it only `system = "url"`.
    pub fn new(launcher: Option<Arc<dyn Launcher>>) -> Self {
        MrExecute { launcher }
    }
}

impl Technique for MrExecute {
    fn kind(&self) -> &'static str {
        "mr.execute"
    }

    fn version(&self) -> &'static str {
        "1"
    }

    fn summary(&self) -> &'static str {
        "execute metamorphic relations against a live query-based system and count violated ones"
    }

    fn params(&self) -> Vec<ParamSpec> {
        let mut p = generation_params();
        p.extend([
            ParamSpec::new("system", ParamType::Str { choices: vec![] }, "a shipped system to start (e.g. movies), or `url` for base_url").required(),
            ParamSpec::new("base_url", ParamType::Str { choices: vec![] }, "with system = url: the system's base URL"),
            ParamSpec::new("mutant", ParamType::Str { choices: vec![] }, "seeded fault of the shipped system (default none)"),
            ParamSpec::new("timeout_ms", ParamType::Int { min: 1, max: 3_600_000 }, "per query (default 30000)"),
        ]);
        p
    }

    fn validate(&self, subject: &SubjectDecl, params: &Params) -> Result<(), ValidationError> {
        rigor_technique::check_params(&self.params(), params)?;
        check_files(subject)?;
        let get = |k: &str| params.get(k).and_then(|v| v.as_str());
        let system = get("system").unwrap_or_default();
        let mutant = get("mutant").unwrap_or("none");
        if system == "url" {
            if get("base_url").is_none() {
                return Err(ValidationError::new("params.base_url", "system = \"url\" needs base_url"));
            }
            if mutant != "none" {
                return Err(ValidationError::new("params.mutant", "mutants exist only for shipped systems"));
            }
            return Ok(());
        }
        match &self.launcher {
            Some(l) => l.check(system, mutant).map_err(|m| ValidationError::new("params.system", m)),
            None => Err(ValidationError::new("params.system", "this binary ships no systems; use system = \"url\"")),
        }
    }

    fn run(&self, job: &Job, ctx: &mut Context<'_>) -> Result<Output, TechniqueError> {
        let start = Instant::now();
        let from_needs: Vec<&std::path::PathBuf> =
            ctx.inputs.iter().filter(|(k, _)| k.ends_with("/mrs.json")).map(|(_, v)| v).collect();
        let (subject, mrs) = match from_needs.as_slice() {
            [] => {
                let (subject, run, _) = generate_for(job, ctx)?;
                (subject, run.mrs)
            }
            [path] => {
                let subject = load(job, ctx)?;
                let mrs = read_mrs(&subject, path)?;
                (subject, mrs)
            }
            _ => return Err(E::failed("more than one mrs.json input: `needs` one mr.generate experiment")),
        };
        let feature = &subject.spec.features[subject.feature];
        let exec = feature.execution.as_ref().ok_or_else(|| {
            E::failed(format!("feature {} of the spec has no `execution` block (url, items, item_id)", feature.id))
        })?;
        let system = job.str("system").unwrap_or_default();
        let mutant = job.str("mutant").unwrap_or("none");
        // Kept alive until the relations have run.
        let mut running = None;
        let base = if system == "url" {
            job.str("base_url").ok_or_else(|| E::failed("system = url needs base_url"))?.to_string()
        } else {
            let l = self.launcher.as_ref().ok_or_else(|| E::failed("no shipped systems in this binary"))?;
            let r = l.launch(system, mutant).map_err(E::failed)?;
            let url = r.base_url();
            running = Some(r);
            url
        };
        let timeout = Duration::from_millis(job.int("timeout_ms", 30_000) as u64);
        let mut sys = Cached::new(HttpSystem::new(exec, &base, timeout));
        let mut rng = rng(job.seed);
        let (tally, outcomes) = run_all(&subject.sut, &mrs, &mut sys, &mut rng, |f| {
            ctx.progress(f);
            !ctx.cancelled()
        });
        drop(running);
        if ctx.cancelled() {
            return Err(TechniqueError::Cancelled);
        }
        if tally.errors > 0 && tally.errors == tally.total {
            let first = outcomes.iter().find_map(|o| match &o.verdict {
                crate::execute::Verdict::Error { detail } => Some(detail.clone()),
                _ => None,
            });
            return Err(E::failed(format!("every query failed: {}", first.unwrap_or_default())));
        }
        let mut out = Output::default();
        let m = &mut out.metrics;
        m.insert("mrs".into(), tally.total as f64);
        m.insert("holds".into(), tally.holds as f64);
        m.insert("violated".into(), tally.violated as f64);
        m.insert("unfillable".into(), tally.unfillable as f64);
        m.insert("refused".into(), tally.refused as f64);
        m.insert("errors".into(), tally.errors as f64);
        m.insert("killed".into(), (tally.violated > 0) as u8 as f64);
        m.insert("queries".into(), sys.sent as f64);
        m.insert("time_ms".into(), start.elapsed().as_secs_f64() * 1e3);
        for ty in MrType::ALL {
            let t = tally.per_type.get(ty.name()).cloned().unwrap_or_default();
            m.insert(format!("mrs_{}", ty.snake()), t.total as f64);
            m.insert(format!("violated_{}", ty.snake()), t.violated as f64);
            m.insert(format!("killed_by_{}", ty.snake()), (t.violated > 0) as u8 as f64);
        }
        let verdicts = serde_json::to_string_pretty(&outcomes).expect("plain data serializes");
        out.artifacts.insert("verdicts.json".into(), verdicts.into_bytes());
        out.log = format!(
            "{} on {system} (mutant {mutant}): {} relations, {} violated, {} queries",
            subject.domain, tally.total, tally.violated, sys.sent
        );
        Ok(out)
    }
}

fn read_mrs(subject: &Subject, path: &Path) -> Result<Vec<crate::generate::Mr>, TechniqueError> {
    let text = std::fs::read_to_string(path).map_err(|source| TechniqueError::Io { path: path.into(), source })?;
    render::read_json(&subject.sut, &text).map_err(|e| E::failed(format!("{}: {e}", path.display())))
}
