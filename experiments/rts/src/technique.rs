//! The job kind `rts.select`: one selection method on the versions of a system, with every metric
//! of the paper. A subject is either a simulator profile by name (`m-ticket`, `z-shop`, `need`,
//! `joa`), or real data given as files (`traces`, `changed`, `tests`, optionally `faults` and
//! `dependencies`).
//!
//! The simulated system depends on the profile and `system_seed` (default: the repetition), not on
//! the job seed, so the methods compared in one repetition see the same system (paired samples);
//! MRTS-BP itself draws no random numbers.

use std::collections::BTreeMap;

use rigor_technique::{
    Context, Job, Output, ParamSpec, ParamType, Params, SubjectDecl, Technique, TechniqueError, ValidationError,
};

use crate::evaluate::{largest_safe, Case, CaseFiles, LogSource, Method, Outcome};
use crate::formats::Format;
use crate::metrics::Metrics;
use crate::mine::Threshold;
use crate::select::{Options, Strategy};
use crate::simulate::{Profile, System};

use TechniqueError as E;

const STRATEGIES: [&str; 7] = ["existent", "complete", "k-existent", "2-existent", "3-existent", "4-existent", "5-existent"];

/// `rts.select`.
pub struct RtsSelect;

fn params() -> Vec<ParamSpec> {
    use ParamType::*;
    vec![
        ParamSpec::new("method", Str { choices: vec!["mrts-bp", "static", "retest-all"] }, "selection method (default mrts-bp)"),
        ParamSpec::new("version", Int { min: -1, max: 1000 }, "simulated version to select for (>= 2); 0 = every version from 2 on (metrics are means, and per version as <metric>_v<V>); -1 = the last (default 0)"),
        ParamSpec::new("records", Int { min: 0, max: 1_000_000_000_000 }, "log records mined per version (default: the profile's)"),
        ParamSpec::new("max_records", Int { min: 1, max: 1_000_000_000_000 }, "cap on the log records mined per version (scales the large profiles down in studies)"),
        ParamSpec::new("system_seed", Int { min: 0, max: i64::MAX }, "seed of the simulated system (default: the repetition number)"),
        ParamSpec::new("format", Str { choices: vec!["memory", "csv", "jaeger", "zipkin", "otlp"] }, "logs go from the simulator to the miner in memory (default), or through a file in this format that TS then includes reading"),
        ParamSpec::new("static_depth", Int { min: 0, max: 1000 }, "static baseline: dependents of a changed service within this many edges (default 1; 0 = transitively, which behind a gateway selects every test)"),
        ParamSpec::new("c", Float { min: 0.0, max: 1e18 }, "frequent threshold c as an absolute count (overrides c_step)"),
        ParamSpec::new("c_step", Int { min: -1, max: 1000 }, "c as a step of the sweep over c_steps equal steps from the smallest to the largest item frequency (0 = smallest, default); -1 = the largest step with recall 100% (the paper's choice in its experiment 2; uses the ground truth)"),
        ParamSpec::new("c_steps", Int { min: 1, max: 1000 }, "steps of the c sweep (default 10); the mrts-bp series recall_by_c and en_by_c follow it"),
        ParamSpec::new("strategy", Str { choices: STRATEGIES.to_vec() }, "existent (default), complete, k-existent (with k), or N-existent"),
        ParamSpec::new("k", Int { min: 1, max: 1000 }, "k of k-existent satisfaction (default 2)"),
        ParamSpec::new("p", Float { min: 0.0, max: 1.0 }, "impact threshold p (default: the smallest non-zero impact)"),
        ParamSpec::new("direction", Str { choices: vec!["forward", "backward"] }, "impact flows caller→callee (forward, default) or callee→caller"),
        ParamSpec::new("seeds", Str { choices: vec!["all", "frequent"] }, "changed services that seed the propagation: all (default, safe) or only frequent items (supp >= c; the paper's reading)"),
    ]
}

/// The method a cell asks for; read from the parameters alone so that validation and the run
/// read them the same way.
fn method(p: &Params) -> Result<Method, String> {
    let text = |name: &str, default: &'static str| p.get(name).and_then(|v| v.as_str()).unwrap_or(default).to_string();
    let int = |name: &str, default: i64| p.get(name).and_then(|v| v.as_i64()).unwrap_or(default);
    Ok(match text("method", "mrts-bp").as_str() {
        "static" => Method::Static { depth: usize::try_from(int("static_depth", 1)).ok().filter(|&d| d > 0) },
        "retest-all" => Method::RetestAll,
        _ => Method::MrtsBp(Options {
            threshold: Threshold::Absolute(p.get("c").and_then(|v| v.as_f64()).unwrap_or(0.0)),
            strategy: Strategy::parse(&text("strategy", "existent"), int("k", 2) as usize)?,
            p: p.get("p").and_then(|v| v.as_f64()),
            direction: text("direction", "forward").parse()?,
            seeds: text("seeds", "all").parse()?,
        }),
    })
}

