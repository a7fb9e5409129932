//! Helpers for the end-to-end tests: real `rigor` processes (coordinator, workers, CLI commands)
//! on loopback, killed by a drop guard so that a failing test never leaves orphans behind.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The binary under test.
pub const RIGOR: &str = env!("CARGO_BIN_EXE_rigor");

/// Generous bound for anything that should take a few seconds (debug build, 2 cores, other tests).
pub const LONG: Duration = Duration::from_secs(120);

/// A `rigor` command without ambient configuration that could change what it talks to.
pub fn rigor() -> Command {
    let mut c = Command::new(RIGOR);
    c.env_remove("RIGOR_TOKEN")
        .env_remove("RIGOR_COORDINATOR")
        .env_remove("RIGOR_NOOP_LOG")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null());
    c
}

/// A long-running child process that is killed (SIGKILL) and reaped when dropped.
pub struct Proc {
    pub name: String,
    child: Option<Child>,
    stderr: PathBuf,
}

impl Proc {
    /// Starts `cmd` with stderr going to `stderr_file` (shown when something goes wrong).
    pub fn spawn(name: &str, mut cmd: Command, stderr_file: PathBuf, stdout: Stdio) -> Proc {
        let err = std::fs::File::create(&stderr_file).expect("create stderr file");
        let child = cmd.stdout(stdout).stderr(err).spawn().unwrap_or_else(|e| panic!("spawn {name}: {e}"));
        Proc { name: name.to_string(), child: Some(child), stderr: stderr_file }
    }

    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("not yet killed").id()
    }

    pub fn child(&mut self) -> &mut Child {
        self.child.as_mut().expect("not yet killed")
    }

    /// What the process wrote to stderr so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// `Some(status)` once the process has exited.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child().try_wait().expect("try_wait")
    }

    /// Panics (with its stderr) when the process is no longer running.
    pub fn assert_alive(&mut self) {
        if let Some(s) = self.exited() {
            panic!("{} exited unexpectedly ({s}); stderr:\n{}", self.name, self.stderr());
        }
    }

    /// SIGKILL and reap.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// SIGTERM, then wait up to `grace` for a clean exit (SIGKILL after that); returns the status.
    pub fn terminate(&mut self, grace: Duration) -> Option<ExitStatus> {
        let mut c = self.child.take()?;
        // SAFETY: signalling a child we spawned and have not reaped yet (so its pid is still ours).
        unsafe { libc::kill(c.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Some(s)) = c.try_wait() {
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = c.kill();
        c.wait().ok()
    }

    /// Waits for the process to exit by itself; panics after `timeout` (and kills it).
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(s) = self.exited() {
                self.child = None;
                return s;
            }
            if Instant::now() > deadline {
                let stderr = self.stderr();
                self.kill9();
                panic!("{} did not exit within {timeout:?}; stderr:\n{stderr}", self.name);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// A free loopback port: bound to :0, read, released (so a coordinator can be restarted on it).
pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    l.local_addr().unwrap().port()
}

/// Options of a coordinator process.
#[derive(Clone, Default)]
pub struct CoordOpts {
    /// Fixed port; `None` for an ephemeral one.
    pub port: Option<u16>,
    pub token: Option<String>,
    pub lease_ttl_ms: Option<u64>,
}

/// A `rigor coordinator` process.
pub struct Coordinator {
    pub proc: Proc,
    pub port: u16,
    pub url: String,
    pub data: PathBuf,
}

impl Coordinator {
    /// Starts a coordinator on `data` and waits for its `listening on ADDR` line.
    pub fn start(data: &Path, logs: &Path, opts: &CoordOpts) -> Coordinator {
        let listen = format!("127.0.0.1:{}", opts.port.unwrap_or(0));
        let mut cmd = rigor();
        cmd.arg("coordinator").arg("--listen").arg(&listen).arg("--data").arg(data);
        if let Some(t) = &opts.token {
            cmd.arg("--token").arg(t);
        }
        if let Some(ttl) = opts.lease_ttl_ms {
            cmd.arg("--lease-ttl-ms").arg(ttl.to_string());
        }
        let n = std::fs::read_dir(logs).map(|d| d.count()).unwrap_or(0);
        let mut proc = Proc::spawn("coordinator", cmd, logs.join(format!("coordinator-{n}.stderr")), Stdio::piped());
        let stdout = proc.child().stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().and_then(Result::ok);
            let _ = tx.send(first);
            // Keep draining so the coordinator never blocks on a full pipe.
            for _ in lines {}
        });
        let first = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Some(line)) => line,
            Ok(None) => panic!("coordinator exited before listening; stderr:\n{}", proc.stderr()),
            Err(_) => panic!("coordinator did not print `listening on` within 60 s; stderr:\n{}", proc.stderr()),
        };
        let addr = first.strip_prefix("listening on ").unwrap_or_else(|| panic!("unexpected first line {first:?}"));
        let port: u16 = addr.rsplit(':').next().and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("no port in {first:?}"));
        assert!(addr.starts_with("127.0.0.1:"), "listens on loopback: {first}");
        if let Some(p) = opts.port {
            assert_eq!(port, p, "the coordinator listens on the requested port");
        }
        Coordinator { proc, port, url: format!("http://127.0.0.1:{port}"), data: data.to_path_buf() }
    }
}

