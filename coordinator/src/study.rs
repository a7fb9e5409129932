//! Study files: the TOML a researcher writes, parsed and checked before anything is stored.
//!
//! Every error names the file, the line and column, and the field, so that a 3,000-job study with
//! one typo fails at once with a message that points at the typo.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use rigor_technique::{ParamValue, Params, Registry, SubjectDecl};
use serde::Deserialize;
use toml::Spanned;

/// Defaults that apply when a study file does not say otherwise.
pub const DEFAULT_REPETITIONS: u32 = 1;
pub const DEFAULT_RETRIES: u32 = 2;
pub const DEFAULT_TIMEOUT_S: f64 = 600.0;
pub const DEFAULT_MEMORY_MB: u64 = 4096;

/// A parsed, validated study.
#[derive(Debug, Clone, PartialEq)]
pub struct Study {
    pub name: String,
    pub seed: u64,
    pub description: String,
    pub experiments: Vec<Experiment>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    pub id: String,
    pub kind: String,
    pub subjects: Vec<SubjectDecl>,
    /// The cells of the grid after `exclude` and `include`, in a deterministic order.
    pub cells: Vec<Params>,
    pub repetitions: u32,
    pub retries: u32,
    pub timeout_ms: u64,
    pub memory_mb: u64,
    /// The experiment whose jobs (same subject and repetition) this one reads artifacts from.
    pub needs: Option<String>,
}

/// A problem in a study file, located as precisely as the file allows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct StudyError {
    pub file: String,
    /// 1-based; 0 when the problem has no single place (e.g. an empty study).
    pub line: usize,
    pub column: usize,
    pub field: String,
    pub message: String,
}

impl fmt::Display for StudyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    study: Spanned<RawHeader>,
    #[serde(default, rename = "experiment")]
    experiments: Vec<Spanned<RawExperiment>>,
    /// Read by the analysis crate; kept opaque here.
    #[serde(default)]
    #[allow(dead_code)]
    report: Option<toml::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    name: Spanned<String>,
    #[serde(default)]
    seed: Option<Spanned<i64>>,
    #[serde(default)]
    repetitions: Option<Spanned<i64>>,
    #[serde(default)]
    retries: Option<Spanned<i64>>,
    #[serde(default)]
    description: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExperiment {
    id: Spanned<String>,
    kind: Spanned<String>,
    subjects: Spanned<Vec<Spanned<RawSubject>>>,
    #[serde(default)]
    params: Option<Spanned<BTreeMap<String, Spanned<OneOrMany>>>>,
    #[serde(default)]
    exclude: Vec<Spanned<BTreeMap<String, ParamValue>>>,
    #[serde(default)]
    include: Vec<Spanned<BTreeMap<String, ParamValue>>>,
    #[serde(default)]
    repetitions: Option<Spanned<i64>>,
    #[serde(default)]
    retries: Option<Spanned<i64>>,
    #[serde(default)]
    timeout_s: Option<Spanned<f64>>,
    #[serde(default)]
    memory_mb: Option<Spanned<i64>>,
    #[serde(default)]
    needs: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawSubject {
    Name(String),
    Table {
        name: String,
        #[serde(default)]
        files: BTreeMap<String, String>,
    },
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    Many(Vec<ParamValue>),
    One(ParamValue),
}

/// Turns byte offsets into line and column numbers for error messages.
struct Locator<'a> {
    file: &'a str,
    text: &'a str,
}

impl Locator<'_> {
    fn at(&self, offset: usize, field: impl Into<String>, message: impl Into<String>) -> StudyError {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
        StudyError { file: self.file.to_string(), line, column, field: field.into(), message: message.into() }
    }
    fn span<T>(&self, s: &Spanned<T>, field: impl Into<String>, message: impl Into<String>) -> StudyError {
        self.at(s.span().start, field, message)
    }
}

