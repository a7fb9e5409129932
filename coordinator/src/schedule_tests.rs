//! Scheduler behaviour with a manual clock: leases, expiry, retries, exactly-once results,
//! dependencies, cancellation and recovery from the store.

use super::*;
use crate::clock::ManualClock;
use crate::store::SledStore;
use rigor_proto::JobOutput;
use rigor_technique::Noop;

const TTL: u64 = 1_000;

struct Fixture {
    _dir: tempfile::TempDir,
    clock: Arc<ManualClock>,
    sched: Scheduler,
}

fn open_at(dir: &std::path::Path, clock: Arc<ManualClock>) -> Scheduler {
    // sled releases its file lock from a background thread shortly after the last handle drops.
    let mut tries = 0;
    let store = loop {
        match SledStore::open(&dir.join("db")) {
            Ok(s) => break Arc::new(s),
            Err(e) if tries < 100 => {
                tries += 1;
                let _ = e;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => panic!("{e}"),
        }
    };
    let artifacts = Arc::new(ArtifactStore::open(&dir.join("artifacts")).unwrap());
    let config = ScheduleConfig { lease_ttl_ms: TTL, submit_batch: 7 };
    Scheduler::open(store, artifacts, Registry::new().with(Noop), clock, config).unwrap()
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000_000));
    let sched = open_at(dir.path(), clock.clone());
    sched.register("w1", vec!["noop".into()]);
    sched.register("w2", vec!["noop".into()]);
    Fixture { _dir: dir, clock, sched }
}

fn study(extra: &str) -> String {
    format!(
        "[study]\nname = \"s\"\nseed = 1\nrepetitions = 2\nretries = 1\n\n[[experiment]]\nid = \"gen\"\nkind = \"noop\"\nsubjects = [\"a\", \"b\"]\nparams = {{ work_ms = [1, 2] }}\n{extra}"
    )
}

async fn submit(s: &Scheduler, text: &str) -> SubmitStudyResponse {
    s.submit("s.toml", text, &[], false).await.unwrap()
}

fn report(job: &LeasedJob, status: AttemptStatus) -> AttemptReport {
    AttemptReport {
        job_id: job.spec.as_ref().unwrap().job_id.clone(),
        attempt: job.attempt,
        status: status as i32,
        output: (status == AttemptStatus::Ok).then(JobOutput::default),
        ..Default::default()
    }
}

fn counts(s: &Scheduler) -> (u64, u64, u64, u64) {
    let st = s.status("s").unwrap();
    let sum = |f: fn(&ExperimentStatus) -> u64| st.experiments.iter().map(f).sum();
    (sum(|e| e.queued + e.waiting), sum(|e| e.running), sum(|e| e.done), sum(|e| e.failed))
}

#[tokio::test]
async fn every_job_is_leased_once_and_completes_once() {
    let f = fixture();
    assert_eq!(submit(&f.sched, &study("")).await.jobs_new, 8);
    let a = f.sched.lease("w1", 5).unwrap();
    let b = f.sched.lease("w2", 5).unwrap();
    assert_eq!((a.len(), b.len()), (5, 3));
    assert_eq!(counts(&f.sched), (0, 8, 0, 0));
    let all: Vec<_> = a.iter().chain(&b).collect();
    let ids: HashSet<_> = all.iter().map(|j| j.spec.as_ref().unwrap().job_id.clone()).collect();
    assert_eq!(ids.len(), 8);
    let acc = f.sched.complete("w1", a.iter().map(|j| report(j, AttemptStatus::Ok)).collect()).await.unwrap();
    assert_eq!(acc, vec![true; 5]);
    let again = f.sched.complete("w1", vec![report(&a[0], AttemptStatus::Ok)]).await.unwrap();
    assert_eq!(again, vec![false], "a second result for a finished job is refused");
    f.sched.complete("w2", b.iter().map(|j| report(j, AttemptStatus::Ok)).collect()).await.unwrap();
    assert_eq!(counts(&f.sched), (0, 0, 8, 0));
    assert!(f.sched.status("s").unwrap().finished);
    assert!(f.sched.lease("w1", 5).unwrap().is_empty());
}

