//! Any bytes given as a CSV suite either read or yield a located error; never a panic. What reads
//! must write back to CSV that reads as the same suite.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_ct::export::{read_csv, to_csv};
use rigor_ct::{Model, Param};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let p = |name: &str, values: &[&str]| Param {
            name: name.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
            invalid: vec![],
        };
        let model = Model {
            name: "fuzz".into(),
            params: vec![p("a", &["1", "2.5", ""]), p("b", &["x", "y,z", "\"q\""]), p("c d", &["true", "false"])],
            ..Model::default()
        };
        match read_csv(&model, text) {
            Ok(suite) => {
                let csv = to_csv(&model, &suite, ',');
                assert_eq!(read_csv(&model, &csv).ok(), Some(suite), "{csv}");
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
});
