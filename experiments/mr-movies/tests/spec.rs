//! spec/movies.yml and spec/testCases.csv agree with the service.

use std::collections::BTreeSet;

use rigor_mr_movies::{default_value, enum_values, search, PARAMETERS};
use serde_norway::Value;

fn spec() -> Value {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/movies.yml")).unwrap();
    serde_norway::from_str(&text).unwrap()
}

/// A scalar as text, as MRG reads every scalar.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => panic!("not a scalar: {other:?}"),
    }
}

fn texts(v: &Value) -> Vec<String> {
    v.as_sequence()
        .map(|s| s.iter().map(text).collect())
        .unwrap_or_default()
}

#[test]
fn spec_matches_the_service() {
    let spec = spec();
    let features = spec["features"].as_sequence().unwrap();
    assert_eq!(features.len(), 1);
    let f = &features[0];
    let params = f["parameters"].as_sequence().unwrap();
    let names: Vec<String> = params.iter().map(|p| text(&p["name"])).collect();
    assert_eq!(names, PARAMETERS, "parameters, in order");

    for p in params {
        let name = text(&p["name"]);
        assert!(
            matches!(text(&p["required"]).as_str(), "true" | "false"),
            "{name}: required"
        );
        let spec_enum = p.get("enum").map(texts);
        let service_enum =
            enum_values(&name).map(|e| e.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(spec_enum, service_enum, "{name}: enum");
        let default = p.get("default").map(text);
        match name.as_str() {
            // No default on limit (absent = all) and, deliberately, none declared on offset.
            "limit" | "offset" => assert_eq!(default, None, "{name}"),
            _ => assert_eq!(default.as_deref(), default_value(&name), "{name}: default"),
        }
        let values = p.get("values").map(texts).unwrap_or_default();
        if spec_enum.is_none() {
            assert!((3..=6).contains(&values.len()), "{name}: values pool size");
            for v in &values {
                let r = search(&[(name.clone(), v.clone())], None)
                    .unwrap_or_else(|e| panic!("{name}={v}: {e}"));
                assert!(!r.items.is_empty(), "{name}={v} returns nothing");
            }
        }
    }

    let c = &f["configuration"];
    let known = |n: &str| {
        assert!(
            PARAMETERS.contains(&n),
            "configuration names unknown parameter {n:?}"
        )
    };
    for key in [
        "ordering_parameters",
        "conjunctive_filters",
        "disjunctive_filters",
    ] {
        assert!(!texts(&c[key]).is_empty(), "{key}");
        texts(&c[key]).iter().for_each(|n| known(n));
    }
    for key in ["limit_parameter", "offset_parameter"] {
        known(&text(&c[key]));
    }
    for d in c["disjoint_filters"].as_sequence().unwrap() {
        let name = text(&d["parameter"]);
        known(&name);
        let all = enum_values(&name).unwrap();
        for v in d.get("values").map(texts).unwrap_or_default() {
            assert!(all.contains(&v.as_str()), "{name}: {v}");
        }
    }
    for d in c["complete_filters"].as_sequence().unwrap() {
        let name = text(&d["parameter"]);
        known(&name);
        let all = text(&d["all_value"]);
        assert!(
            all == "empty" || enum_values(&name).unwrap().contains(&all.as_str()),
            "{name}: {all}"
        );
    }
    let complete: Vec<String> = c["complete_filters"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|d| text(&d["parameter"]))
        .collect();
    assert!(
        complete.iter().any(|n| enum_values(n).unwrap().len() <= 7),
        "a complete filter the generator can use"
    );

    let e = &f["execution"];
    assert_eq!(
        (text(&e["url"]), text(&e["items"]), text(&e["item_id"])),
        ("{base}/search".into(), "/items".into(), "/id".into())
    );
}

#[test]
fn source_tests_use_spec_parameters_and_return_a_handful_to_hundreds() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/spec/testCases.csv"))
        .unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    assert_eq!(header[0], "test_id");
    assert_eq!(&header[1..], PARAMETERS);
    let mut used = BTreeSet::new();
    let mut n = 0;
    for line in lines.filter(|l| !l.is_empty()) {
        n += 1;
        let cells: Vec<&str> = line.split(';').collect();
        assert_eq!(cells.len(), header.len(), "{line}");
        assert_eq!(cells[0], format!("Test-{n:02}"));
        let params: Vec<(String, String)> = header[1..]
            .iter()
            .zip(&cells[1..])
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        used.extend(params.iter().map(|(k, _)| k.clone()));
        let r = search(&params, None).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(
            (3..=400).contains(&r.total),
            "{}: total {}",
            cells[0],
            r.total
        );
    }
    assert_eq!(n, 20);
    assert_eq!(used.len(), PARAMETERS.len(), "every parameter is exercised");
}
