//! Any bytes as a native, PICT or ACTS model (the first byte picks the format) either parse or
//! yield a located error; never a panic. Whatever parses is written as a native model that must
//! parse again.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use rigor_ct::parse::{parse, write_native, Format};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let format = [Format::Native, Format::Pict, Format::Acts][pick as usize % 3];
    if let Ok(text) = std::str::from_utf8(rest) {
        match parse(text, Path::new("fuzz"), format) {
            Ok(model) => {
                let native = write_native(&model);
                if let Err(e) = parse(&native, Path::new("fuzz.toml"), Format::Native) {
                    panic!("written model does not parse: {e}\n{native}");
                }
            }
            Err(e) => drop(e.to_string()),
        }
    }
});
