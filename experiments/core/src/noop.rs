//! `noop`: a technique that does configurable nothing, for tests and scheduler benchmarks.
//!
//! It can wait, fail at a seeded rate, panic, allocate memory and emit seed-derived metrics,
//! series and an artifact, so every path of the orchestration (retries, timeouts, memory limits,
//! determinism, dependencies) can be exercised without a real technique.

use std::io::Write;
use std::time::{Duration, Instant};

use rand::Rng;

use crate::{rng, Context, Job, Output, ParamSpec, ParamType, Technique, TechniqueError};

/// Environment variable naming a file to which every execution appends its job id; tests count
/// executions with it (for example to prove that nothing finished is run twice).
pub const EXECUTION_LOG_ENV: &str = "RIGOR_NOOP_LOG";

pub struct Noop;

impl Technique for Noop {
    fn kind(&self) -> &'static str {
        "noop"
    }

    fn version(&self) -> &'static str {
        "1"
    }

    fn summary(&self) -> &'static str {
        "does configurable nothing: for tests and scheduler benchmarks"
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec::new("work_ms", ParamType::Int { min: 0, max: 86_400_000 }, "milliseconds to sleep"),
            ParamSpec::new("fail_rate", ParamType::Float { min: 0.0, max: 1.0 }, "probability (from the seed) of failing"),
            ParamSpec::new("panic", ParamType::Bool, "panic instead of returning"),
            ParamSpec::new("alloc_mb", ParamType::Int { min: 0, max: 1 << 20 }, "megabytes to allocate and touch"),
            ParamSpec::new("points", ParamType::Int { min: 0, max: 100_000 }, "points in the `trace` series (default 5)"),
            ParamSpec::new("use_scratch", ParamType::Bool, "write and read back a file in the scratch directory"),
        ]
    }

    fn run(&self, job: &Job, ctx: &mut Context<'_>) -> Result<Output, TechniqueError> {
        if let Ok(path) = std::env::var(EXECUTION_LOG_ENV) {
            log_execution(&path, &job.id)?;
        }
        if job.flag("panic", false) {
            panic!("noop job {} asked to panic", job.id);
        }
        let alloc_mb = job.int("alloc_mb", 0) as usize;
        let mut checksum = 0u64;
        if alloc_mb > 0 {
            // Touch every page so the memory is really used, not just reserved.
            let mut block = vec![0u8; alloc_mb << 20];
            for i in (0..block.len()).step_by(4096) {
                block[i] = i as u8;
            }
            checksum = block.iter().step_by(4096).map(|&b| b as u64).sum();
        }
        let work = Duration::from_millis(job.int("work_ms", 0) as u64);
        let start = Instant::now();
        while start.elapsed() < work {
            if ctx.cancelled() {
                return Err(TechniqueError::Cancelled);
            }
            ctx.progress(start.elapsed().as_secs_f64() / work.as_secs_f64());
            std::thread::sleep((work - start.elapsed().min(work)).min(Duration::from_millis(20)));
        }

        let mut rng = rng(job.seed);
        let fail_rate = job.float("fail_rate", 0.0);
        if rng.random::<f64>() < fail_rate {
            return Err(TechniqueError::Failed(format!("seeded failure (fail_rate = {fail_rate})")));
        }
        let points = job.int("points", 5) as usize;
        let mut out = Output::default();
        out.metrics.insert("value".into(), rng.random::<f64>());
        out.metrics.insert("inputs".into(), ctx.inputs.len() as f64);
        if alloc_mb > 0 {
            out.metrics.insert("checksum".into(), checksum as f64);
        }
        if job.flag("use_scratch", false) {
            let path = ctx.scratch()?.join("note.txt");
            let io = |source| TechniqueError::Io { path: path.clone(), source };
            std::fs::write(&path, job.id.as_bytes()).map_err(io)?;
            out.metrics.insert("scratch_bytes".into(), std::fs::read(&path).map_err(io)?.len() as f64);
        }
        let mut y = 0.0;
        let trace = (0..points)
            .map(|i| {
                y += rng.random::<f64>();
                (i as f64, y)
            })
            .collect();
        out.series.insert("trace".into(), trace);
        out.artifacts.insert("out.txt".into(), format!("{} {}\n", job.id, rng.random::<u64>()).into_bytes());
        out.log = format!("noop {} on {} rep {}", job.experiment, job.subject, job.repetition);
        ctx.progress(1.0);
        Ok(out)
    }
}

fn log_execution(path: &str, id: &str) -> Result<(), TechniqueError> {
    let io = |source| TechniqueError::Io { path: path.into(), source };
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
    // One short write per line: appends of this size are atomic across processes.
    f.write_all(format!("{id}\n").as_bytes()).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ParamValue, Params};
    use std::sync::atomic::AtomicBool;

    fn job(seed: u64, params: Params) -> Job {
        Job {
            id: "j".into(),
            study: "s".into(),
            experiment: "e".into(),
            kind: "noop".into(),
            subject: "a".into(),
            params,
            repetition: 0,
            seed,
        }
    }

    fn run(job: &Job) -> Result<Output, TechniqueError> {
        let cancel = AtomicBool::new(false);
        let mut progress = |_| {};
        let mut ctx = Context::new(Default::default(), std::env::temp_dir(), &cancel, &mut progress);
        Noop.run(job, &mut ctx)
    }

    #[test]
    fn same_seed_same_output_other_seed_other_output() {
        let a = run(&job(7, Params::new())).unwrap();
        assert_eq!(a, run(&job(7, Params::new())).unwrap());
        assert_ne!(a.metrics["value"], run(&job(8, Params::new())).unwrap().metrics["value"]);
        assert_eq!(a.series["trace"].len(), 5);
    }

    #[test]
    fn fail_rate_one_always_fails_and_zero_never() {
        let p = |r: f64| Params::from([("fail_rate".to_string(), ParamValue::Float(r))]);
        for seed in 0..20 {
            assert!(run(&job(seed, p(1.0))).is_err());
            assert!(run(&job(seed, p(0.0))).is_ok());
        }
    }

    #[test]
    fn cancellation_stops_work() {
        let cancel = AtomicBool::new(true);
        let mut progress = |_| {};
        let mut ctx = Context::new(Default::default(), std::env::temp_dir(), &cancel, &mut progress);
        let j = job(1, Params::from([("work_ms".to_string(), ParamValue::Int(60_000))]));
        assert!(matches!(Noop.run(&j, &mut ctx), Err(TechniqueError::Cancelled)));
    }
}
