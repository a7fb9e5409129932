//! Any bytes given as a CASA model (and, after the first NUL byte, its constraints) either parse
//! or yield a located error; never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use rigor_ct::parse::casa::parse_with_constraints;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let (model, constraints) = match text.split_once('\0') {
            Some((m, c)) => (m, Some((c, Path::new("fuzz.constraints")))),
            None => (text, None),
        };
        if let Err(e) = parse_with_constraints(model, Path::new("fuzz.model"), constraints) {
            let _ = e.to_string();
        }
    }
});
