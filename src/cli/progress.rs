//! Progress display: a bar per experiment on a terminal, a summary line every few seconds otherwise.

use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use rigor_proto::StudyStatus;

pub struct Progress {
    multi: MultiProgress,
    bars: Vec<ProgressBar>,
    tty: bool,
    last_line: Option<Instant>,
}

impl Progress {
    pub fn new() -> Self {
        let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
        let target = if tty { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        Progress { multi: MultiProgress::with_draw_target(target), bars: Vec::new(), tty, last_line: None }
    }

    pub fn update(&mut self, s: &StudyStatus) {
        if self.bars.is_empty() {
            let style = ProgressStyle::with_template("{prefix:>16} [{bar:30}] {pos}/{len} {msg} ETA {eta}")
                .expect("valid template")
                .progress_chars("=> ");
            for e in &s.experiments {
                let bar = self.multi.add(ProgressBar::new(e.total));
                bar.set_style(style.clone());
                bar.set_prefix(e.experiment.clone());
                self.bars.push(bar);
            }
        }
        for (bar, e) in self.bars.iter().zip(&s.experiments) {
            bar.set_length(e.total);
            bar.set_position(e.done + e.failed + e.cancelled);
            bar.set_message(format!("running {} failed {}", e.running, e.failed));
        }
        if !self.tty && self.last_line.is_none_or(|t| t.elapsed() >= Duration::from_secs(10)) {
            self.last_line = Some(Instant::now());
            eprintln!("{}", summary_line(s));
        }
    }

    pub fn finish(&self) {
        for b in &self.bars {
            b.finish();
        }
    }
}

/// `study: 12/40 done, 1 failed, 3 running, 24 queued`
pub fn summary_line(s: &StudyStatus) -> String {
    let sum = |f: fn(&rigor_proto::ExperimentStatus) -> u64| s.experiments.iter().map(f).sum::<u64>();
    format!(
        "{}: {}/{} done, {} failed, {} cancelled, {} running, {} queued, {} waiting on inputs; {} workers",
        s.study,
        sum(|e| e.done),
        sum(|e| e.total),
        sum(|e| e.failed),
        sum(|e| e.cancelled),
        sum(|e| e.running),
        sum(|e| e.queued),
        sum(|e| e.waiting),
        s.workers
    )
}
