//! Scheduling: which job runs where, leases and their expiry, retries, dependencies, cancellation.
//!
//! The store is the truth for everything that must survive a crash (studies, job states, results,
//! attempt counts). Leases live only in memory: after a restart every unfinished job is queued
//! again, and a worker still running one re-adopts it through its next heartbeat, so a job that
//! had completed is never run again and one that had not is run at most once more.
//!
//! All read-modify-writes of job records happen under one lock; making them durable (fsync)
//! happens outside it, batched across callers by [`Durability`].

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

use rigor_proto::{
    AttemptReport, AttemptStatus, ExperimentInfo, ExperimentStatus, InputRef, JobResult, JobSpec, JobState,
    LeasedJob, Provenance, StoredJob, StoredStudy, StudyStatus, SubjectFile, SubmitStudyResponse,
};
use rigor_technique::Registry;
use tokio::sync::{watch, Notify};

use crate::artifacts::{ArtifactError, ArtifactStore};
use crate::clock::Clock;
use crate::error::{CoordinatorError, Result};
use crate::plan::{FileRef, Plan};
use crate::store::{Store, Writes};
use crate::study::{self, locate_file_reference};

/// Artifacts up to this size live in the database; larger ones are files beside it.
pub const SMALL_ARTIFACT: usize = 64 << 10;

/// A stored artifact's content.
pub enum ArtifactSource {
    Bytes(Vec<u8>),
    File(PathBuf),
}

/// Settings of the scheduler.
#[derive(Debug, Clone)]
pub struct ScheduleConfig {
    /// A lease not renewed within this time expires and its job is queued again.
    pub lease_ttl_ms: u64,
    /// Jobs written per atomic batch while a study is submitted.
    pub submit_batch: usize,
}

impl Default for ScheduleConfig {
    fn default() -> Self {
        ScheduleConfig { lease_ttl_ms: 15_000, submit_batch: 5_000 }
    }
}

/// A job id as 32 raw bytes: half the memory of its hex form, for million-job studies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId([u8; 32]);

