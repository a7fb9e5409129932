//! Any bytes given as a study file either parse or yield a located error; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_technique::{Noop, Registry};

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let registry = Registry::new().with(Noop);
        if let Err(e) = rigor_coordinator::study::parse("fuzz.toml", text, &registry) {
            // Rendering the error must not panic either (line/column arithmetic).
            let _ = e.to_string();
        }
    }
});
