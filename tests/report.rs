//! The report end to end: `rigor run` writes tables, figures and index.html; the page renders in
//! a real headless Chromium; `rigor report` covers a study still running and refuses an unknown one.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

const STUDY: &str = r#"
[study]
name = "rep"
seed = 3
repetitions = 4

[[experiment]]
id = "fast"
kind = "noop"
subjects = ["a", "b"]
params = { work_ms = [0], points = [6] }

[[experiment]]
id = "slow"
kind = "noop"
subjects = ["a", "b"]
params = { work_ms = [1], points = [6] }

[report]
baseline = "fast"

[[report.table]]
kind = "comparison"
metrics = ["value"]

[[report.plot]]
kind = "curve"
series = "trace"
x_label = "step"

[[report.plot]]
kind = "bars"
metric = "value"
"#;

/// Chromium from Debian's packages, if installed (CI installs it).
fn chromium() -> Option<String> {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok_and(|o| o.status.success()))
        .map(String::from)
}

/// Loads the page headless and returns the `data-images` mark its script sets ("decoded/total").
fn rendered_images(browser: &str, page: &Path) -> String {
    let profile = tmp();
    let out = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--virtual-time-budget=10000", "--dump-dom"])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&out.stdout);
    let mark = dom.split("data-images=\"").nth(1).and_then(|s| s.split('"').next());
    mark.unwrap_or_else(|| panic!("the page's load script did not run; chromium said:\n{}", String::from_utf8_lossy(&out.stderr))).to_string()
}

#[test]
fn run_writes_a_report_that_renders_in_a_browser() {
    let dir = tmp();
    let study = write(dir.path(), "rep.toml", STUDY);
    let out = dir.path().join("out");
    run(&["run", s(&study), "--workers", "2", "--out", s(&out)]).ok("rigor run");

    for f in ["comparison-value.tex", "comparison-value.md", "comparison-value.csv"] {
        assert!(out.join("tables").join(f).is_file(), "tables/{f}");
    }
    let tex = std::fs::read_to_string(out.join("tables/comparison-value.tex")).unwrap();
    assert!(tex.contains("\\toprule") && tex.contains("A12"), "{tex}");
    // The table's numbers are the statistics of the exported results.
    let csv = std::fs::read_to_string(out.join("tables/comparison-value.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "a header and one row per subject:\n{csv}");
    for stem in ["curve-trace", "bars-value"] {
        for ext in ["svg", "png"] {
            let p = out.join("plots").join(format!("{stem}.{ext}"));
            assert!(std::fs::metadata(&p).map(|m| m.len() > 1000).unwrap_or(false), "{}", p.display());
        }
    }
    let svg = std::fs::read_to_string(out.join("plots/curve-trace.svg")).unwrap();
    let texts: Vec<&str> = svg.lines().map(str::trim).collect();
    assert!(texts.contains(&"step"), "the x axis label is text in the SVG");
    assert!(texts.iter().any(|t| t.starts_with("fast")), "the legend names the technique");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("Provenance") && html.contains("rep.toml") && html.contains("16 jobs: 16 ok"), "provenance on the page");

    match chromium() {
        Some(browser) => assert_eq!(rendered_images(&browser, &out.join("index.html")), "2/2", "every figure decodes in Chromium"),
        None if std::env::var_os("CI").is_some() => panic!("CI must have Chromium (.ci/run installs it)"),
        None => eprintln!("skipping the browser check: no chromium on this machine (apt-get install chromium)"),
    }
}

#[test]
fn report_covers_a_running_study_and_refuses_an_unknown_one() {
    let c = Cluster::start(CoordOpts::default());
    // No workers: nothing runs, so the report has everything still missing.
    let study = c.study("rep.toml", STUDY);
    c.submit(&study);
    let out = c.root().join("report");
    let r = run(&["report", "rep", "--coordinator", &c.url(), "--out", s(&out)]).ok("rigor report on a running study");
    assert!(r.stderr.contains("16 jobs are not finished yet"), "{}", r.stderr);
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("16 are missing"), "the page says how much is missing");

    let r = run(&["report", "nope", "--coordinator", &c.url(), "--out", s(&out)]);
    let r = r.expect_code(2, "rigor report on an unknown study");
    assert!(r.stderr.contains("no study named `nope`"), "{}", r.stderr);
    let r = run(&["report", "nope", "--data", s(&c.root().join("absent")), "--out", s(&out)]).expect_code(2, "no state dir");
    assert!(r.stderr.contains("no study named `nope`"), "{}", r.stderr);
}
