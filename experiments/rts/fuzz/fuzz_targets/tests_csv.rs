//! Any bytes given as a tests file (`id,path,time_ms`) either read or yield a located error; never
//! a panic. What reads is written with `write_tests` and must read back as the same tests.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_rts::record::{read_tests, write_tests};

fuzz_target!(|data: &[u8]| {
    match read_tests("fuzz", data) {
        Ok(tests) => {
            for t in &tests {
                assert!(!t.id.is_empty() && t.time_ms.is_finite() && t.time_ms >= 0.0, "{t:?}");
                assert!(t.path.iter().all(|s| !s.is_empty() && !s.contains(';')), "{t:?}");
            }
            let mut csv = Vec::new();
            write_tests(&tests, &mut csv).expect("writing to memory");
            match read_tests("fuzz.out", &csv[..]) {
                Ok(back) => assert_eq!(back, tests, "{}", String::from_utf8_lossy(&csv)),
                Err(e) => panic!("written tests do not read: {e}\n{}", String::from_utf8_lossy(&csv)),
            }
        }
        Err(e) => drop(e.to_string()),
    }
});