#[tokio::test]
async fn expired_lease_requeues_and_late_completion_is_accepted_once() {
    let f = fixture();
    submit(&f.sched, &study("")).await;
    let a = f.sched.lease("w1", 1).unwrap();
    f.clock.advance(TTL / 2);
    assert!(f.sched.heartbeat("w1", &[(a[0].spec.as_ref().unwrap().job_id.clone(), a[0].attempt)]).unwrap().is_empty());
    f.clock.advance(TTL / 2 + 1);
    assert_eq!(f.sched.expire_leases().unwrap(), 0, "the heartbeat renewed the lease");
    f.clock.advance(TTL);
    assert_eq!(f.sched.expire_leases().unwrap(), 1);
    // The job is queued again with the next attempt number and goes to another worker.
    let b = f.sched.lease("w2", 8).unwrap();
    let again = b.iter().find(|j| j.spec == a[0].spec).expect("requeued");
    assert_eq!(again.attempt, 2);
    // The first worker's heartbeat is told to stop; its late success still wins, once.
    let hb = f.sched.heartbeat("w1", &[(a[0].spec.as_ref().unwrap().job_id.clone(), 1)]).unwrap();
    assert_eq!(hb.len(), 1);
    assert_eq!(f.sched.complete("w1", vec![report(&a[0], AttemptStatus::Ok)]).await.unwrap(), vec![true]);
    assert_eq!(f.sched.complete("w2", vec![report(again, AttemptStatus::Ok)]).await.unwrap(), vec![false]);
    let results = f.sched.results("s").unwrap();
    let r = results.iter().find(|r| r.spec == a[0].spec).unwrap();
    assert_eq!((r.state, r.attempts), (JobState::Done as i32, 2));
}

#[tokio::test]
async fn failures_are_retried_up_to_the_limit_then_failed() {
    let f = fixture();
    submit(&f.sched, &study("")).await;
    let first = f.sched.lease("w1", 1).unwrap();
    f.sched.complete("w1", vec![report(&first[0], AttemptStatus::Crashed)]).await.unwrap();
    let mut second = f.sched.lease("w1", 8).unwrap();
    second.retain(|j| j.spec == first[0].spec);
    assert_eq!(second[0].attempt, 2);
    f.sched.complete("w1", vec![report(&second[0], AttemptStatus::Timeout)]).await.unwrap();
    let results = f.sched.results("s").unwrap();
    let r = results.iter().find(|r| r.spec == first[0].spec).unwrap();
    assert_eq!(r.state, JobState::Failed as i32, "retries = 1 allows two attempts");
    assert_eq!(r.last.as_ref().unwrap().status, AttemptStatus::Timeout as i32);
    assert_eq!(counts(&f.sched).3, 1);
}

