//! Writing test suites as CSV or JSON, and reading a CSV suite back to check it later.
//!
//! A suite is a list of tests, each a value index per parameter. CSV has a header row of
//! parameter names and one row per test, values as written in the model, fields quoted per
//! RFC 4180 when needed.

use std::path::Path;

use serde_json::{Map, Value};

use crate::model::Model;
use crate::parse::{find_value, ParseError, Source};

/// The text of value `v` of parameter `p`; out-of-range indices show as `?<index>` rather than
/// panicking.
fn value(model: &Model, p: usize, v: usize) -> String {
    model.params.get(p).and_then(|param| param.values.get(v)).cloned().unwrap_or_else(|| format!("?{v}"))
}

/// The suite as CSV with separator `sep`, lines ending in `\n`.
pub fn to_csv(model: &Model, suite: &[Vec<usize>], sep: char) -> String {
    let mut out = String::new();
    let names: Vec<&str> = model.params.iter().map(|p| p.name.as_str()).collect();
    row(&mut out, names.iter().copied(), sep);
    for test in suite {
        let values: Vec<String> = test.iter().enumerate().map(|(p, &v)| value(model, p, v)).collect();
        row(&mut out, values.iter().map(String::as_str), sep);
    }
    out
}

fn row<'a>(out: &mut String, fields: impl ExactSizeIterator<Item = &'a str>, sep: char) {
    let single = fields.len() == 1;
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(sep);
        }
        // A lone empty field would be a blank line, which readers skip.
        if f.contains([sep, '"', '\n', '\r']) || (single && f.is_empty()) {
            out.push('"');
            out.push_str(&f.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(f);
        }
    }
    out.push('\n');
}

/// The suite as a JSON array of objects, parameter name → value, in parameter order.
pub fn to_json(model: &Model, suite: &[Vec<usize>]) -> String {
    let tests: Vec<Value> = suite
        .iter()
        .map(|test| {
            let mut obj = Map::new();
            for (p, &v) in test.iter().enumerate() {
                let name = model.params.get(p).map_or_else(|| format!("?{p}"), |param| param.name.clone());
                obj.insert(name, Value::String(value(model, p, v)));
            }
            Value::Object(obj)
        })
        .collect();
    serde_json::to_string_pretty(&Value::Array(tests)).unwrap_or_default()
}

/// Reads a CSV suite (separator `,`, `;`, tab or `|`, guessed from the header). The header must
/// name each of the model's parameters once, in any order.
pub fn read_csv(model: &Model, text: &str) -> Result<Vec<Vec<usize>>, ParseError> {
    read_csv_from(model, text, Path::new("<csv>"), None)
}

/// [`read_csv`] with the file name for errors and, optionally, the separator.
pub fn read_csv_from(model: &Model, text: &str, file: &Path, sep: Option<char>) -> Result<Vec<Vec<usize>>, ParseError> {
    let src = Source::new(text, file);
    let names: Vec<&str> = model.params.iter().map(|p| p.name.as_str()).collect();
    let sep = sep.unwrap_or_else(|| guess_separator(text, &names));
    let mut records = records(&src, sep)?.into_iter();
    let Some(header) = records.next() else {
        return Err(src.error(0, "empty CSV: expected a header row of parameter names"));
    };
    // Column → parameter.
    let mut cols = Vec::new();
    for f in &header.fields {
        match model.param(&f.text) {
            Some(p) if cols.contains(&p) => return Err(src.error(f.at, format!("column `{}` is repeated", f.text))),
            Some(p) => cols.push(p),
            None => return Err(src.error(f.at, format!("unknown parameter `{}` in the header", f.text))),
        }
    }
    if let Some(missing) = (0..model.params.len()).find(|p| !cols.contains(p)) {
        return Err(src.error(header.at, format!("the header has no column for parameter `{}`", names[missing])));
    }
    let mut suite = Vec::new();
    for r in records {
        if r.fields.len() != cols.len() {
            return Err(src.error(r.at, format!("{} fields in a row of {} columns", r.fields.len(), cols.len())));
        }
        let mut test = vec![0; cols.len()];
        for (f, &p) in r.fields.iter().zip(&cols) {
            match find_value(model, p, &f.text) {
                Some(v) => test[p] = v,
                None => return Err(src.error(f.at, format!("{:?} is not a value of `{}`", f.text, names[p]))),
            }
        }
        suite.push(test);
    }
    Ok(suite)
}

