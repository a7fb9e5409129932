//! The self-contained report page: figures embedded as data URIs, tables inline, provenance at
//! the end. A small script marks the page once every image has decoded, so a headless browser
//! test can check that each one renders.

use std::fmt::Write;

use base64::Engine;

use super::build::NamedFigure;
use crate::frame::JobRecord;
use crate::table::Table;

/// Where the results came from, for the page's provenance section.
#[derive(Debug, Clone, Default)]
pub struct Provenance {
    pub study: String,
    pub description: String,
    pub study_path: String,
    pub study_toml: String,
    pub rigor_version: String,
    pub git_commit: String,
    /// Jobs of the plan not finished yet (the report then covers only what is).
    pub unfinished: u64,
    pub generated_unix_ms: i64,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `YYYY-MM-DD HH:MM:SS UTC` from Unix milliseconds (civil-from-days, proleptic Gregorian).
pub fn utc(ms: i64) -> String {
    if ms <= 0 {
        return "–".into();
    }
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem % 3600 / 60, rem % 60)
}

const STYLE: &str = "body{font-family:'DejaVu Sans',Arial,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
h1{margin-bottom:0}table{border-collapse:collapse;margin:1em 0;font-size:14px}caption{text-align:left;font-weight:bold;padding:4px 0}\
th,td{padding:3px 8px;border-bottom:1px solid #ddd}thead th{border-bottom:2px solid #444}td.r,th.r{text-align:right}td.l,th.l{text-align:left}\
.note{font-size:12px;color:#555}figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #eee}pre{background:#f6f6f6;padding:8px;overflow:auto;font-size:12px}\
.warn{background:#fff4d6;padding:8px;border-left:4px solid #e69f00}nav a{margin-right:1em}";

/// Sets `data-images` on <body> to "<decoded>/<total>" once all images have loaded or failed.
const CHECK: &str = "<script>window.addEventListener('load',function(){var i=document.images,ok=0;\
for(var k=0;k<i.length;k++){if(i[k].complete&&i[k].naturalWidth>0)ok++;}\
document.body.setAttribute('data-images',ok+'/'+i.length);});</script>";

pub fn page(p: &Provenance, tables: &[Table], figures: &[NamedFigure], svgs: &[String], records: &[JobRecord]) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} — rigor report</title><style>{STYLE}</style>{CHECK}</head><body>\n",
        esc(&p.study)
    );
    let _ = writeln!(s, "<h1>{}</h1>", esc(&p.study));
    if !p.description.is_empty() {
        let _ = writeln!(s, "<p>{}</p>", esc(&p.description));
    }
    let ok = records.iter().filter(|r| r.status == "ok").count();
    let failed: Vec<&JobRecord> = records.iter().filter(|r| !matches!(r.status.as_str(), "ok" | "queued" | "running" | "waiting")).collect();
    let _ = writeln!(s, "<p>{} jobs: {ok} ok, {} failed, {} unfinished.</p>", records.len(), failed.len(), p.unfinished);
    if p.unfinished > 0 {
        let _ = writeln!(
            s,
            "<p class=\"warn\">The study is still running: this report covers the {ok} finished jobs; {} are missing.</p>",
            p.unfinished
        );
    }
    s.push_str("<nav><a href=\"#tables\">Tables</a><a href=\"#figures\">Figures</a><a href=\"#provenance\">Provenance</a></nav>\n");
    s.push_str("<h2 id=\"tables\">Tables</h2>\n");
    if tables.is_empty() {
        s.push_str("<p>No metrics to tabulate.</p>\n");
    }
    for t in tables {
        s.push_str(&t.to_html());
        let _ = writeln!(s, "<p class=\"note\">Also as tables/{0}.tex, tables/{0}.md, tables/{0}.csv</p>", esc(&t.name));
    }
    s.push_str("<h2 id=\"figures\">Figures</h2>\n");
    if figures.is_empty() {
        s.push_str("<p>No metrics or series to plot.</p>\n");
    }
    for (f, svg) in figures.iter().zip(svgs) {
        let data = base64::engine::general_purpose::STANDARD.encode(svg.as_bytes());
        let _ = writeln!(
            s,
            "<figure id=\"{0}\"><img alt=\"{1}\" src=\"data:image/svg+xml;base64,{data}\"><figcaption>{1} (plots/{0}.svg, plots/{0}.png)</figcaption></figure>",
            esc(&f.name),
            esc(&f.caption)
        );
    }
    s.push_str("<h2 id=\"provenance\">Provenance</h2>\n<table>\n");
    let workers: std::collections::BTreeSet<String> = records
        .iter()
        .filter(|r| !r.provenance.worker.is_empty())
        .map(|r| format!("{} on {} ({})", r.provenance.worker, r.provenance.host, r.provenance.cpu_model))
        .collect();
    let started = records.iter().map(|r| r.provenance.started_unix_ms).filter(|t| *t > 0).min().unwrap_or(0);
    let finished = records.iter().map(|r| r.provenance.finished_unix_ms).max().unwrap_or(0);
    let versions: std::collections::BTreeSet<String> = records
        .iter()
        .filter(|r| !r.provenance.rigor_version.is_empty())
        .map(|r| format!("{} ({})", r.provenance.rigor_version, r.provenance.git_commit))
        .collect();
    let rows = [
        ("study file", p.study_path.clone()),
        ("report by", format!("rigor {} ({})", p.rigor_version, p.git_commit)),
        ("jobs ran with", versions.into_iter().collect::<Vec<_>>().join(", ")),
        ("workers", workers.into_iter().collect::<Vec<_>>().join("; ")),
        ("first job started", utc(started)),
        ("last job finished", utc(finished)),
        ("report generated", utc(p.generated_unix_ms)),
    ];
    for (k, v) in rows {
        let _ = writeln!(s, "<tr><th class=\"l\">{}</th><td class=\"l\">{}</td></tr>", esc(k), esc(&v));
    }
    s.push_str("</table>\n");
    if !failed.is_empty() {
        s.push_str("<h3>Failed jobs</h3>\n<table><thead><tr><th class=\"l\">experiment</th><th class=\"l\">subject</th><th class=\"r\">repetition</th><th class=\"l\">status</th><th class=\"r\">attempts</th><th class=\"l\">error</th></tr></thead><tbody>\n");
        for r in failed {
            let err: String = r.error.chars().take(300).collect();
            let _ = writeln!(
                s,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"r\">{}</td><td class=\"l\">{}</td><td class=\"r\">{}</td><td class=\"l\">{}</td></tr>",
                esc(&r.experiment),
                esc(&r.subject),
                r.repetition,
                esc(&r.status),
                r.attempts,
                esc(&err)
            );
        }
        s.push_str("</tbody></table>\n");
    }
    let _ = writeln!(s, "<h3>Study file</h3>\n<pre>{}</pre>", esc(&p.study_toml));
    s.push_str("</body></html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates_match_known_instants() {
        assert_eq!(utc(0), "–");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_796_047_135_650), "2026-11-30 13:58:55 UTC");
    }

    #[test]
    fn page_embeds_figures_and_warns_when_unfinished() {
        let p = Provenance { study: "s<1>".into(), unfinished: 3, study_toml: "[study]".into(), ..Default::default() };
        let html = page(&p, &[], &[], &[], &[]);
        assert!(html.contains("s&lt;1&gt;") && html.contains("3 are missing") && html.contains("data-images"));
    }
}