/// Options of a worker process.
#[derive(Clone)]
pub struct WorkerOpts {
    pub id: String,
    pub slots: usize,
    pub token: Option<String>,
    /// Appends every executed job id to this file (the noop technique's `RIGOR_NOOP_LOG`).
    pub noop_log: Option<PathBuf>,
    pub extra: Vec<String>,
}

impl WorkerOpts {
    pub fn new(id: &str, slots: usize) -> Self {
        WorkerOpts { id: id.into(), slots, token: None, noop_log: None, extra: Vec::new() }
    }
    pub fn log(mut self, path: &Path) -> Self {
        self.noop_log = Some(path.to_path_buf());
        self
    }
}

/// Starts `rigor worker` against `url`, with its cache in `<root>/cache-<id>`.
pub fn spawn_worker(url: &str, root: &Path, opts: &WorkerOpts) -> Proc {
    let cache = root.join(format!("cache-{}", opts.id));
    let mut cmd = rigor();
    cmd.arg("worker")
        .arg("--coordinator")
        .arg(url)
        .arg("--slots")
        .arg(opts.slots.to_string())
        .arg("--id")
        .arg(&opts.id)
        .arg("--cache")
        .arg(&cache)
        .arg("--grace-s")
        .arg("1")
        .args(&opts.extra);
    if let Some(t) = &opts.token {
        cmd.arg("--token").arg(t);
    }
    if let Some(log) = &opts.noop_log {
        cmd.env("RIGOR_NOOP_LOG", log);
    }
    Proc::spawn(&format!("worker {}", opts.id), cmd, root.join(format!("worker-{}.stderr", opts.id)), Stdio::null())
}