#[tokio::test]
async fn dependents_wait_for_and_fail_with_their_inputs() {
    let f = fixture();
    let text = study("\n[[experiment]]\nid = \"use\"\nkind = \"noop\"\nsubjects = [\"a\"]\nneeds = \"gen\"\nretries = 0\n");
    assert_eq!(submit(&f.sched, &text).await.jobs_new, 8 + 2);
    let gen = f.sched.lease("w1", 100).unwrap();
    assert_eq!(gen.len(), 8, "dependents are not leased before their inputs exist");
    assert!(gen.iter().all(|j| j.spec.as_ref().unwrap().experiment == "gen"));
    let mut reports: Vec<_> = gen.iter().map(|j| {
        let mut r = report(j, AttemptStatus::Ok);
        r.output.as_mut().unwrap().artifacts.push(InputRef { name: "out.txt".into(), hash: "ab".repeat(32), size: 1 });
        r
    }).collect();
    // Fail (for good: retries = 1 gives two attempts) one input of subject a, repetition 0, work_ms 1.
    let victim = gen.iter().position(|j| {
        let s = j.spec.as_ref().unwrap();
        s.subject == "a" && s.repetition == 0 && s.params[0].value == Some(crate::plan::to_wire(&rigor_technique::ParamValue::Int(1)))
    }).unwrap();
    reports[victim].status = AttemptStatus::Failed as i32;
    f.sched.complete("w1", reports).await.unwrap();
    let retry = f.sched.lease("w1", 1).unwrap();
    assert_eq!(retry[0].spec, gen[victim].spec);
    f.sched.complete("w1", vec![report(&retry[0], AttemptStatus::Failed)]).await.unwrap();
    // The dependent of repetition 0 failed with its input; the one of repetition 1 runs with inputs.
    let ready = f.sched.lease("w1", 10).unwrap();
    assert_eq!(ready.len(), 1);
    let spec = ready[0].spec.as_ref().unwrap();
    assert_eq!((spec.experiment.as_str(), spec.repetition), ("use", 1));
    let names: Vec<_> = spec.inputs.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["gen/0/out.txt", "gen/1/out.txt"]);
    let st = f.sched.status("s").unwrap();
    assert_eq!((st.experiments[1].failed, st.experiments[1].running), (1, 1));
}

#[tokio::test]
async fn cancel_stops_everything_and_resubmit_resumes() {
    let f = fixture();
    submit(&f.sched, &study("")).await;
    let a = f.sched.lease("w1", 2).unwrap();
    f.sched.complete("w1", vec![report(&a[0], AttemptStatus::Ok)]).await.unwrap();
    let st = f.sched.cancel("s").await.unwrap();
    assert!(st.finished);
    assert_eq!(st.experiments[0].cancelled, 7);
    let hb = f.sched.heartbeat("w1", &[(a[1].spec.as_ref().unwrap().job_id.clone(), 1)]).unwrap();
    assert_eq!(hb.len(), 1, "the running job is told to stop");
    assert!(f.sched.lease("w2", 10).unwrap().is_empty());
    let r = submit(&f.sched, &study("")).await;
    assert_eq!((r.jobs_new, r.jobs_reused), (0, 8));
    assert_eq!(f.sched.lease("w2", 10).unwrap().len(), 7, "only the finished job is kept");
}

#[tokio::test]
async fn state_survives_reopening_and_running_jobs_are_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(5_000));
    let (done, running) = {
        let s = open_at(dir.path(), clock.clone());
        s.register("w1", vec!["noop".into()]);
        submit(&s, &study("")).await;
        let a = s.lease("w1", 3).unwrap();
        s.complete("w1", vec![report(&a[0], AttemptStatus::Ok)]).await.unwrap();
        (a[0].clone(), a[1].clone())
    };
    let s = open_at(dir.path(), clock.clone());
    let st = s.status("s").unwrap();
    assert_eq!((st.experiments[0].done, st.experiments[0].queued), (1, 7));
    s.register("w1", vec!["noop".into()]);
    let running_id = running.spec.as_ref().unwrap().job_id.clone();
    assert!(s.heartbeat("w1", &[(running_id.clone(), running.attempt)]).unwrap().is_empty());
    let rest = s.lease("w1", 10).unwrap();
    assert_eq!(rest.len(), 6, "neither the finished nor the adopted job is leased again");
    assert!(rest.iter().all(|j| j.spec != done.spec && j.spec != running.spec));
    let r = submit(&s, &study("")).await;
    assert_eq!(r.jobs_new, 0);
}

#[tokio::test]
async fn a_changed_parameter_plans_only_new_cells() {
    let f = fixture();
    submit(&f.sched, &study("")).await;
    let all = f.sched.lease("w1", 10).unwrap();
    f.sched.complete("w1", all.iter().map(|j| report(j, AttemptStatus::Ok)).collect()).await.unwrap();
    let r = submit(&f.sched, &study("")).await;
    assert_eq!((r.jobs_new, r.jobs_reused), (0, 8));
    assert!(f.sched.lease("w1", 10).unwrap().is_empty(), "a finished study runs nothing");
    let r = submit(&f.sched, &study("").replace("[1, 2]", "[1, 3]")).await;
    assert_eq!((r.jobs_new, r.jobs_reused), (4, 4));
    assert_eq!(f.sched.lease("w1", 10).unwrap().len(), 4);
    assert_eq!(f.sched.results("s").unwrap().len(), 8, "results follow the current plan");
}