/// Parses and validates a study file's text. `file` names it in errors; `registry` supplies the
/// techniques that check their own parameters.
pub fn parse(file: &str, text: &str, registry: &Registry) -> Result<Study, StudyError> {
    let loc = Locator { file, text };
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let offset = e.span().map_or(0, |s| s.start);
        let message = e.message().trim().to_string();
        let mut err = loc.at(offset, "", message);
        if e.span().is_none() {
            err.line = 0;
        }
        err
    })?;

    let header = raw.study.get_ref();
    let name = header.name.get_ref().trim().to_string();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
        return Err(loc.span(&header.name, "study.name", "must be non-empty and use only letters, digits, `-`, `_` and `.`"));
    }
    let seed = match &header.seed {
        Some(s) if *s.get_ref() < 0 => return Err(loc.span(s, "study.seed", "must be a non-negative integer")),
        Some(s) => *s.get_ref() as u64,
        None => 0,
    };
    let repetitions = positive(&loc, header.repetitions.as_ref(), "study.repetitions", DEFAULT_REPETITIONS, 1)?;
    let retries = positive(&loc, header.retries.as_ref(), "study.retries", DEFAULT_RETRIES, 0)?;

    if raw.experiments.is_empty() {
        return Err(loc.span(&raw.study, "experiment", "a study needs at least one [[experiment]]"));
    }
    let mut experiments: Vec<Experiment> = Vec::new();
    for (i, raw_exp) in raw.experiments.iter().enumerate() {
        let e = raw_exp.get_ref();
        let id = e.id.get_ref().trim().to_string();
        let at = |field: &str| format!("experiment[{i}].{field}");
        if id.is_empty() || id.contains('/') {
            return Err(loc.span(&e.id, at("id"), "must be non-empty and contain no `/`"));
        }
        if experiments.iter().any(|x| x.id == id) {
            return Err(loc.span(&e.id, at("id"), format!("duplicate experiment id `{id}`")));
        }
        let kind = e.kind.get_ref().trim().to_string();
        let Some(technique) = registry.get(&kind) else {
            let known: Vec<_> = registry.kinds().collect();
            return Err(loc.span(&e.kind, at("kind"), format!("unknown kind `{kind}` (known: {})", known.join(", "))));
        };

        let mut subjects: Vec<SubjectDecl> = Vec::new();
        for s in e.subjects.get_ref() {
            let decl = match s.get_ref() {
                RawSubject::Name(n) => SubjectDecl { name: n.clone(), files: BTreeMap::new() },
                RawSubject::Table { name, files } => SubjectDecl {
                    name: name.clone(),
                    files: files.iter().map(|(k, v)| (k.clone(), PathBuf::from(v))).collect(),
                },
            };
            if decl.name.trim().is_empty() {
                return Err(loc.span(s, at("subjects"), "a subject needs a non-empty name"));
            }
            if subjects.iter().any(|x| x.name == decl.name) {
                return Err(loc.span(s, at("subjects"), format!("duplicate subject `{}`", decl.name)));
            }
            subjects.push(decl);
        }
        if subjects.is_empty() {
            return Err(loc.span(&e.subjects, at("subjects"), "an experiment needs at least one subject"));
        }

        let grid: BTreeMap<String, Vec<ParamValue>> = e
            .params
            .as_ref()
            .map(|p| {
                p.get_ref()
                    .iter()
                    .map(|(k, v)| {
                        let values = match v.get_ref() {
                            OneOrMany::Many(vs) => vs.clone(),
                            OneOrMany::One(x) => vec![x.clone()],
                        };
                        (k.clone(), values)
                    })
                    .collect()
            })
            .unwrap_or_default();
        if let Some(p) = &e.params {
            for (k, v) in p.get_ref() {
                if matches!(v.get_ref(), OneOrMany::Many(vs) if vs.is_empty()) {
                    return Err(loc.span(v, at(&format!("params.{k}")), "an empty list gives no cells"));
                }
            }
        }
        let mut cells = cartesian(&grid);
        for ex in &e.exclude {
            for key in ex.get_ref().keys() {
                if !grid.contains_key(key) {
                    return Err(loc.span(ex, at("exclude"), format!("`{key}` is not a parameter of the grid")));
                }
            }
            cells.retain(|c| !ex.get_ref().iter().all(|(k, v)| c.get(k) == Some(v)));
        }
        for inc in &e.include {
            let cell: Params = inc.get_ref().clone();
            if !cells.contains(&cell) {
                cells.push(cell);
            }
        }
        if cells.is_empty() {
            return Err(loc.span(raw_exp, at("params"), "`exclude` removes every cell of the grid"));
        }
        for s in &subjects {
            for cell in &cells {
                if let Err(v) = technique.validate(s, cell) {
                    let span_at = param_offset(e, &v.field).unwrap_or(e.kind.span().start);
                    let mut msg = v.message.clone();
                    if cells.len() > 1 {
                        msg = format!("{msg} (in cell {})", describe(cell));
                    }
                    return Err(loc.at(span_at, at(&v.field), msg));
                }
            }
        }

        let needs = match &e.needs {
            None => None,
            Some(n) => {
                let target = n.get_ref().trim();
                if !experiments.iter().any(|x| x.id == target) {
                    return Err(loc.span(n, at("needs"), format!("`{target}` is not an experiment declared before this one")));
                }
                Some(target.to_string())
            }
        };
        let timeout_s = e.timeout_s.as_ref().map_or(DEFAULT_TIMEOUT_S, |t| *t.get_ref());
        if let Some(t) = &e.timeout_s {
            if !(timeout_s > 0.0 && timeout_s.is_finite()) {
                return Err(loc.span(t, at("timeout_s"), "must be a positive number of seconds"));
            }
        }
        experiments.push(Experiment {
            id,
            kind,
            subjects,
            cells,
            repetitions: positive(&loc, e.repetitions.as_ref(), &at("repetitions"), repetitions, 1)?,
            retries: positive(&loc, e.retries.as_ref(), &at("retries"), retries, 0)?,
            timeout_ms: (timeout_s * 1000.0).round() as u64,
            memory_mb: positive(&loc, e.memory_mb.as_ref(), &at("memory_mb"), DEFAULT_MEMORY_MB as u32, 0)? as u64,
            needs,
        });
    }
    Ok(Study { name, seed, description: header.description.clone().unwrap_or_default(), experiments })
}

