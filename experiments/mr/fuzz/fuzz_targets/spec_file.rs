//! Any bytes given as an MRG specification either parse or yield an error naming the place; never
//! a panic. Parsed specs are also resolved in both modes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_mr::{spec::Spec, Mode, Sut};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match Spec::parse(text, "fuzz.yml") {
        Ok(spec) => {
            for f in &spec.features {
                for mode in [Mode::Compat, Mode::Native] {
                    let _ = Sut::new(f, &f.id, mode).map_err(|e| e.to_string());
                }
            }
        }
        Err(e) => drop(e.to_string()),
    }
});