#[tokio::test]
async fn invalid_study_and_missing_file_store_nothing() {
    let f = fixture();
    let bad = study("").replace("work_ms = [1, 2]", "work_ms = [\"x\"]");
    let err = f.sched.submit("s.toml", &bad, &[], false).await.unwrap_err();
    assert!(matches!(err, CoordinatorError::Study(_)), "{err}");
    let with_file = study("").replace("subjects = [\"a\", \"b\"]", "subjects = [{ name = \"a\", files = { spec = \"a.yml\" } }]");
    let err = f.sched.submit("s.toml", &with_file, &[], false).await.unwrap_err();
    assert!(err.to_string().contains("a.yml"), "{err}");
    assert!(f.sched.studies().unwrap().is_empty());
    assert!(matches!(f.sched.status("s"), Err(CoordinatorError::UnknownStudy(_))));
}

#[tokio::test]
async fn workers_get_only_kinds_they_run() {
    let f = fixture();
    f.sched.register("other", vec!["ct.suite".into()]);
    submit(&f.sched, &study("")).await;
    assert!(f.sched.lease("other", 10).unwrap().is_empty());
    assert!(matches!(f.sched.lease("ghost", 1), Err(CoordinatorError::UnknownWorker(_))));
}

#[tokio::test]
async fn a_handed_back_job_is_queued_again_without_using_an_attempt() {
    let f = fixture();
    submit(&f.sched, &study("").replace("retries = 1", "retries = 0")).await;
    let a = f.sched.lease("w1", 1).unwrap();
    assert_eq!(f.sched.complete("w1", vec![report(&a[0], AttemptStatus::Cancelled)]).await.unwrap(), vec![true]);
    let again: Vec<_> = f.sched.lease("w2", 8).unwrap().into_iter().filter(|j| j.spec == a[0].spec).collect();
    assert_eq!(again[0].attempt, 1, "the hand-back used no attempt");
    f.sched.complete("w2", vec![report(&again[0], AttemptStatus::Ok)]).await.unwrap();
    let results = f.sched.results("s").unwrap();
    let r = results.iter().find(|r| r.spec == a[0].spec).unwrap();
    assert_eq!((r.state, r.attempts), (JobState::Done as i32, 1));
}

#[tokio::test]
async fn inline_artifacts_are_checked_and_small_ones_live_in_the_database() {
    let f = fixture();
    let small = b"small".to_vec();
    let large = vec![7u8; SMALL_ARTIFACT + 1];
    let hash = |d: &[u8]| blake3::hash(d).to_hex().to_string();
    let err = f.sched.put_inline_artifacts(vec![(hash(b"other"), small.clone())]).unwrap_err();
    assert!(err.to_string().contains("hashes to"), "{err}");
    assert!(!f.sched.has_artifact(&hash(&small)).unwrap(), "a rejected artifact is not stored");
    f.sched.put_inline_artifacts(vec![(hash(&small), small.clone()), (hash(&large), large.clone())]).unwrap();
    assert!(matches!(f.sched.artifact(&hash(&small)).unwrap(), ArtifactSource::Bytes(b) if b == small));
    match f.sched.artifact(&hash(&large)).unwrap() {
        ArtifactSource::File(p) => assert_eq!(std::fs::read(p).unwrap(), large),
        ArtifactSource::Bytes(_) => panic!("large artifacts are files"),
    }
    assert!(matches!(f.sched.artifact(&hash(b"absent")), Err(CoordinatorError::UnknownArtifact(_))));
}