const FILE_ROLES: [&str; 5] = ["traces", "changed", "tests", "faults", "dependencies"];

impl Technique for RtsSelect {
    fn kind(&self) -> &'static str {
        "rts.select"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn summary(&self) -> &'static str {
        "regression test selection for microservices from traces (MRTS-BP, static baseline, retest-all)"
    }
    fn params(&self) -> Vec<ParamSpec> {
        params()
    }
    fn validate(&self, subject: &SubjectDecl, p: &Params) -> Result<(), ValidationError> {
        rigor_technique::check_params(&self.params(), p)?;
        if subject.files.is_empty() {
            if Profile::by_name(&subject.name).is_none() {
                return Err(ValidationError::new(
                    "subjects",
                    format!(
                        "subject `{}` is neither a simulator profile ({}) nor given by files ({})",
                        subject.name,
                        Profile::NAMES.join(", "),
                        FILE_ROLES.join(", ")
                    ),
                ));
            }
        } else {
            for role in ["traces", "changed", "tests"] {
                if !subject.files.contains_key(role) {
                    return Err(ValidationError::new("subjects", format!("subject `{}` needs files.{role}", subject.name)));
                }
            }
            if let Some(role) = subject.files.keys().find(|r| !FILE_ROLES.contains(&r.as_str())) {
                return Err(ValidationError::new("subjects", format!("subject `{}`: unknown file role `{role}` (known: {})", subject.name, FILE_ROLES.join(", "))));
            }
        }
        method(p).map(drop).map_err(|m| ValidationError::new("params", m))
    }

    fn run(&self, job: &Job, ctx: &mut Context<'_>) -> Result<Output, TechniqueError> {
        let method = method(&job.params).map_err(E::failed)?;
        let steps = job.int("c_steps", 10) as usize;
        let mut per_version: Vec<(u32, Evaluated)> = Vec::new();
        if ctx.inputs.contains_key("traces") {
            let case = case_from_inputs(ctx)?;
            per_version.push((1, evaluate_case(job, &case, method, steps)?));
        } else {
            let profile = Profile::by_name(&job.subject).ok_or_else(|| E::failed(format!("unknown profile `{}`", job.subject)))?;
            let seed = job.params.get("system_seed").and_then(|v| v.as_i64()).map_or(u64::from(job.repetition), |s| s as u64);
            let system = System::generate(&profile, seed).map_err(E::failed)?;
            let last = profile.versions;
            let versions: Vec<u32> = match job.int("version", 0) {
                0 => (2..=last).collect(),
                -1 => vec![last],
                v if (2..=i64::from(last)).contains(&v) => vec![v as u32],
                v => return Err(E::failed(format!("version {v}: {} has versions 2..={last} to select for", profile.name))),
            };
            let records = match job.int("records", 0) {
                0 => profile.log_records,
                r => r as u64,
            }
            .min(job.int("max_records", i64::MAX) as u64);
            // Only MRTS-BP reads logs: the baselines need none mined.
            let records = if matches!(method, Method::MrtsBp(_)) { records } else { 0 };
            let logs = match job.str("format").unwrap_or("memory") {
                "memory" => LogSource::Memory,
                f => LogSource::File(f.parse::<Format>().map_err(E::failed)?, ctx.scratch()?.to_path_buf()),
            };
            for (i, &v) in versions.iter().enumerate() {
                if ctx.cancelled() {
                    return Err(E::Cancelled);
                }
                let case = Case::simulated(&system, v, records, &logs).map_err(E::failed)?;
                per_version.push((v, evaluate_case(job, &case, method, steps)?));
                ctx.progress((i + 1) as f64 / versions.len() as f64);
            }
        }
        Ok(output(&per_version))
    }
}

/// One version's result: the chosen selection and, for MRTS-BP, the sweep.
struct Evaluated {
    outcome: Outcome,
    step: Option<usize>,
    sweep: Vec<Outcome>,
    changed: usize,
    faults: usize,
}

