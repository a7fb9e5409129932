//! `rigor bench rts`: MRTS-BP end to end on a simulated system of the paper's size.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use rigor_rts::evaluate::{mine_files, write_traffic, Case, LogSource, Method};
use rigor_rts::formats::Format;
use rigor_rts::select::Options;
use rigor_rts::simulate::{Profile, System};

use super::bench::peak_rss_mib;
use super::UsageError;

#[derive(Args)]
pub struct RtsBenchArgs {
    /// m-ticket, z-shop, need or joa
    #[arg(long, default_value = "joa")]
    pub profile: String,
    /// Log records of the end-to-end run (default: the profile's; JOA 50,000,000)
    #[arg(long)]
    pub records: Option<u64>,
    /// Records per format for the records/s figures (0 skips them)
    #[arg(long, default_value_t = 2_000_000)]
    pub format_records: u64,
    /// Seed of the simulated system
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where the log files are written (and removed afterwards); JOA's CSV log is about 6 GB
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

/// Resets this process's peak RSS (Linux), so that the next reading is the peak of what follows.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

pub fn rts_bench(a: RtsBenchArgs) -> anyhow::Result<ExitCode> {
    let mut profile = Profile::by_name(&a.profile)
        .ok_or_else(|| UsageError(format!("unknown profile `{}` (known: {})", a.profile, Profile::NAMES.join(", "))))?;
    if let Some(r) = a.records {
        profile.log_records = r;
    }
    let tmp = tempfile::Builder::new().prefix("rigor-bench-rts").tempdir_in(a.dir.clone().unwrap_or_else(std::env::temp_dir))?;
    let pid = std::process::id();
    let start = Instant::now();
    let system = System::generate(&profile, a.seed)?;
    println!(
        "{}: {} services, {} tests, {} versions; system generated in {:.2} s",
        profile.name,
        system.services.len(),
        system.tests.len(),
        system.versions.len(),
        start.elapsed().as_secs_f64()
    );

    if a.format_records > 0 {
        println!("read + mine, {} records of version 1 per format (file in the page cache):", a.format_records);
        for format in Format::ALL {
            let path = tmp.path().join(format!("traces.{}", format.name()));
            write_traffic(&system, 1, a.format_records, format, &path)?;
            let bytes = std::fs::metadata(&path)?.len();
            let start = Instant::now();
            let (supports, reports) = mine_files(std::slice::from_ref(&path), Some(format))?;
            let secs = start.elapsed().as_secs_f64();
            std::fs::remove_file(&path)?;
            anyhow::ensure!(reports[0].malformed_count == 0, "{format}: {} malformed records in generated logs", reports[0].malformed_count);
            println!(
                "  {:<7} {:>7.0} MB  {:>6.2} s  {:>12.0} records/s  ({} transactions)",
                format.name(),
                bytes as f64 / 1e6,
                secs,
                supports.spans as f64 / secs,
                supports.transactions
            );
        }
    }

    println!("end to end: version 2 against {} CSV log records of version 1", profile.log_records);
    let need = profile.log_records.saturating_mul(120);
    let start = Instant::now();
    // Case::simulated writes the log first (not timed), then times reading and mining it.
    reset_peak_rss();
    let case = Case::simulated(&system, 2, profile.log_records, &LogSource::File(Format::Csv, tmp.path().to_path_buf()))
        .map_err(|e| anyhow::anyhow!("{e} (the CSV log needs about {:.1} GB in {}; --dir chooses another place)", need as f64 / 1e9, tmp.path().display()))?;
    let total = start.elapsed().as_secs_f64();
    let outcome = case.run(&Method::MrtsBp(Options::default()));
    let seconds = outcome.metrics.ts_ms / 1e3;
    let peak = peak_rss_mib(pid);
    println!(
        "  log written in {:.1} s; read + mine {:.2} s ({:.0} records/s), propagate + select {:.3} s",
        total - case.mining.as_secs_f64(),
        case.mining.as_secs_f64(),
        case.supports.spans as f64 / case.mining.as_secs_f64(),
        seconds - case.mining.as_secs_f64()
    );
    println!(
        "  selected {} of {} tests (EN {:.1}%), recall {}; peak RSS {:.0} MiB (generation, writing and the pipeline)",
        outcome.metrics.nr,
        outcome.metrics.no,
        100.0 * outcome.metrics.en.unwrap_or(0.0),
        outcome.metrics.recall.map_or("-".into(), |r| format!("{:.1}%", 100.0 * r)),
        peak
    );
    println!("seconds: {seconds:.2}");
    Ok(ExitCode::SUCCESS)
}
