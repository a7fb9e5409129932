//! The job kinds `ct.suite` (generate a suite, record its size and time) and `ct.execute`
//! (generate a suite and run it against every faulty version of a system: fault detection per
//! fault). Subjects give their model as `files.model` (any format `parse::read` reads).

use std::sync::Arc;
use std::time::Instant;

use rigor_technique::{
    Context, Job, Output, ParamSpec, ParamType, Params, SubjectDecl, Technique, TechniqueError, ValidationError,
};

use crate::check::check;
use crate::export;
use crate::ipog::Variant;
use crate::model::Model;
use crate::parse;
use crate::suite::{generate, Goal};

/// What to cover, as the command line and studies name it.
pub fn goal(criterion: &str, strength: usize, robustness: usize) -> Result<Goal, String> {
    Ok(match criterion {
        "relevant" => Goal::Relevant(strength),
        "valid" => Goal::Valid(strength),
        "strong-invalid" => Goal::StrongInvalid(robustness),
        "robust" => Goal::Robust { t: strength, a: robustness },
        other => return Err(format!("unknown criterion `{other}` (relevant, valid, strong-invalid, robust)")),
    })
}

pub const CRITERIA: [&str; 4] = ["relevant", "valid", "strong-invalid", "robust"];

fn params() -> Vec<ParamSpec> {
    vec![
        ParamSpec::new("criterion", ParamType::Str { choices: CRITERIA.to_vec() }, "what the suite covers (default relevant)"),
        ParamSpec::new("strength", ParamType::Int { min: 0, max: 6 }, "t of t-wise relevant/valid coverage (default 2)"),
        ParamSpec::new("robustness", ParamType::Int { min: 0, max: 3 }, "a of a-wise strong invalid coverage (default 0)"),
        ParamSpec::new(
            "order",
            ParamType::Str { choices: vec!["natural", "random"] },
            "natural: largest domains first (deterministic); random: ties between equal domain sizes and every domain's value order from the job's seed (default)",
        ),
        ParamSpec::new("verify", ParamType::Bool, "check the suite with the independent checker (default true)"),
        ParamSpec::new(
            "format",
            ParamType::Str { choices: vec!["native", "pict", "acts", "casa"] },
            "format of files.model (default native; casa reads files.constraints too)",
        ),
    ]
}

use TechniqueError as E;

fn check_subject(subject: &SubjectDecl, specs: &[ParamSpec], params: &Params) -> Result<(), ValidationError> {
    rigor_technique::check_params(specs, params)?;
    if !subject.files.contains_key("model") {
        return Err(ValidationError::new("subjects", format!("subject `{}` needs files.model (a native, PICT, ACTS or CASA model)", subject.name)));
    }
    Ok(())
}

/// A generated suite with its model.
pub struct Generated {
    pub model: Model,
    pub suite: Vec<Vec<usize>>,
    pub millis: f64,
}

fn generate_for(job: &Job, ctx: &Context<'_>) -> Result<Generated, TechniqueError> {
    let path = ctx.input("model")?;
    // Inputs arrive under content hashes, so the format cannot come from the file name.
    let model = match job.str("format").unwrap_or("native") {
        "casa" => {
            let text = std::fs::read_to_string(path).map_err(|source| TechniqueError::Io { path: path.clone(), source })?;
            let constraints = match ctx.inputs.get("constraints") {
                Some(c) => Some((std::fs::read_to_string(c).map_err(|source| TechniqueError::Io { path: c.clone(), source })?, c.clone())),
                None => None,
            };
            let pair = constraints.as_ref().map(|(t, p)| (t.as_str(), p.as_path()));
            parse::casa::parse_with_constraints(&text, path, pair).map_err(E::failed)?.0
        }
        f => {
            let format = match f {
                "pict" => parse::Format::Pict,
                "acts" => parse::Format::Acts,
                _ => parse::Format::Native,
            };
            parse::read(path, Some(format)).map_err(E::failed)?
        }
    };
    let criterion = job.str("criterion").unwrap_or("relevant");
    let g = goal(criterion, job.int("strength", 2) as usize, job.int("robustness", 0) as usize).map_err(E::failed)?;
    let seed = match job.str("order") {
        Some("natural") => None,
        _ => Some(job.seed),
    };
    let start = Instant::now();
    let suite = generate(&model, g, Variant { seed, reduce: true }).map_err(E::failed)?;
    let millis = start.elapsed().as_secs_f64() * 1e3;
    if job.flag("verify", true) {
        for c in g.criteria() {
            let r = check(&model, &suite, c);
            if !r.ok() {
                return Err(E::failed(format!("the checker finds {} tuples missing for {c:?} (a generator bug)", r.missing.len())));
            }
        }
    }
    Ok(Generated { model, suite, millis })
}

/// `ct.suite`: one suite; metrics `size`, `time_ms`; artifacts `suite.csv`, `suite.json`.
pub struct CtSuite;