fn evaluate_case(job: &Job, case: &Case, method: Method, steps: usize) -> Result<Evaluated, TechniqueError> {
    let (outcome, step, sweep) = match method {
        Method::MrtsBp(options) => {
            let sweep = case.sweep(steps, &options);
            let (outcome, step) = if job.params.contains_key("c") {
                (case.run(&method), None)
            } else {
                let step = match job.int("c_step", 0) {
                    -1 => largest_safe(&sweep).ok_or_else(|| E::failed(format!("version {}: no c of the sweep selects every fault-revealing test", case.version)))?,
                    s => (s as usize).min(sweep.len().saturating_sub(1)),
                };
                match sweep.get(step) {
                    Some(o) => (o.clone(), Some(step)),
                    // No logs at all: nothing is mined, c is moot.
                    None => (case.run(&method), None),
                }
            };
            (outcome, step, sweep)
        }
        _ => (case.run(&method), None, Vec::new()),
    };
    Ok(Evaluated { outcome, step, sweep, changed: case.changed.len(), faults: case.faults })
}

fn metric_values(m: &Metrics) -> Vec<(&'static str, Option<f64>)> {
    vec![
        ("no", Some(m.no as f64)),
        ("nr", Some(m.nr as f64)),
        ("en", m.en),
        ("to_ms", Some(m.to_ms)),
        ("tr_ms", Some(m.tr_ms)),
        ("ts_ms", Some(m.ts_ms)),
        ("et", m.et),
        ("nof", Some(m.nof as f64)),
        ("nsf", Some(m.nsf as f64)),
        ("recall", m.recall),
        ("precision", m.precision),
        ("f", m.f),
        ("safe", m.safe().map(|s| f64::from(u8::from(s)))),
    ]
}

/// Metrics per version (suffixed `_v<V>` when there are several) and their means over versions;
/// series of recall and EN along the c sweep (means over versions).
fn output(per_version: &[(u32, Evaluated)]) -> Output {
    let mut out = Output::default();
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let several = per_version.len() > 1;
    let mut add = |out: &mut Output, v: u32, name: &str, value: Option<f64>| {
        if let Some(x) = value.filter(|x| x.is_finite()) {
            if several {
                out.metrics.insert(format!("{name}_v{v}"), x);
            }
            let e = sums.entry(name.to_string()).or_default();
            e.0 += x;
            e.1 += 1;
        }
    };
    let mut log = Vec::new();
    for (v, e) in per_version {
        let m = &e.outcome.metrics;
        for (name, value) in metric_values(m) {
            add(&mut out, *v, name, value);
        }
        add(&mut out, *v, "c", e.outcome.c);
        add(&mut out, *v, "p", e.outcome.p);
        add(&mut out, *v, "c_step", e.step.map(|s| s as f64));
        add(&mut out, *v, "changed", Some(e.changed as f64));
        add(&mut out, *v, "faults", Some(e.faults as f64));
        log.push(format!(
            "v{v}: selected {}/{} (EN {}), recall {}, TS {:.1} ms{}",
            m.nr,
            m.no,
            fmt(m.en),
            fmt(m.recall),
            m.ts_ms,
            e.outcome.c.map_or(String::new(), |c| format!(", c {c:.1}")),
        ));
    }
    for (name, (sum, n)) in sums {
        out.metrics.insert(name, sum / n as f64);
    }
    for (series, pick) in [("recall_by_c", 0), ("en_by_c", 1)] {
        let steps = per_version.iter().map(|(_, e)| e.sweep.len()).max().unwrap_or(0);
        let points: Vec<(f64, f64)> = (0..steps)
            .filter_map(|i| {
                let ys: Vec<f64> = per_version
                    .iter()
                    .filter_map(|(_, e)| e.sweep.get(i))
                    .filter_map(|o| if pick == 0 { o.metrics.recall } else { o.metrics.en })
                    .collect();
                (!ys.is_empty()).then(|| (i as f64, ys.iter().sum::<f64>() / ys.len() as f64))
            })
            .collect();
        if !points.is_empty() {
            out.series.insert(series.into(), points);
        }
    }
    out.log = log.join("\n");
    out
}

fn fmt(x: Option<f64>) -> String {
    x.map_or("-".into(), |x| format!("{:.1}%", 100.0 * x))
}

