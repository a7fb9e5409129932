//! How relations are written: the natural-language template (MET 2017), the two CSV files of the
//! original tool, byte for byte, and JSON.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::generate::Mr;
use crate::sut::{Mode, ParamId, Sut, Test};
use crate::transform::{MrType, TBD};

/// What changes from one test to the next; each list sorted by parameter name in Java `String`
/// order (UTF-16 code units).
#[derive(Debug, Default)]
pub struct Diff<'a> {
    pub added: Vec<(ParamId, &'a str)>,
    pub removed: Vec<(ParamId, &'a str)>,
    pub changed: Vec<(ParamId, &'a str)>,
}

impl Diff<'_> {
    pub fn distance(&self) -> usize {
        self.added.len() + self.removed.len() + self.changed.len()
    }
}

pub fn diff<'a>(sut: &Sut, from: &'a Test, to: &'a Test) -> Diff<'a> {
    let mut d = Diff::default();
    for (p, v) in &from.params {
        if !to.has(*p) {
            d.removed.push((*p, v));
        }
    }
    for (p, v) in &to.params {
        match from.get(*p) {
            None => d.added.push((*p, v)),
            Some(old) if old != v => d.changed.push((*p, v)),
            Some(_) => {}
        }
    }
    for list in [&mut d.added, &mut d.removed, &mut d.changed] {
        list.sort_by(|a, b| java_cmp(sut.name(a.0), sut.name(b.0)));
    }
    d
}

fn java_cmp(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// `[a:1, b]`: names, with values except `<TBD>`.
fn with_values(sut: &Sut, ps: &[(ParamId, &str)]) -> String {
    let items: Vec<String> = ps
        .iter()
        .map(|(p, v)| match *v {
            TBD => sut.name(*p).to_string(),
            v => format!("{}:{v}", sut.name(*p)),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

fn names(sut: &Sut, ps: &[(ParamId, &str)]) -> String {
    let items: Vec<&str> = ps.iter().map(|(p, _)| sut.name(*p)).collect();
    format!("[{}]", items.join(", "))
}

/// The source parameters; values only for those the first follow-up changes.
pub fn source_params(sut: &Sut, mr: &Mr) -> String {
    let first = &mr.follow_ups[0];
    let items: Vec<String> = mr
        .source
        .params
        .iter()
        .map(|(p, v)| match first.get(*p) {
            Some(f) if f != v => format!("{}:{v}", sut.name(*p)),
            _ => sut.name(*p).to_string(),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

pub fn then_line(ty: MrType) -> &'static str {
    match ty {
        MrType::ConjunctiveContract | MrType::DisjunctiveExtend => {
            "the follow-up output(s) should be a (non-strict) superset of the source test output."
        }
        MrType::ConjunctiveExtend | MrType::DisjunctiveContract => {
            "the follow-up output(s) should be a (non-strict) subset of the source test output."
        }
        MrType::ShufflingContract | MrType::ShufflingExtend => {
            "the source and the follow-up output(s) should have the same items, regardless of their order."
        }
        MrType::DisjointExtend => "the source and the follow-up output(s) should be disjoint.",
        MrType::CompleteExtend => {
            "the union of the follow-up outputs should have the same items as the source output, regardless of their order."
        }
        MrType::EquivalenceExtend => {
            "the source and the follow-up output(s) should have the same items in the same order."
        }
    }
}

/// Each test paired with the one before it (the source first).
fn steps(mr: &Mr) -> impl Iterator<Item = (&Test, &Test)> {
    std::iter::once(&mr.source)
        .chain(mr.follow_ups.iter())
        .zip(mr.follow_ups.iter())
}

/// The relation without id and type: the if-line, one line per follow-up (each relative to the
/// test before it), the then-line. Two relations with the same body are duplicates.
pub fn body(sut: &Sut, mr: &Mr) -> String {
    let mut s = format!(
        "if a source test case is run with the inputs {}\n",
        source_params(sut, mr)
    );
    for (prev, fu) in steps(mr) {
        let d = diff(sut, prev, fu);
        let lead = "and a follow-up test case is constructed by";
        if !d.added.is_empty() {
            let _ = write!(s, "{lead} adding the following parameters {}", with_values(sut, &d.added));
        }
        if !d.removed.is_empty() {
            let _ = write!(s, "{lead} removing the following parameters {}", names(sut, &d.removed));
        }
        if !d.changed.is_empty() {
            let _ = write!(
                s,
                "{lead} changing the value of the following parameters {}",
                with_values(sut, &d.changed)
            );
        }
        s.push('\n');
    }
    s.push_str("then ");
    s.push_str(then_line(mr.ty));
    s.push('\n');
    s
}

/// A duplicate key that ignores the order of the follow-ups: the if-line, the then-line and the
/// sorted follow-up lines (each step's change). Chains that remove `a` then `b`, or `b` then `a`,
/// test the same thing.
pub fn unordered_key(sut: &Sut, mr: &Mr) -> String {
    let text = body(sut, mr);
    let mut lines: Vec<&str> = text.lines().collect();
    let then = lines.pop().unwrap_or_default();
    let mut steps = lines.split_off(1.min(lines.len()));
    steps.sort_unstable();
    format!("{}\n{}\n{then}", lines.join("\n"), steps.join("\n"))
}

pub fn local_distance(sut: &Sut, mr: &Mr) -> usize {
    steps(mr).map(|(a, b)| diff(sut, a, b).distance()).sum()
}

/// `MRs-random-<i>.txt`: every relation in the natural-language template, blank line after each.
pub fn text(sut: &Sut, domain: &str, mrs: &[Mr]) -> String {
    let mut s = String::new();
    for mr in mrs {
        let _ = write!(
            s,
            "In the domain of {domain}\nthe following metamorphic relation should hold\n{} ({}):\n{}\n",
            mr.id,
            mr.ty.name(),
            body(sut, mr)
        );
    }
    s
}

/// `MRs-random-<i>.csv`.
pub fn csv(sut: &Sut, mrs: &[Mr]) -> String {
    let mut w = JavaCsv::default();
    w.record(["MR", "Type", "STC", "FUTCs", "LocalDistance"]);
    for mr in mrs {
        w.record([
            mr.id.as_str(),
            mr.ty.name(),
            &mr.source.id,
            &mr.follow_ups.len().to_string(),
            &local_distance(sut, mr).to_string(),
        ]);
    }
    w.out
}

/// `MRs-random-extended-<i>.csv`: one column per follow-up up to `max_futcs`, each the change
/// from the test before it.
pub fn extended_csv(sut: &Sut, mrs: &[Mr], max_futcs: usize) -> String {
    let mut w = JavaCsv::default();
    let mut header: Vec<String> = [
        "MR",
        "type",
        "STC_id",
        "STC_n_parameters",
        "number_of_FUTCs",
        "local_distance",
        "STC",
    ]
    .map(String::from)
    .to_vec();
    header.extend((1..=max_futcs).map(|i| format!("FUTC_{i}")));
    w.record(&header);
    for mr in mrs {
        let mut row = vec![
            mr.id.clone(),
            mr.ty.name().to_string(),
            mr.source.id.clone(),
            mr.source.params.len().to_string(),
            mr.follow_ups.len().to_string(),
            local_distance(sut, mr).to_string(),
            source_params(sut, mr),
        ];
        let mut cells: Vec<String> = steps(mr)
            .map(|(prev, fu)| {
                let d = diff(sut, prev, fu);
                match mr.ty {
                    MrType::ConjunctiveExtend
                    | MrType::DisjunctiveExtend
                    | MrType::EquivalenceExtend => with_values(sut, &d.added),
                    MrType::ConjunctiveContract
                    | MrType::DisjunctiveContract
                    | MrType::ShufflingContract => names(sut, &d.removed),
                    MrType::CompleteExtend | MrType::ShufflingExtend if d.changed.is_empty() => {
                        with_values(sut, &d.added)
                    }
                    _ => with_values(sut, &d.changed),
                }
            })
            .collect();
        cells.resize(max_futcs.max(cells.len()), "[]".to_string());
        cells.truncate(max_futcs);
        row.extend(cells);
        w.record(&row);
    }
    w.out
}

/// Writes records as the javacsv `CsvWriter` the original uses: `;` between cells, `\n` after
/// records, cells trimmed, quoted (with `"` doubled) when they hold `"`, `;` or a line break, or
/// when the first cell is empty or starts with `#`.
#[derive(Default)]
struct JavaCsv {
    out: String,
}

impl JavaCsv {
    fn record<S: AsRef<str>>(&mut self, cells: impl IntoIterator<Item = S>) {
        for (i, cell) in cells.into_iter().enumerate() {
            let first = i == 0;
            if !first {
                self.out.push(';');
            }
            let c = cell.as_ref().trim_matches(|ch: char| ch <= ' ');
            let quote = c.contains(['"', ';', '\n', '\r'])
                || (first && (c.is_empty() || c.starts_with('#')));
            if quote {
                self.out.push('"');
                self.out.push_str(&c.replace('"', "\"\""));
                self.out.push('"');
            } else {
                self.out.push_str(c);
            }
        }
        self.out.push('\n');
    }
}

/// One relation in the JSON output of native mode (and the input of execution).
#[derive(Debug, Serialize, Deserialize)]
pub struct JsonMr {
    pub id: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub relation: String,
    pub source_id: String,
    pub source: Vec<(String, String)>,
    pub follow_ups: Vec<Vec<(String, String)>>,
    pub local_distance: usize,
    pub text: String,
}

pub fn json(sut: &Sut, mrs: &[Mr]) -> String {
    let pairs = |t: &Test| -> Vec<(String, String)> {
        t.params.iter().map(|(p, v)| (sut.name(*p).to_string(), v.clone())).collect()
    };
    let items: Vec<JsonMr> = mrs
        .iter()
        .map(|mr| JsonMr {
            id: mr.id.clone(),
            ty: mr.ty.name().to_string(),
            relation: mr.ty.relation().to_string(),
            source_id: mr.source.id.clone(),
            source: pairs(&mr.source),
            follow_ups: mr.follow_ups.iter().map(pairs).collect(),
            local_distance: local_distance(sut, mr),
            text: body(sut, mr),
        })
        .collect();
    serde_json::to_string_pretty(&items).expect("plain data serializes")
}

/// Reads relations written by [`json`] for the same feature; errors name the relation and field.
pub fn read_json(sut: &Sut, text: &str) -> Result<Vec<Mr>, String> {
    let items: Vec<JsonMr> = serde_json::from_str(text).map_err(|e| e.to_string())?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, j)| {
            let at = |field: &str| format!("relation {i} ({}): {field}", j.id);
            let ty = MrType::from_name(&j.ty).ok_or_else(|| format!("{}: unknown type {:?}", at("type"), j.ty))?;
            let test = |id: String, ps: Vec<(String, String)>, field: &str| -> Result<Test, String> {
                let params = ps
                    .into_iter()
                    .map(|(n, v)| {
                        sut.param(&n)
                            .map(|p| (p, v))
                            .ok_or_else(|| format!("{}: {n:?} is not a parameter of {}", at(field), sut.feature))
                    })
                    .collect::<Result<_, _>>()?;
                Ok(Test { id, params })
            };
            let source = test(j.source_id.clone(), j.source, "source")?;
            if j.follow_ups.is_empty() {
                return Err(format!("{}: empty", at("follow_ups")));
            }
            let follow_ups = j
                .follow_ups
                .into_iter()
                .map(|f| test(j.source_id.clone(), f, "follow_ups"))
                .collect::<Result<_, _>>()?;
            Ok(Mr { id: j.id, ty, source, follow_ups })
        })
        .collect()
}

/// The files of run `i` (1-based), named as the original names them, plus JSON in native mode.
/// The original writes nothing for a run without relations; so does compat mode.
pub fn files(
    sut: &Sut,
    domain: &str,
    run: usize,
    mrs: &[Mr],
    max_futcs: usize,
) -> Vec<(String, String)> {
    if mrs.is_empty() && sut.mode == Mode::Compat {
        return Vec::new();
    }
    let mut out = vec![
        (format!("MRs-random-{run}.csv"), csv(sut, mrs)),
        (format!("MRs-random-extended-{run}.csv"), extended_csv(sut, mrs, max_futcs)),
        (format!("MRs-random-{run}.txt"), text(sut, domain, mrs)),
    ];
    if sut.mode == Mode::Native {
        out.push((format!("MRs-random-{run}.json"), json(sut, mrs)));
    }
    out
}