/// The first candidate separator that splits the header line into exactly the parameter names.
fn guess_separator(text: &str, names: &[&str]) -> char {
    let first = text.lines().next().unwrap_or("");
    let mut sorted: Vec<&str> = names.to_vec();
    sorted.sort_unstable();
    for sep in [',', ';', '\t', '|'] {
        let mut cols: Vec<&str> = first.split(sep).map(|c| c.trim_matches('"')).collect();
        cols.sort_unstable();
        if cols == sorted {
            return sep;
        }
    }
    ','
}

struct Field {
    text: String,
    at: usize,
}

struct Record {
    fields: Vec<Field>,
    at: usize,
}

/// RFC 4180 records with the byte offset of each field; blank lines are skipped.
fn records(src: &Source, sep: char) -> Result<Vec<Record>, ParseError> {
    let text = src.text;
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let start = i;
        let mut fields = Vec::new();
        let mut quoted_any = false;
        loop {
            let at = i;
            let mut field = String::new();
            if text[i..].starts_with('"') {
                quoted_any = true;
                i += 1;
                loop {
                    let Some(c) = text[i..].chars().next() else {
                        return Err(src.error(at, "unterminated quoted field"));
                    };
                    i += c.len_utf8();
                    if c == '"' {
                        if text[i..].starts_with('"') {
                            field.push('"');
                            i += 1;
                        } else {
                            break;
                        }
                    } else {
                        field.push(c);
                    }
                }
                match text[i..].chars().next() {
                    None | Some('\n') => {}
                    Some('\r') if text[i..].starts_with("\r\n") => {}
                    Some(c) if c == sep => {}
                    Some(c) => return Err(src.error(i, format!("unexpected {c:?} after a quoted field"))),
                }
            } else {
                let end = text[i..].find(|c: char| c == sep || c == '\n').map_or(text.len(), |j| i + j);
                let raw = &text[i..end];
                let raw = if end < text.len() && text[end..].starts_with('\n') { raw.strip_suffix('\r').unwrap_or(raw) } else { raw };
                if let Some(q) = raw.find('"') {
                    return Err(src.error(i + q, "a quote inside an unquoted field (quote the whole field and double inner quotes)"));
                }
                field.push_str(raw);
                i = end;
            }
            fields.push(Field { text: field, at });
            match text[i..].chars().next() {
                Some(c) if c == sep => i += c.len_utf8(),
                Some('\r') => {
                    i += if text[i..].starts_with("\r\n") { 2 } else { 1 };
                    break;
                }
                Some('\n') => {
                    i += 1;
                    break;
                }
                _ => break,
            }
        }
        let blank = fields.len() == 1 && fields[0].text.is_empty() && !quoted_any;
        if !blank {
            out.push(Record { fields, at: start });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Param;
    use proptest::collection::vec;
    use proptest::prelude::*;

    fn model() -> Model {
        let p = |n: &str, vs: &[&str]| Param { name: n.into(), values: vs.iter().map(|s| s.to_string()).collect(), invalid: vec![] };
        Model { name: "m".into(), params: vec![p("age", &["17", "40.5"]), p("note", &["a,b", "say \"hi\"", "x\ny", ""])], ..Model::default() }
    }

    fn err(text: &str) -> (usize, usize, String) {
        let e = read_csv(&model(), text).unwrap_err();
        (e.line, e.column, e.message)
    }

    #[test]
    fn csv_quotes_when_needed() {
        let m = model();
        let suite = vec![vec![0, 0], vec![1, 1], vec![0, 2], vec![1, 3]];
        let csv = to_csv(&m, &suite, ',');
        assert_eq!(csv, "age,note\n17,\"a,b\"\n40.5,\"say \"\"hi\"\"\"\n17,\"x\ny\"\n40.5,\n");
        assert_eq!(read_csv(&m, &csv).unwrap(), suite);
        let semi = to_csv(&m, &suite, ';');
        assert!(semi.starts_with("age;note\n17;a,b\n"), "{semi}");
        assert_eq!(read_csv(&m, &semi).unwrap(), suite);
        // Columns in another order, CRLF endings, numeric match.
        assert_eq!(read_csv(&m, "note,age\r\n\"a,b\",40.50\r\n\r\n").unwrap(), vec![vec![1, 0]]);
    }

    #[test]
    fn json_objects_in_parameter_order() {
        let json = to_json(&model(), &[vec![1, 0]]);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v, serde_json::json!([{"age": "40.5", "note": "a,b"}]));
        assert_eq!(to_json(&model(), &[]), "[]");
    }

    #[test]
    fn errors_are_located() {
        assert_eq!(err(""), (1, 1, "empty CSV: expected a header row of parameter names".into()));
        assert_eq!(err("age,nope\n"), (1, 5, "unknown parameter `nope` in the header".into()));
        assert_eq!(err("age\n"), (1, 1, "the header has no column for parameter `note`".into()));
        assert_eq!(err("age,age,note\n").0, 1);
        assert_eq!(err("age,note\n17,\"a,b\"\n17,zzz\n"), (3, 4, "\"zzz\" is not a value of `note`".into()));
        assert_eq!(err("age,note\n\"x\ny\",17\n"), (2, 1, "\"x\\ny\" is not a value of `age`".into()));
        assert_eq!(err("age,note\n17\n"), (2, 1, "1 fields in a row of 2 columns".into()));
        assert_eq!(err("age,note\n17,\"a,b\n"), (2, 4, "unterminated quoted field".into()));
        assert_eq!(err("age,note\n17,\"a\"b\n"), (2, 7, "unexpected 'b' after a quoted field".into()));
        assert_eq!(err("age,note\n17,a\"b\n"), (2, 5, "a quote inside an unquoted field (quote the whole field and double inner quotes)".into()));
    }

    fn model_and_suite() -> impl Strategy<Value = (Model, Vec<Vec<usize>>)> {
        let names = vec("[a-z]{1,4}|[ -~]{1,4}", 1..4).prop_map(|mut ns| {
            ns.sort();
            ns.dedup();
            ns
        });
        let values = vec(any::<String>(), 1..4).prop_map(|mut vs| {
            vs.sort();
            vs.dedup();
            vs
        });
        (names, vec(values, 4)).prop_flat_map(|(names, values)| {
            let params: Vec<Param> = names.into_iter().zip(values).map(|(name, values)| Param { name, values, invalid: vec![] }).collect();
            let test: Vec<_> = params.iter().map(|p| 0..p.values.len()).collect();
            let model = Model { name: "m".into(), params, ..Model::default() };
            (Just(model), vec(test, 0..5))
        })
    }

    proptest! {
        #[test]
        fn csv_round_trips((m, suite) in model_and_suite(), sep in prop_oneof![Just(','), Just(';'), Just('\t')]) {
            let csv = to_csv(&m, &suite, sep);
            let back = read_csv_from(&m, &csv, Path::new("s.csv"), Some(sep)).map_err(|e| TestCaseError::fail(format!("{e}\n{csv}")))?;
            prop_assert_eq!(back, suite);
        }

        #[test]
        fn read_csv_never_panics(s in "[a-z0-9,;\"\r\n ]{0,40}") {
            let _ = read_csv(&model(), &s).map_err(|e| e.to_string());
        }
    }
}