fn positive(loc: &Locator, v: Option<&Spanned<i64>>, field: &str, default: u32, min: i64) -> Result<u32, StudyError> {
    match v {
        None => Ok(default),
        Some(s) if *s.get_ref() < min || *s.get_ref() > u32::MAX as i64 => {
            Err(loc.span(s, field, format!("must be an integer of at least {min}")))
        }
        Some(s) => Ok(*s.get_ref() as u32),
    }
}

/// Where a technique's complaint about `params.X` points: the value of X in the grid, if written there.
fn param_offset(e: &RawExperiment, field: &str) -> Option<usize> {
    let name = field.strip_prefix("params.")?;
    let params = e.params.as_ref()?;
    params.get_ref().get(name).map(|v| v.span().start).or(Some(params.span().start))
}

fn describe(cell: &Params) -> String {
    let parts: Vec<_> = cell.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    format!("{{ {} }}", parts.join(", "))
}

/// All combinations of the grid's values, varying the last parameter (by name) fastest.
pub fn cartesian(grid: &BTreeMap<String, Vec<ParamValue>>) -> Vec<Params> {
    let mut cells = vec![Params::new()];
    for (name, values) in grid {
        cells = cells
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.insert(name.clone(), v.clone());
                    c
                })
            })
            .collect();
    }
    cells
}

impl Study {
    /// Every subject file the study references, relative to the study file, without repeats.
    pub fn subject_files(&self) -> BTreeSet<PathBuf> {
        self.experiments
            .iter()
            .flat_map(|e| e.subjects.iter().flat_map(|s| s.files.values().cloned()))
            .collect()
    }

    /// The number of jobs the study plans.
    pub fn job_count(&self) -> u64 {
        self.experiments
            .iter()
            .map(|e| e.subjects.len() as u64 * e.cells.len() as u64 * e.repetitions as u64)
            .sum()
    }
}

