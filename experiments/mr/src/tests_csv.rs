//! Source tests (`testCases.csv`): `;`-separated, a header row, column 0 the test id, the other
//! columns parameters of the feature; an empty cell means the parameter is absent.

use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::spec::Feature;

/// One source test: its id and its present parameters in column order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceTest {
    pub id: String,
    pub values: Vec<(String, String)>,
}

impl SourceTest {
    /// The value of a parameter, `None` when absent.
    pub fn get(&self, param: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == param)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Error)]
pub enum TestsError {
    #[error("{file}: cannot read: {source}", file = .file.display())]
    Io {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("{file}: line {line}: {source}", file = .file.display(), line = opt(*.line))]
    Csv {
        file: PathBuf,
        line: Option<u64>,
        source: csv::Error,
    },
    #[error("{file}: no header row", file = .file.display())]
    NoHeader { file: PathBuf },
    #[error("{file}: column {column} ({name:?}) is not a parameter of feature {feature:?}", file = .file.display())]
    UnknownColumn {
        file: PathBuf,
        column: usize,
        name: String,
        feature: String,
    },
    #[error("{file}: column {column} repeats parameter {name:?}", file = .file.display())]
    DuplicateColumn {
        file: PathBuf,
        column: usize,
        name: String,
    },
    #[error("{file}: line {line}: empty test id", file = .file.display())]
    EmptyId { file: PathBuf, line: u64 },
    #[error("{file}: line {line}: duplicate test id {id:?}", file = .file.display())]
    DuplicateId {
        file: PathBuf,
        line: u64,
        id: String,
    },
}

fn opt(l: Option<u64>) -> String {
    l.map_or_else(|| "?".into(), |l| l.to_string())
}

/// Reads a tests file for `feature`.
pub fn read_path(path: impl AsRef<Path>, feature: &Feature) -> Result<Vec<SourceTest>, TestsError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| TestsError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    parse(&text, path, feature)
}

/// Parses tests text for `feature`; `file` only names it in errors. Tests come back in file order.
pub fn parse(
    text: &str,
    file: impl AsRef<Path>,
    feature: &Feature,
) -> Result<Vec<SourceTest>, TestsError> {
    let file = file.as_ref().to_path_buf();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let csv_err = |source: csv::Error, file: &PathBuf| {
        let line = source.position().map(|p| p.line());
        TestsError::Csv {
            file: file.clone(),
            line,
            source,
        }
    };
    let mut records = rdr.records();
    let header = match records.next() {
        None => return Err(TestsError::NoHeader { file }),
        Some(r) => r.map_err(|e| csv_err(e, &file))?,
    };
    let mut columns: Vec<String> = Vec::new();
    for (i, name) in header.iter().enumerate().skip(1) {
        let name = name.trim();
        if feature.parameter(name).is_none() {
            return Err(TestsError::UnknownColumn {
                file,
                column: i + 1,
                name: name.into(),
                feature: feature.id.clone(),
            });
        }
        if columns.iter().any(|c| c == name) {
            return Err(TestsError::DuplicateColumn {
                file,
                column: i + 1,
                name: name.into(),
            });
        }
        columns.push(name.to_string());
    }
    let mut tests: Vec<SourceTest> = Vec::new();
    for rec in records {
        let rec = rec.map_err(|e| csv_err(e, &file))?;
        let line = rec.position().map_or(0, |p| p.line());
        if rec.iter().all(|c| c.trim().is_empty()) {
            continue; // blank line
        }
        if rec.len() > columns.len() + 1
            && rec
                .iter()
                .skip(columns.len() + 1)
                .any(|c| !c.trim().is_empty())
        {
            let source = csv::Error::from(std::io::Error::other(format!(
                "{} cells where the header has {}",
                rec.len(),
                columns.len() + 1
            )));
            return Err(TestsError::Csv {
                file,
                line: Some(line),
                source,
            });
        }
        let id = rec.get(0).unwrap_or("").trim().to_string();
        if id.is_empty() {
            return Err(TestsError::EmptyId { file, line });
        }
        if tests.iter().any(|t| t.id == id) {
            return Err(TestsError::DuplicateId { file, line, id });
        }
        let values = columns
            .iter()
            .enumerate()
            .filter_map(|(i, name)| {
                // Trimmed, as the original's CSV reader does.
                let v = rec.get(i + 1).unwrap_or("").trim();
                (!v.is_empty()).then(|| (name.clone(), v.to_string()))
            })
            .collect();
        tests.push(SourceTest { id, values });
    }
    Ok(tests)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Spec;
    use proptest::prelude::*;

    fn feature() -> Feature {
        let s = Spec::parse(
            "features:\n- id: f\n  parameters: [{name: a}, {name: b}, {name: c}]\n",
            "s.yml",
        )
        .unwrap();
        s.features[0].clone()
    }

    #[test]
    fn reads_tests_in_order_with_absent_cells() {
        let t = parse("id;c;a\nT2;x;\nT1;;y z\n\nT3;1;2\n", "t.csv", &feature()).unwrap();
        let ids: Vec<_> = t.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["T2", "T1", "T3"]);
        assert_eq!(t[0].values, [("c".to_string(), "x".to_string())]);
        assert_eq!(t[1].values, [("a".to_string(), "y z".to_string())]);
        assert_eq!(
            t[2].values,
            [("c".into(), "1".into()), ("a".into(), "2".into())]
        );
        assert_eq!(t[2].get("a"), Some("2"));
        assert_eq!(t[2].get("b"), None);
    }

    #[test]
    fn short_rows_mean_absent() {
        let t = parse("id;a;b\nT1;x\n", "t.csv", &feature()).unwrap();
        assert_eq!(t[0].values, [("a".to_string(), "x".to_string())]);
    }

    #[test]
    fn errors() {
        let f = feature();
        let e = parse("id;a;zz\n", "t.csv", &f).unwrap_err();
        assert!(
            matches!(&e, TestsError::UnknownColumn { column: 3, name, .. } if name == "zz"),
            "{e:?}"
        );
        assert!(e.to_string().contains("column 3 (\"zz\")"), "{e}");
        assert!(matches!(
            parse("", "t.csv", &f),
            Err(TestsError::NoHeader { .. })
        ));
        assert!(matches!(
            parse("id;a;a\n", "t.csv", &f),
            Err(TestsError::DuplicateColumn { .. })
        ));
        assert!(matches!(
            parse("id;a\n;x\n", "t.csv", &f),
            Err(TestsError::EmptyId { line: 2, .. })
        ));
        assert!(matches!(
            parse("id;a\nT;x\nT;y\n", "t.csv", &f),
            Err(TestsError::DuplicateId { line: 3, .. })
        ));
        assert!(matches!(
            parse("id;a\nT;x;y\n", "t.csv", &f),
            Err(TestsError::Csv { line: Some(2), .. })
        ));
    }

    proptest! {
        #[test]
        fn never_panics(s in "[abcid;T\n\"x ]{0,60}") {
            let _ = parse(&s, "t.csv", &feature());
        }
    }
}