impl Technique for CtSuite {
    fn kind(&self) -> &'static str {
        "ct.suite"
    }
    fn version(&self) -> &'static str {
        // 3: random variants keep largest-domains-first (ties and values shuffled); 2: the
        // post-optimisation bounded at 4e8 tuple visits.
        "3"
    }
    fn summary(&self) -> &'static str {
        "generate a combinatorial suite (IPOG-C t-wise relevant/valid, a-wise strong invalid, robust)"
    }
    fn params(&self) -> Vec<ParamSpec> {
        params()
    }
    fn validate(&self, subject: &SubjectDecl, p: &Params) -> Result<(), ValidationError> {
        check_subject(subject, &self.params(), p)
    }
    fn run(&self, job: &Job, ctx: &mut Context<'_>) -> Result<Output, TechniqueError> {
        let g = generate_for(job, ctx)?;
        let mut out = Output::default();
        out.metrics.insert("size".into(), g.suite.len() as f64);
        out.metrics.insert("time_ms".into(), g.millis);
        out.artifacts.insert("suite.csv".into(), export::to_csv(&g.model, &g.suite, ',').into_bytes());
        out.artifacts.insert("suite.json".into(), export::to_json(&g.model, &g.suite).into_bytes());
        out.log = format!("{}: {} tests in {:.1} ms", g.model.name, g.suite.len(), g.millis);
        Ok(out)
    }
}

/// A system with faulty versions that a suite is run against.
pub trait System: Send + Sync {
    /// The faulty versions' names.
    fn faults(&self) -> Vec<&'static str>;
    /// The responses of `version` (`correct` or a fault) to each test (value indices of the
    /// model); an unknown version is an error.
    fn responses(&self, version: &str, suite: &[Vec<usize>]) -> Result<Vec<String>, String>;
}

/// `ct.execute`: generate a suite and run it on every faulty version; a fault is detected when
/// some test's response differs from the correct version's. Metrics `size`, `detected` (share of
/// faults), `detected_<fault>` (0/1), `failing_<fault>` (tests that reveal it).
pub struct CtExecute {
    systems: Vec<(&'static str, Arc<dyn System>)>,
}

impl CtExecute {
    pub fn new(systems: Vec<(&'static str, Arc<dyn System>)>) -> Self {
        CtExecute { systems }
    }
}

impl Technique for CtExecute {
    fn kind(&self) -> &'static str {
        "ct.execute"
    }
    fn version(&self) -> &'static str {
        // 3: random variants keep largest-domains-first (ties and values shuffled); 2: the
        // post-optimisation bounded at 4e8 tuple visits.
        "3"
    }
    fn summary(&self) -> &'static str {
        "generate a combinatorial suite and measure which seeded faults of a system it detects"
    }
    fn params(&self) -> Vec<ParamSpec> {
        let mut p = params();
        p.push(ParamSpec::new("system", ParamType::Str { choices: self.systems.iter().map(|(n, _)| *n).collect() }, "the system under test").required());
        p
    }
    fn validate(&self, subject: &SubjectDecl, p: &Params) -> Result<(), ValidationError> {
        check_subject(subject, &self.params(), p)
    }
    fn run(&self, job: &Job, ctx: &mut Context<'_>) -> Result<Output, TechniqueError> {
        let name = job.str("system").unwrap_or_default();
        let system = self.systems.iter().find(|(n, _)| *n == name).map(|(_, s)| s.clone()).ok_or_else(|| E::failed(format!("unknown system `{name}`")))?;
        let g = generate_for(job, ctx)?;
        let expected = system.responses("correct", &g.suite).map_err(E::failed)?;
        let mut out = Output::default();
        let faults = system.faults();
        let mut detected = 0;
        for (i, f) in faults.iter().enumerate() {
            if ctx.cancelled() {
                return Err(TechniqueError::Cancelled);
            }
            let got = system.responses(f, &g.suite).map_err(E::failed)?;
            let failing = got.iter().zip(&expected).filter(|(a, b)| a != b).count();
            detected += (failing > 0) as usize;
            out.metrics.insert(format!("detected_{f}"), (failing > 0) as u8 as f64);
            out.metrics.insert(format!("failing_{f}"), failing as f64);
            ctx.progress((i + 1) as f64 / faults.len() as f64);
        }
        out.metrics.insert("size".into(), g.suite.len() as f64);
        out.metrics.insert("time_ms".into(), g.millis);
        out.metrics.insert("detected".into(), detected as f64 / faults.len().max(1) as f64);
        out.artifacts.insert("suite.csv".into(), export::to_csv(&g.model, &g.suite, ',').into_bytes());
        out.log = format!("{}: {} tests detect {detected} of {} faults", g.model.name, g.suite.len(), faults.len());
        Ok(out)
    }
}