/// Finds where a subject file path appears in the study text, for "missing file" errors.
pub fn locate_file_reference(file: &str, text: &str, path: &Path) -> StudyError {
    let needle = path.to_string_lossy();
    let offset = text.find(needle.as_ref()).unwrap_or(0);
    let loc = Locator { file, text };
    let mut e = loc.at(offset, "subjects.files", format!("subject file `{needle}` does not exist"));
    if offset == 0 {
        e.line = 0;
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_technique::Noop;

    fn registry() -> Registry {
        Registry::new().with(Noop)
    }

    const GOOD: &str = r#"
[study]
name = "quickstart"
seed = 42
repetitions = 5

[[experiment]]
id = "noop-grid"
kind = "noop"
subjects = ["a", "b"]
params = { work_ms = [1, 5], fail_rate = [0.0] }
timeout_s = 30
"#;

    #[test]
    fn parses_the_readme_example() {
        let s = parse("q.toml", GOOD, &registry()).unwrap();
        assert_eq!(s.name, "quickstart");
        assert_eq!(s.seed, 42);
        let e = &s.experiments[0];
        assert_eq!(e.cells.len(), 2);
        assert_eq!(e.repetitions, 5);
        assert_eq!(e.timeout_ms, 30_000);
        assert_eq!(s.job_count(), 2 * 2 * 5);
    }

    #[test]
    fn exclude_and_include_trim_and_add_cells() {
        let text = GOOD.replace(
            "timeout_s = 30",
            "exclude = [{ work_ms = 5 }]\ninclude = [{ work_ms = 9, fail_rate = 0.5 }, { work_ms = 1, fail_rate = 0.0 }]",
        );
        let s = parse("q.toml", &text, &registry()).unwrap();
        let cells = &s.experiments[0].cells;
        assert_eq!(cells.len(), 2, "{cells:?}");
        assert_eq!(cells[1]["work_ms"], ParamValue::Int(9));
    }

    fn err(text: &str) -> StudyError {
        parse("bad.toml", text, &registry()).unwrap_err()
    }

    #[test]
    fn syntax_error_names_line() {
        let e = err("[study]\nname = \"x\"\nseed = = 3\n");
        assert_eq!((e.file.as_str(), e.line), ("bad.toml", 3), "{e}");
    }

    #[test]
    fn unknown_kind_names_field_and_line() {
        let e = err(&GOOD.replace("kind = \"noop\"", "kind = \"nope\""));
        assert_eq!(e.field, "experiment[0].kind");
        assert_eq!(e.line, 9);
        assert!(e.message.contains("unknown kind `nope`"), "{e}");
    }

    #[test]
    fn ill_typed_parameter_names_field_and_line() {
        let e = err(&GOOD.replace("work_ms = [1, 5]", "work_ms = [1, \"slow\"]"));
        assert_eq!(e.field, "experiment[0].params.work_ms");
        assert_eq!(e.line, 11);
        assert!(e.message.contains("expected an integer"), "{e}");
    }

    #[test]
    fn unknown_parameter_and_field_are_rejected() {
        let e = err(&GOOD.replace("fail_rate", "fial_rate"));
        assert_eq!(e.field, "experiment[0].params.fial_rate");
        let e = err(&GOOD.replace("timeout_s", "timeout_secs"));
        assert!(e.message.contains("unknown field `timeout_secs`"), "{e}");
        assert_eq!(e.line, 12);
    }

    #[test]
    fn duplicate_experiment_ids_are_rejected() {
        let second = "\n[[experiment]]\nid = \"noop-grid\"\nkind = \"noop\"\nsubjects = [\"c\"]\n";
        let e = err(&format!("{GOOD}{second}"));
        assert_eq!(e.field, "experiment[1].id");
        assert!(e.message.contains("duplicate"), "{e}");
        assert_eq!(e.line, 15);
    }

    #[test]
    fn needs_must_name_an_earlier_experiment() {
        let e = err(&GOOD.replace("timeout_s = 30", "needs = \"later\""));
        assert_eq!(e.field, "experiment[0].needs");
    }

    #[test]
    fn subject_tables_carry_files() {
        let text = GOOD.replace(
            "subjects = [\"a\", \"b\"]",
            "subjects = [\"a\", { name = \"shop\", files = { spec = \"specs/shop.yml\" } }]",
        );
        let s = parse("q.toml", &text, &registry()).unwrap();
        assert_eq!(s.subject_files().into_iter().collect::<Vec<_>>(), vec![PathBuf::from("specs/shop.yml")]);
    }

    #[test]
    fn display_is_file_line_column_field_message() {
        let e = err(&GOOD.replace("kind = \"noop\"", "kind = \"nope\""));
        assert!(e.to_string().starts_with("bad.toml:9:8: experiment[0].kind: unknown kind"), "{e}");
    }

    proptest::proptest! {
        /// Arbitrary text never panics the parser.
        #[test]
        fn never_panics(text in ".{0,400}") {
            let _ = parse("f.toml", &text, &registry());
        }

        #[test]
        fn cartesian_size_is_product(sizes in proptest::collection::vec(1usize..4, 0..5)) {
            let grid: BTreeMap<String, Vec<ParamValue>> = sizes.iter().enumerate()
                .map(|(i, n)| (format!("p{i}"), (0..*n as i64).map(ParamValue::Int).collect()))
                .collect();
            let cells = cartesian(&grid);
            proptest::prop_assert_eq!(cells.len(), sizes.iter().product::<usize>());
            let unique: BTreeSet<String> = cells.iter().map(describe).collect();
            proptest::prop_assert_eq!(unique.len(), cells.len());
        }
    }
}