/// The outcome of a finished CLI command.
#[derive(Debug)]
pub struct Out {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Out {
    /// Panics with the command's output unless it exited with `code`.
    pub fn expect_code(self, code: i32, what: &str) -> Out {
        assert_eq!(self.code, Some(code), "{what}: expected exit {code}\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }
    pub fn ok(self, what: &str) -> Out {
        self.expect_code(0, what)
    }
}

/// Runs a `rigor` command to completion (killing it after `timeout`) and captures its output.
pub fn run_timeout(args: &[&str], env: &[(&str, &Path)], timeout: Duration) -> Out {
    let mut cmd = rigor();
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn rigor");
    let read = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = r.read_to_string(&mut s);
            s
        })
    };
    let out = read(Box::new(child.stdout.take().unwrap()));
    let err = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(s) = child.try_wait().expect("try_wait") {
            break Some(s);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    let Some(status) = status else {
        panic!("`rigor {}` did not finish within {timeout:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", args.join(" "));
    };
    Out { code: status.code(), stdout, stderr }
}

/// Runs a `rigor` command with the default timeout.
pub fn run(args: &[&str]) -> Out {
    run_timeout(args, &[], LONG)
}

/// Polls `cond` every 50 ms until it holds; panics with `what` after `timeout`.
pub fn wait_until(timeout: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out after {timeout:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Lines (job ids) in a noop execution log; an absent file has none.
pub fn log_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap_or_default().lines().map(String::from).collect()
}

/// How many times each job id appears in the given execution logs.
pub fn execution_counts(paths: &[&Path]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for p in paths {
        for id in log_lines(p) {
            *counts.entry(id).or_insert(0) += 1;
        }
    }
    counts
}

/// A parsed CSV table.
#[derive(Debug, Clone)]
pub struct Table {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn parse(text: &str) -> Table {
        let mut r = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
        let header = r.headers().expect("csv header").iter().map(String::from).collect();
        let rows = r.records().map(|rec| rec.expect("csv record").iter().map(String::from).collect()).collect();
        Table { header, rows }
    }

    pub fn col(&self, name: &str) -> usize {
        self.header.iter().position(|h| h == name).unwrap_or_else(|| panic!("no column {name} in {:?}", self.header))
    }

    /// The value of `name` in `row`.
    pub fn get<'a>(&self, row: &'a [String], name: &str) -> &'a str {
        &row[self.col(name)]
    }

    /// Distinct job ids.
    pub fn job_ids(&self) -> BTreeSet<String> {
        let c = self.col("job_id");
        self.rows.iter().map(|r| r[c].clone()).collect()
    }

    /// One row per job (the first of its metric rows).
    pub fn per_job(&self) -> BTreeMap<String, Vec<String>> {
        let c = self.col("job_id");
        let mut m = BTreeMap::new();
        for r in &self.rows {
            m.entry(r[c].clone()).or_insert_with(|| r.clone());
        }
        m
    }

    /// The job ids whose status is `status`.
    pub fn ids_with_status(&self, status: &str) -> BTreeSet<String> {
        self.per_job().into_iter().filter(|(_, r)| self.get(r, "status") == status).map(|(id, _)| id).collect()
    }

    /// The value of `metric` per job id.
    pub fn metric(&self, metric: &str) -> BTreeMap<String, String> {
        let (j, m, v) = (self.col("job_id"), self.col("metric"), self.col("value"));
        // Values as Rust prints the f64 (`2`, `0.5`), whatever the writer's float style (`2.0`).
        let canonical = |v: &str| v.parse::<f64>().map_or_else(|_| v.to_string(), |x| x.to_string());
        self.rows.iter().filter(|r| r[m] == metric).map(|r| (r[j].clone(), canonical(&r[v]))).collect()
    }

    /// The table without `drop` columns, rows as CSV-ish lines, sorted: for comparing runs.
    pub fn canonical_without(&self, drop: &[&str]) -> Vec<String> {
        let keep: Vec<usize> = (0..self.header.len()).filter(|i| !drop.contains(&self.header[*i].as_str())).collect();
        let mut lines: Vec<String> =
            self.rows.iter().map(|r| keep.iter().map(|&i| r[i].as_str()).collect::<Vec<_>>().join("\u{1f}")).collect();
        lines.sort();
        lines
    }
}

/// `rigor results NAME --format csv`, parsed.
pub fn results_csv(url: &str, study: &str, token: Option<&str>) -> Table {
    let mut args = vec!["results", study, "--coordinator", url, "--format", "csv"];
    if let Some(t) = token {
        args.extend(["--token", t]);
    }
    Table::parse(&run(&args).ok("rigor results").stdout)
}