impl JobId {
    pub fn parse(hex: &str) -> Option<JobId> {
        blake3::Hash::from_hex(hex).ok().map(|h| JobId(*h.as_bytes()))
    }
    pub fn hex(&self) -> String {
        blake3::Hash::from_bytes(self.0).to_hex().to_string()
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum LiveState {
    Waiting,
    Queued,
    Running { worker: u32, attempt: u32, expires_ms: u64 },
}

/// An unfinished job of a study's current plan.
#[derive(Debug)]
struct Live {
    study: u32,
    experiment: u32,
    state: LiveState,
    pending_deps: u32,
    /// The stored record while the job runs, so completing it needs no read of the store.
    record: Option<Box<StoredJob>>,
}

struct StudyMem {
    name: String,
    experiments: Vec<ExperimentInfo>,
    /// Per experiment, jobs by [`JobState`] value.
    counts: Vec<[u64; 7]>,
    submitted_unix_ms: i64,
}

struct WorkerMem {
    kinds: Vec<String>,
    last_seen_ms: u64,
}

#[derive(Default)]
struct State {
    studies: Vec<StudyMem>,
    study_index: HashMap<String, u32>,
    live: HashMap<JobId, Live>,
    /// Jobs per kind in the order they became ready; entries no longer queued are skipped when popped.
    queues: HashMap<String, VecDeque<JobId>>,
    running: HashSet<JobId>,
    dependents: HashMap<JobId, Vec<JobId>>,
    workers: Vec<(String, WorkerMem)>,
    worker_index: HashMap<String, u32>,
}

/// Makes applied writes durable, one fsync for every caller that asked while the previous one ran.
pub struct Durability {
    requested: std::sync::atomic::AtomicU64,
    closed: std::sync::atomic::AtomicBool,
    done: watch::Sender<u64>,
    wake: Notify,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Durability {
    fn start(store: Arc<dyn Store>) -> Arc<Self> {
        use std::sync::atomic::Ordering::SeqCst;
        let d = Arc::new(Durability {
            requested: 0.into(),
            closed: false.into(),
            done: watch::channel(0).0,
            wake: Notify::new(),
            thread: Mutex::new(None),
        });
        let me = d.clone();
        // A plain thread: flushing blocks, and it must go on whatever runtime the callers use.
        let handle = std::thread::Builder::new()
            .name("rigor-flush".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread().build().expect("flush runtime");
                rt.block_on(async move {
                    loop {
                        me.wake.notified().await;
                        let target = me.requested.load(SeqCst);
                        if let Err(e) = store.flush() {
                            tracing::error!(error = %e, "flushing the database failed");
                        }
                        me.done.send_replace(target);
                        if me.closed.load(SeqCst) {
                            return;
                        }
                    }
                })
            })
            .expect("spawn flush thread");
        *d.thread.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
        d
    }

    /// Returns once everything applied before the call is on disk.
    pub async fn wait(&self) {
        let target = self.requested.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let mut rx = self.done.subscribe();
        self.wake.notify_one();
        let _ = rx.wait_for(|done| *done >= target).await;
    }

    /// Flushes one last time and stops the flush thread, releasing the store.
    fn close(&self) {
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        self.wake.notify_one();
        if let Some(t) = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take() {
            let _ = t.join();
        }
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.durability.close();
    }
}

/// The scheduler: the coordinator's logic, independent of gRPC.
pub struct Scheduler {
    store: Arc<dyn Store>,
    artifacts: Arc<ArtifactStore>,
    registry: Registry,
    clock: Arc<dyn Clock>,
    config: ScheduleConfig,
    state: Mutex<State>,
    durability: Arc<Durability>,
}

fn state_of(j: &StoredJob) -> JobState {
    JobState::try_from(j.state).unwrap_or(JobState::Unspecified)
}

fn is_final(s: JobState) -> bool {
    matches!(s, JobState::Done | JobState::Failed | JobState::Cancelled)
}

impl Scheduler {
    /// Opens the scheduler on a store, rebuilding the in-memory queues from what is stored.
    pub fn open(
        store: Arc<dyn Store>,
        artifacts: Arc<ArtifactStore>,
        registry: Registry,
        clock: Arc<dyn Clock>,
        config: ScheduleConfig,
    ) -> Result<Self> {
        let durability = Durability::start(store.clone());
        let s = Scheduler { store, artifacts, registry, clock, config, state: Mutex::new(State::default()), durability };
        {
            let mut st = s.lock();
            for study in s.store.studies()? {
                s.load_study(&mut st, &study)?;
            }
        }
        Ok(s)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn artifacts(&self) -> &ArtifactStore {
        &self.artifacts
    }

    pub fn lease_ttl_ms(&self) -> u64 {
        self.config.lease_ttl_ms
    }

    /// Rebuilds a study's counters and unfinished jobs from the store (at start-up).
    fn load_study(&self, st: &mut State, study: &StoredStudy) -> Result<()> {
        let idx = self.study_slot(st, study);
        let mut unfinished: Vec<StoredJob> = Vec::new();
        for job in self.store.study_jobs(&study.name) {
            let job = job?;
            if job.generation != study.generation {
                continue;
            }
            let exp = exp_index(&st.studies[idx as usize], &job);
            st.studies[idx as usize].counts[exp][job.state as usize] += 1;
            if !is_final(state_of(&job)) {
                unfinished.push(job);
            }
        }
        unfinished.sort_by_key(|j| j.plan_index);
        let mut writes = Writes::default();
        for job in unfinished {
            self.make_live(st, idx, job, &mut writes)?;
        }
        self.store.apply(writes)?;
        Ok(())
    }

    /// Registers (or refreshes) a study's in-memory slot and returns its index.
    fn study_slot(&self, st: &mut State, study: &StoredStudy) -> u32 {
        let mem = StudyMem {
            name: study.name.clone(),
            experiments: study.experiments.clone(),
            counts: vec![[0; 7]; study.experiments.len()],
            submitted_unix_ms: study.submitted_unix_ms,
        };
        match st.study_index.get(&study.name) {
            Some(&i) => {
                st.studies[i as usize] = mem;
                i
            }
            None => {
                let i = st.studies.len() as u32;
                st.studies.push(mem);
                st.study_index.insert(study.name.clone(), i);
                i
            }
        }
    }

    /// Puts an unfinished stored job into memory: waiting on its dependencies, or queued.
    /// A dependency that already failed fails the job at once.
    fn make_live(&self, st: &mut State, study: u32, mut job: StoredJob, writes: &mut Writes) -> Result<()> {
        let spec = job.spec.clone().expect("stored jobs carry their spec");
        let Some(id) = JobId::parse(&spec.job_id) else { return Ok(()) };
        let experiment = exp_index(&st.studies[study as usize], &job) as u32;
        let mut pending = 0;
        for dep in &spec.depends_on {
            let Some(dep_id) = JobId::parse(dep) else { continue };
            if st.live.contains_key(&dep_id) {
                pending += 1;
                st.dependents.entry(dep_id).or_default().push(id);
                continue;
            }
            let dep_state = self.store.job(&spec.study, dep)?.map(|d| state_of(&d));
            if dep_state != Some(JobState::Done) {
                let old = state_of(&job);
                job.state = JobState::Failed as i32;
                job.last = Some(report_without_attempt(&spec, format!("dependency {dep} did not succeed")));
                recount(&mut st.studies[study as usize], experiment, old, JobState::Failed);
                writes.events.push(format!("failed {} {}: dependency did not succeed", spec.study, spec.job_id));
                writes.jobs.push(job);
                return Ok(());
            }
        }
        let old = state_of(&job);
        let new = if pending > 0 { JobState::Waiting } else { JobState::Queued };
        if old != new {
            job.state = new as i32;
            recount(&mut st.studies[study as usize], experiment, old, new);
            writes.jobs.push(job);
        }
        let state = if pending > 0 { LiveState::Waiting } else { LiveState::Queued };
        st.live.insert(id, Live { study, experiment, state, pending_deps: pending, record: None });
        if pending == 0 {
            st.queues.entry(spec.kind.clone()).or_default().push_back(id);
        }
        Ok(())
    }

    /// Validates, plans and stores a study. Cells already stored are reused; cancelled ones (and
    /// failed ones when `retry_failed`) are queued again. Nothing is stored if validation fails.
    pub async fn submit(
        &self,
        study_path: &str,
        study_toml: &str,
        files: &[SubjectFile],
        retry_failed: bool,
    ) -> Result<SubmitStudyResponse> {
        let r = self.plan_and_store(study_path, study_toml, files, retry_failed)?;
        self.durability.wait().await;
        Ok(r)
    }

    /// The blocking part of [`Scheduler::submit`] (seconds for a million jobs): run it off the
    /// async threads, then wait for [`Scheduler::durable`].
    pub fn plan_and_store(
        &self,
        study_path: &str,
        study_toml: &str,
        files: &[SubjectFile],
        retry_failed: bool,
    ) -> Result<SubmitStudyResponse> {
        let study = study::parse(study_path, study_toml, &self.registry)?;
        let mut refs = std::collections::BTreeMap::new();
        for path in study.subject_files() {
            let key = path.to_string_lossy().into_owned();
            match files.iter().find(|f| f.path == key) {
                Some(f) if self.has_artifact(&f.hash)? => {
                    refs.insert(path, FileRef { hash: f.hash.clone(), size: f.size });
                }
                _ => return Err(locate_file_reference(study_path, study_toml, &path).into()),
            }
        }
        let plan = Plan::new(&study, &self.registry, &refs);
        let previous = self.store.study(&study.name)?;
        let generation = previous.as_ref().map_or(1, |p| p.generation + 1);
        let stored_study = StoredStudy {
            name: study.name.clone(),
            study_toml: study_toml.to_string(),
            study_path: study_path.to_string(),
            generation,
            submitted_unix_ms: self.clock.now_ms() as i64,
            experiments: study
                .experiments
                .iter()
                .map(|e| ExperimentInfo { id: e.id.clone(), kind: e.kind.clone(), max_attempts: e.retries + 1 })
                .collect(),
            jobs: study.job_count(),
        };

        // Drop the study's unfinished jobs from memory; the new plan brings back those it keeps.
        // Take the study's unfinished jobs out of memory; the new plan brings back those it keeps,
        // and jobs that were running stay leased to their workers.
        let (idx, mut was_running) = {
            let mut st = self.lock();
            let mut was_running = HashMap::new();
            if let Some(&old) = st.study_index.get(&study.name) {
                let ids: Vec<JobId> = st.live.iter().filter(|(_, l)| l.study == old).map(|(id, _)| *id).collect();
                for id in ids {
                    if let Some(Live { state: s @ LiveState::Running { .. }, .. }) = st.live.remove(&id) {
                        was_running.insert(id, s);
                    }
                    st.running.remove(&id);
                }
            }
            (self.study_slot(&mut st, &stored_study), was_running)
        };

        let (mut new, mut reused) = (0u64, 0u64);
        let mut jobs = plan.jobs().enumerate().peekable();
        while jobs.peek().is_some() {
            let batch: Vec<(usize, JobSpec)> = jobs.by_ref().take(self.config.submit_batch).collect();
            let mut st = self.lock();
            let mut writes = Writes::default();
            for (index, spec) in batch {
                let max_attempts = stored_study.experiments.iter().find(|e| e.id == spec.experiment).map_or(1, |e| e.max_attempts);
                let existing = self.store.job(&study.name, &spec.job_id)?;
                let mut job = match existing {
                    None => {
                        new += 1;
                        StoredJob { spec: Some(spec), state: JobState::Queued as i32, ..Default::default() }
                    }
                    Some(mut j) => {
                        reused += 1;
                        let s = state_of(&j);
                        if s == JobState::Cancelled || (s == JobState::Failed && retry_failed) {
                            j.state = JobState::Queued as i32;
                            j.attempts = 0;
                        }
                        // Limits may change without changing what the job computes.
                        j.spec = Some(spec);
                        j
                    }
                };
                job.generation = generation;
                job.max_attempts = max_attempts;
                job.plan_index = index as u32;
                let exp = exp_index(&st.studies[idx as usize], &job);
                st.studies[idx as usize].counts[exp][job.state as usize] += 1;
                if is_final(state_of(&job)) {
                    writes.jobs.push(job);
                } else {
                    let id = JobId::parse(&job.spec.as_ref().expect("planned").job_id);
                    writes.jobs.push(job.clone());
                    self.make_live(&mut st, idx, job, &mut writes)?;
                    if let Some((id, running)) = id.and_then(|id| was_running.remove(&id).map(|r| (id, r))) {
                        if let Some(live) = st.live.get_mut(&id).filter(|l| l.state == LiveState::Queued) {
                            live.state = running;
                            let exp = live.experiment;
                            recount(&mut st.studies[idx as usize], exp, JobState::Queued, JobState::Running);
                            st.running.insert(id);
                        }
                    }
                }
            }
            self.store.apply(writes)?;
        }
        self.store.apply(Writes {
            studies: vec![stored_study.clone()],
            events: vec![format!("submitted {} generation {generation}: {new} new, {reused} reused", study.name)],
            ..Default::default()
        })?;
        tracing::info!(study = %study.name, generation, new, reused, "study submitted");
        Ok(SubmitStudyResponse { study: study.name.clone(), jobs_total: new + reused, jobs_new: new, jobs_reused: reused })
    }

    /// Returns once every write applied so far is on disk.
    pub async fn durable(&self) {
        self.durability.wait().await
    }

    /// Registers a worker (again, after a coordinator restart) with the kinds it can run.
    pub fn register(&self, worker_id: &str, kinds: Vec<String>) {
        let mut st = self.lock();
        let now = self.clock.now_ms();
        let mem = WorkerMem { kinds, last_seen_ms: now };
        match st.worker_index.get(worker_id) {
            Some(&i) => st.workers[i as usize].1 = mem,
            None => {
                let i = st.workers.len() as u32;
                st.workers.push((worker_id.to_string(), mem));
                st.worker_index.insert(worker_id.to_string(), i);
            }
        }
        tracing::info!(worker = worker_id, "worker registered");
    }

    fn worker(&self, st: &mut State, worker_id: &str) -> Result<u32> {
        let i = *st.worker_index.get(worker_id).ok_or_else(|| CoordinatorError::UnknownWorker(worker_id.to_string()))?;
        st.workers[i as usize].1.last_seen_ms = self.clock.now_ms();
        Ok(i)
    }

    /// Leases up to `max` queued jobs of kinds the worker can run.
    pub fn lease(&self, worker_id: &str, max: u32) -> Result<Vec<LeasedJob>> {
        let mut st = self.lock();
        let w = self.worker(&mut st, worker_id)?;
        let kinds = st.workers[w as usize].1.kinds.clone();
        let now = self.clock.now_ms();
        let mut leased = Vec::new();
        'kinds: for kind in &kinds {
            while leased.len() < max as usize {
                let Some(id) = st.queues.get_mut(kind).and_then(|q| q.pop_front()) else { continue 'kinds };
                let Some(live) = st.live.get(&id) else { continue };
                if live.state != LiveState::Queued {
                    continue;
                }
                let study = live.study;
                let name = st.studies[study as usize].name.clone();
                let Some(stored) = self.store.job(&name, &id.hex())? else { continue };
                let attempt = stored.attempts + 1;
                let mut spec = stored.spec.clone().expect("stored jobs carry their spec");
                if !spec.depends_on.is_empty() {
                    spec.inputs.extend(self.dependency_inputs(&spec)?);
                }
                let live = st.live.get_mut(&id).expect("checked above");
                live.state = LiveState::Running { worker: w, attempt, expires_ms: now + self.config.lease_ttl_ms };
                live.record = Some(Box::new(stored));
                let exp = live.experiment;
                recount(&mut st.studies[study as usize], exp, JobState::Queued, JobState::Running);
                st.running.insert(id);
                leased.push(LeasedJob { spec: Some(spec), attempt });
            }
        }
        Ok(leased)
    }

    /// The artifacts of a job's dependencies, named `experiment/artifact` (with the dependency's
    /// position inserted when an experiment contributes several jobs).
    fn dependency_inputs(&self, spec: &JobSpec) -> Result<Vec<InputRef>> {
        let mut inputs = Vec::new();
        let many = spec.depends_on.len() > 1;
        for (i, dep) in spec.depends_on.iter().enumerate() {
            let Some(d) = self.store.job(&spec.study, dep)? else { continue };
            let exp = d.spec.as_ref().map(|s| s.experiment.clone()).unwrap_or_default();
            let arts = d.last.and_then(|l| l.output).map(|o| o.artifacts).unwrap_or_default();
            for a in arts {
                let name = if many { format!("{exp}/{i}/{}", a.name) } else { format!("{exp}/{}", a.name) };
                inputs.push(InputRef { name, ..a });
            }
        }
        Ok(inputs)
    }

    /// Renews the leases of the jobs a worker is running; returns the jobs it should stop.
    /// After a coordinator restart, a job the worker reports that is queued again is adopted back.
    pub fn heartbeat(&self, worker_id: &str, running: &[(String, u32)]) -> Result<Vec<String>> {
        let mut st = self.lock();
        let w = self.worker(&mut st, worker_id)?;
        let expires_ms = self.clock.now_ms() + self.config.lease_ttl_ms;
        let mut cancel = Vec::new();
        for (hex, attempt) in running {
            let Some(id) = JobId::parse(hex) else { continue };
            let Some(live) = st.live.get_mut(&id) else {
                cancel.push(hex.clone());
                continue;
            };
            match live.state {
                LiveState::Running { worker, attempt: a, .. } if worker == w && a == *attempt => {
                    live.state = LiveState::Running { worker, attempt: a, expires_ms };
                }
                LiveState::Queued => {
                    live.state = LiveState::Running { worker: w, attempt: *attempt, expires_ms };
                    let (study, exp) = (live.study, live.experiment);
                    recount(&mut st.studies[study as usize], exp, JobState::Queued, JobState::Running);
                    st.running.insert(id);
                }
                _ => cancel.push(hex.clone()),
            }
        }
        Ok(cancel)
    }

    /// Records finished attempts. Returns, per report, whether it was accepted: a job gets exactly
    /// one result, so a report for a job that is already finished is not.
    pub async fn complete(&self, worker_id: &str, reports: Vec<AttemptReport>) -> Result<Vec<bool>> {
        let mut accepted = Vec::with_capacity(reports.len());
        {
            let mut st = self.lock();
            let w = self.worker(&mut st, worker_id)?;
            let mut writes = Writes::default();
            for report in reports {
                accepted.push(self.complete_one(&mut st, w, report, &mut writes)?);
            }
            if !writes.is_empty() {
                self.store.apply(writes)?;
            }
        }
        self.durability.wait().await;
        Ok(accepted)
    }

    fn complete_one(&self, st: &mut State, w: u32, report: AttemptReport, writes: &mut Writes) -> Result<bool> {
        let Some(id) = JobId::parse(&report.job_id) else {
            return Err(CoordinatorError::BadRequest(format!("`{}` is not a job id", report.job_id)));
        };
        let Some(live) = st.live.get(&id) else { return Ok(false) };
        let (study, state) = (live.study, live.state);
        let ok = report.status == AttemptStatus::Ok as i32;
        let current = matches!(state, LiveState::Running { worker, attempt, .. } if worker == w && attempt == report.attempt);
        if !ok && !current {
            // A failure of a lease that already expired was counted when it expired.
            return Ok(false);
        }
        let name = st.studies[study as usize].name.clone();
        let cached = st.live.get_mut(&id).and_then(|l| l.record.take()).map(|b| *b);
        let job = match cached {
            Some(j) => Some(j),
            None => self.store.job(&name, &report.job_id)?,
        };
        let Some(mut job) = job else { return Ok(false) };
        if report.status == AttemptStatus::Cancelled as i32 {
            // Handed back by a worker that is shutting down: not the job's fault, so no attempt is used.
            let kind = job.spec.as_ref().map(|s| s.kind.clone()).unwrap_or_default();
            requeue(st, id, kind);
            return Ok(true);
        }
        job.attempts += 1;
        let status = AttemptStatus::try_from(report.status).unwrap_or(AttemptStatus::Unspecified);
        job.last = Some(report);
        if ok {
            self.finish(st, id, job, JobState::Done, writes)?;
        } else {
            writes.events.push(format!("attempt {} of {} {}: {}", job.attempts, name, id.hex(), status.as_str_name()));
            self.retry_or_fail(st, id, job, writes)?;
        }
        Ok(true)
    }

    /// Queues a job again after a failed attempt, or fails it for good when attempts are used up.
    fn retry_or_fail(&self, st: &mut State, id: JobId, mut job: StoredJob, writes: &mut Writes) -> Result<()> {
        if job.attempts < job.max_attempts.max(1) {
            let kind = job.spec.as_ref().map(|s| s.kind.clone()).unwrap_or_default();
            requeue(st, id, kind);
            job.state = JobState::Queued as i32;
            writes.jobs.push(job);
            Ok(())
        } else {
            self.finish(st, id, job, JobState::Failed, writes)
        }
    }

    /// Moves a live job to a final state and releases (or fails) the jobs waiting on it.
    fn finish(&self, st: &mut State, id: JobId, mut job: StoredJob, to: JobState, writes: &mut Writes) -> Result<()> {
        let Some(live) = st.live.remove(&id) else { return Ok(()) };
        st.running.remove(&id);
        recount(&mut st.studies[live.study as usize], live.experiment, live_job_state(live.state), to);
        job.state = to as i32;
        if to != JobState::Done {
            writes.events.push(format!("{} {}", to.as_str_name(), id.hex()));
        }
        let study_name = st.studies[live.study as usize].name.clone();
        writes.jobs.push(job);
        for dependent in st.dependents.remove(&id).unwrap_or_default() {
            let Some(d) = st.live.get_mut(&dependent) else { continue };
            if to == JobState::Done {
                d.pending_deps = d.pending_deps.saturating_sub(1);
                if d.pending_deps == 0 && d.state == LiveState::Waiting {
                    d.state = LiveState::Queued;
                    let (study, exp) = (d.study, d.experiment);
                    recount(&mut st.studies[study as usize], exp, JobState::Waiting, JobState::Queued);
                    if let Some(mut dj) = self.store.job(&study_name, &dependent.hex())? {
                        dj.state = JobState::Queued as i32;
                        let kind = dj.spec.as_ref().map(|s| s.kind.clone()).unwrap_or_default();
                        writes.jobs.push(dj);
                        st.queues.entry(kind).or_default().push_back(dependent);
                    }
                }
            } else if let Some(mut dj) = self.store.job(&study_name, &dependent.hex())? {
                let spec = dj.spec.clone().unwrap_or_default();
                dj.last = Some(report_without_attempt(&spec, format!("dependency {} did not succeed", id.hex())));
                self.finish(st, dependent, dj, JobState::Failed, writes)?;
            }
        }
        Ok(())
    }

    /// Expires leases not renewed in time: each counts as a lost attempt. Returns how many expired.
    pub fn expire_leases(&self) -> Result<usize> {
        let now = self.clock.now_ms();
        let mut st = self.lock();
        let expired: Vec<(JobId, u32, u32)> = st
            .running
            .iter()
            .filter_map(|id| match st.live.get(id)?.state {
                LiveState::Running { worker, attempt, expires_ms } if expires_ms <= now => Some((*id, worker, attempt)),
                _ => None,
            })
            .collect();
        let mut writes = Writes::default();
        for (id, worker, attempt) in &expired {
            let study = st.live[id].study;
            let name = st.studies[study as usize].name.clone();
            let Some(mut job) = self.store.job(&name, &id.hex())? else { continue };
            let worker_name = st.workers[*worker as usize].0.clone();
            job.attempts += 1;
            let spec = job.spec.clone().unwrap_or_default();
            job.last = Some(AttemptReport {
                job_id: id.hex(),
                attempt: *attempt,
                status: AttemptStatus::Lost as i32,
                error: format!("lease expired: worker {worker_name} stopped renewing it"),
                provenance: Some(Provenance {
                    worker_id: worker_name.clone(),
                    technique_version: spec.technique_version.clone(),
                    attempt: *attempt,
                    ..Default::default()
                }),
                output: None,
            });
            writes.events.push(format!("lease expired {} {} on {worker_name}", name, id.hex()));
            self.retry_or_fail(&mut st, *id, job, &mut writes)?;
        }
        if !writes.is_empty() {
            self.store.apply(writes)?;
        }
        Ok(expired.len())
    }

    /// Cancels every unfinished job of a study; running ones are told to stop at their next heartbeat.
    pub async fn cancel(&self, study: &str) -> Result<StudyStatus> {
        {
            let mut st = self.lock();
            let &idx = st.study_index.get(study).ok_or_else(|| CoordinatorError::UnknownStudy(study.to_string()))?;
            let ids: Vec<JobId> = st.live.iter().filter(|(_, l)| l.study == idx).map(|(id, _)| *id).collect();
            let mut writes = Writes::default();
            for id in ids {
                if let Some(job) = self.store.job(study, &id.hex())? {
                    st.dependents.remove(&id);
                    self.finish(&mut st, id, job, JobState::Cancelled, &mut writes)?;
                }
            }
            writes.events.push(format!("cancelled {study}"));
            self.store.apply(writes)?;
        }
        self.durability.wait().await;
        self.status(study)
    }

    /// Counts per experiment and state, from memory.
    pub fn status(&self, study: &str) -> Result<StudyStatus> {
        let st = self.lock();
        let &idx = st.study_index.get(study).ok_or_else(|| CoordinatorError::UnknownStudy(study.to_string()))?;
        let s = &st.studies[idx as usize];
        let now = self.clock.now_ms();
        let experiments: Vec<ExperimentStatus> = s
            .experiments
            .iter()
            .zip(&s.counts)
            .map(|(e, c)| ExperimentStatus {
                experiment: e.id.clone(),
                kind: e.kind.clone(),
                total: c.iter().sum(),
                waiting: c[JobState::Waiting as usize],
                queued: c[JobState::Queued as usize],
                running: c[JobState::Running as usize],
                done: c[JobState::Done as usize],
                failed: c[JobState::Failed as usize],
                cancelled: c[JobState::Cancelled as usize],
            })
            .collect();
        let finished = experiments.iter().all(|e| e.waiting + e.queued + e.running == 0);
        let workers = st.workers.iter().filter(|(_, w)| w.last_seen_ms + self.config.lease_ttl_ms > now).count() as u32;
        Ok(StudyStatus { study: study.to_string(), experiments, finished, workers, submitted_unix_ms: s.submitted_unix_ms })
    }

    pub fn studies(&self) -> Result<Vec<StoredStudy>> {
        Ok(self.store.studies()?)
    }

    pub fn study(&self, name: &str) -> Result<StoredStudy> {
        self.store.study(name)?.ok_or_else(|| CoordinatorError::UnknownStudy(name.to_string()))
    }

    /// Every job of the study's current plan with its state and accepted (or last) attempt, in plan order.
    pub fn results(&self, study: &str) -> Result<Vec<JobResult>> {
        let s = self.study(study)?;
        let mut jobs: Vec<StoredJob> =
            self.store.study_jobs(study).filter(|j| j.as_ref().map_or(true, |j| j.generation == s.generation)).collect::<std::result::Result<_, _>>()?;
        jobs.sort_by_key(|j| j.plan_index);
        let st = self.lock();
        Ok(jobs
            .into_iter()
            .map(|j| {
                let spec = j.spec.unwrap_or_default();
                let live = JobId::parse(&spec.job_id).and_then(|id| st.live.get(&id)).map(|l| live_job_state(l.state));
                let state = live.unwrap_or(JobState::try_from(j.state).unwrap_or(JobState::Unspecified));
                JobResult { spec: Some(spec), state: state as i32, attempts: j.attempts, last: j.last }
            })
            .collect())
    }

    /// The event log, oldest first.
    pub fn events(&self) -> Result<Vec<String>> {
        Ok(self.store.events()?)
    }

    /// True when an artifact with this hash is stored (in the database or as a file).
    pub fn has_artifact(&self, hash: &str) -> Result<bool> {
        Ok(self.store.has_blob(hash)? || self.artifacts.contains(hash))
    }

    /// Stores artifacts sent inline: small ones in the database, where the next durable write
    /// covers them (a file per job would cost an inode and an fsync each), larger ones as files.
    pub fn put_inline_artifacts(&self, blobs: Vec<(String, Vec<u8>)>) -> Result<()> {
        let mut small = Vec::new();
        for (declared, data) in blobs {
            let actual = blake3::hash(&data).to_hex().to_string();
            if actual != declared {
                return Err(ArtifactError::HashMismatch { declared, actual }.into());
            }
            if data.len() <= SMALL_ARTIFACT {
                small.push((actual, data));
            } else if !self.artifacts.contains(&actual) {
                self.artifacts.put(&data)?;
            }
        }
        Ok(self.store.put_blobs(&small)?)
    }

    /// Where an artifact's bytes are, if stored.
    pub fn artifact(&self, hash: &str) -> Result<ArtifactSource> {
        if let Some(bytes) = self.store.blob(hash)? {
            return Ok(ArtifactSource::Bytes(bytes));
        }
        let path = self.artifacts.path(hash)?;
        if path.is_file() {
            Ok(ArtifactSource::File(path))
        } else {
            Err(CoordinatorError::UnknownArtifact(hash.to_string()))
        }
    }
}

/// Puts a live job back at the end of its kind's queue.
fn requeue(st: &mut State, id: JobId, kind: String) {
    let Some(live) = st.live.get_mut(&id) else { return };
    let from = live_job_state(live.state);
    live.state = LiveState::Queued;
    // The cached record belongs to the attempt that just ended; the next lease reads a fresh one.
    live.record = None;
    let (study, exp) = (live.study, live.experiment);
    recount(&mut st.studies[study as usize], exp, from, JobState::Queued);
    st.running.remove(&id);
    st.queues.entry(kind).or_default().push_back(id);
}

fn exp_index(study: &StudyMem, job: &StoredJob) -> usize {
    let exp = job.spec.as_ref().map(|s| s.experiment.as_str()).unwrap_or("");
    study.experiments.iter().position(|e| e.id == exp).unwrap_or(0)
}

fn live_job_state(s: LiveState) -> JobState {
    match s {
        LiveState::Waiting => JobState::Waiting,
        LiveState::Queued => JobState::Queued,
        LiveState::Running { .. } => JobState::Running,
    }
}

fn recount(study: &mut StudyMem, experiment: u32, from: JobState, to: JobState) {
    if let Some(c) = study.counts.get_mut(experiment as usize) {
        c[from as usize] = c[from as usize].saturating_sub(1);
        c[to as usize] += 1;
    }
}

fn report_without_attempt(spec: &JobSpec, error: String) -> AttemptReport {
    AttemptReport {
        job_id: spec.job_id.clone(),
        status: AttemptStatus::Failed as i32,
        error,
        ..Default::default()
    }
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