fn case_from_inputs(ctx: &Context<'_>) -> Result<Case, TechniqueError> {
    let files = CaseFiles {
        traces: vec![ctx.input("traces")?.clone()],
        // Inputs arrive under content hashes: the format is sniffed from the first bytes.
        format: None,
        changed: ctx.input("changed")?.clone(),
        tests: ctx.input("tests")?.clone(),
        faults: ctx.inputs.get("faults").cloned(),
        dependencies: ctx.inputs.get("dependencies").cloned(),
    };
    Case::from_files(&files, 0).map_err(E::failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_technique::ParamValue;
    use std::sync::atomic::AtomicBool;

    fn job(params: &[(&str, ParamValue)]) -> Job {
        Job {
            id: "j".into(),
            study: "s".into(),
            experiment: "e".into(),
            kind: "rts.select".into(),
            subject: "z-shop".into(),
            params: params.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            repetition: 1,
            seed: 99,
        }
    }

    fn run(job: &Job, inputs: BTreeMap<String, std::path::PathBuf>) -> Result<Output, TechniqueError> {
        let cancel = AtomicBool::new(false);
        let mut progress = |_| {};
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = Context::new(inputs, dir.path().join("scratch"), &cancel, &mut progress);
        RtsSelect.run(job, &mut ctx)
    }

    #[test]
    fn every_version_gives_metrics_and_the_sweep() {
        let j = job(&[("records", ParamValue::Int(2_000))]);
        let out = run(&j, BTreeMap::new()).unwrap();
        // z-shop has versions 1..=4: selection for 2, 3 and 4.
        for v in 2..=4 {
            assert!(out.metrics.contains_key(&format!("nr_v{v}")), "{:?}", out.metrics.keys());
        }
        assert_eq!(out.metrics["no"], 913.0);
        assert_eq!(out.series["recall_by_c"].len(), 10);
        // The same job gives the same numbers (the system and logs follow system_seed only).
        let again = run(&j, BTreeMap::new()).unwrap();
        for k in ["nr", "en", "recall", "c"] {
            assert_eq!(out.metrics[k], again.metrics[k], "{k}");
        }
        let stat = run(&job(&[("records", ParamValue::Int(2_000)), ("method", ParamValue::Str("static".into()))]), BTreeMap::new()).unwrap();
        let all = run(&job(&[("records", ParamValue::Int(2_000)), ("method", ParamValue::Str("retest-all".into()))]), BTreeMap::new()).unwrap();
        assert_eq!(all.metrics["en"], 0.0);
        assert!(stat.metrics["nr"] <= all.metrics["nr"]);
        assert!(out.metrics["nr"] <= all.metrics["nr"]);
    }

    #[test]
    fn largest_safe_c_is_safe_and_files_work_like_the_simulator() {
        let j = job(&[
            ("records", ParamValue::Int(2_000)),
            ("version", ParamValue::Int(-1)),
            ("c_step", ParamValue::Int(-1)),
            ("seeds", ParamValue::Str("frequent".into())),
            ("format", ParamValue::Str("csv".into())),
        ]);
        let out = run(&j, BTreeMap::new()).unwrap();
        assert_eq!(out.metrics.get("recall").copied().unwrap_or(1.0), 1.0);
        assert!(out.metrics.contains_key("c_step") && !out.metrics.contains_key("nr_v4"));

        // The same version from files, as a user with real logs would give it.
        let system = System::generate(&Profile::by_name("z-shop").unwrap(), 1).unwrap();
        let dir = tempfile::tempdir().unwrap();
        crate::simulate::write_dir(&System { profile: Profile { log_records: 2_000, ..system.profile.clone() }, ..system }, dir.path(), Format::Jaeger).unwrap();
        let inputs: BTreeMap<String, std::path::PathBuf> = [
            ("traces", "v3/traces.jaeger.json"),
            ("changed", "v4/changed.txt"),
            ("tests", "v4/tests.csv"),
            ("faults", "v4/faults.csv"),
            ("dependencies", "v4/dependencies.csv"),
        ]
        .into_iter()
        .map(|(r, p)| (r.to_string(), dir.path().join(p)))
        .collect();
        let from_files = run(&j, inputs).unwrap();
        for k in ["nr", "recall", "c", "c_step", "en"] {
            assert_eq!(from_files.metrics.get(k), out.metrics.get(k), "{k}");
        }
    }

    #[test]
    fn validation_names_the_problem() {
        let subject = |name: &str, files: &[&str]| SubjectDecl {
            name: name.into(),
            files: files.iter().map(|r| (r.to_string(), std::path::PathBuf::from(format!("{r}.x")))).collect(),
        };
        let p = Params::new();
        assert!(RtsSelect.validate(&subject("need", &[]), &p).is_ok());
        let e = RtsSelect.validate(&subject("mine", &[]), &p).unwrap_err();
        assert!(e.message.contains("neither a simulator profile"), "{e}");
        let e = RtsSelect.validate(&subject("mine", &["traces", "tests"]), &p).unwrap_err();
        assert!(e.message.contains("files.changed"), "{e}");
        assert!(RtsSelect.validate(&subject("mine", &["traces", "tests", "changed"]), &p).is_ok());
        let e = RtsSelect.validate(&subject("mine", &["traces", "tests", "changed", "log"]), &p).unwrap_err();
        assert!(e.message.contains("unknown file role `log`"), "{e}");
    }
}