/// `(done, total)` from `rigor status NAME`'s summary line (`NAME: D/T done, ...`).
pub fn status_done(url: &str, study: &str) -> Option<(u64, u64)> {
    let out = run(&["status", study, "--coordinator", url]);
    if out.code != Some(0) {
        return None;
    }
    let line = out.stdout.lines().find(|l| l.starts_with(&format!("{study}: ")))?;
    let frac = line.split_whitespace().nth(1)?;
    let (d, t) = frac.split_once('/')?;
    Some((d.parse().ok()?, t.parse().ok()?))
}

/// Writes a file under `dir` and returns its path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write file");
    p
}

/// A fresh temporary directory.
pub fn tmp() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("rigor-e2e-").tempdir().expect("tempdir")
}

/// The path as a `&str` for command lines.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A cluster-in-a-test: a coordinator on a temporary data dir, plus workers started on demand.
/// Fields drop in order: workers, then the coordinator, then the directory they used.
pub struct Cluster {
    pub workers: Vec<Proc>,
    pub coord: Coordinator,
    pub opts: CoordOpts,
    pub dir: tempfile::TempDir,
}

impl Cluster {
    pub fn start(opts: CoordOpts) -> Cluster {
        let dir = tmp();
        let data = dir.path().join("data");
        let coord = Coordinator::start(&data, dir.path(), &opts);
        Cluster { workers: Vec::new(), coord, opts, dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn url(&self) -> String {
        self.coord.url.clone()
    }

    /// Starts a worker; returns its index in `workers`.
    pub fn add_worker(&mut self, opts: WorkerOpts) -> usize {
        let w = spawn_worker(&self.coord.url, self.dir.path(), &opts);
        self.workers.push(w);
        self.workers.len() - 1
    }

    /// Writes a study file into the cluster's directory.
    pub fn study(&self, name: &str, text: &str) -> PathBuf {
        write(self.dir.path(), name, text)
    }

    /// `rigor submit FILE`: returns stdout, asserting exit 0.
    pub fn submit(&self, file: &Path) -> String {
        run(&["submit", s(file), "--coordinator", &self.coord.url]).ok("rigor submit").stdout
    }

    /// `rigor watch NAME` to completion; returns the outcome.
    pub fn watch(&mut self, study: &str) -> Out {
        let out = run(&["watch", study, "--coordinator", &self.coord.url]);
        if out.code.is_none_or(|c| c > 1) {
            for w in &self.workers {
                eprintln!("--- {} stderr:\n{}", w.name, w.stderr());
            }
        }
        out
    }

    pub fn results(&self, study: &str) -> Table {
        results_csv(&self.coord.url, study, self.opts.token.as_deref())
    }

    /// Dumps every process's stderr (for diagnosing a failure).
    pub fn dump(&self) -> String {
        let mut s = format!("--- coordinator stderr:\n{}\n", self.coord.proc.stderr());
        for w in &self.workers {
            s += &format!("--- {} stderr:\n{}\n", w.name, w.stderr());
        }
        s
    }
}

/// Parses `submitted NAME: T jobs (N new, R already stored)` into (T, N, R).
pub fn parse_submitted(stdout: &str) -> (u64, u64, u64) {
    let line = stdout.lines().find(|l| l.starts_with("submitted ")).unwrap_or_else(|| panic!("no `submitted` line in {stdout:?}"));
    let nums: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap())
        .collect();
    // The study name may contain digits: take the last three numbers.
    let n = nums.len();
    assert!(n >= 3, "cannot parse {line:?}");
    (nums[n - 3], nums[n - 2], nums[n - 1])
}

/// Child processes of `pid` (all its threads), from /proc.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return out };
    for t in tasks.flatten() {
        if let Ok(c) = std::fs::read_to_string(t.path().join("children")) {
            out.extend(c.split_whitespace().filter_map(|p| p.parse::<u32>().ok()));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// True while a process with this pid exists and is not a zombie.
pub fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            // The state follows the parenthesised command name.
            let state = stat.rsplit(')').next().and_then(|r| r.split_whitespace().next()).unwrap_or("");
            state != "Z" && state != "X"
        }
        Err(_) => false,
    }
}
