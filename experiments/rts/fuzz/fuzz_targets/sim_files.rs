//! Any bytes given as one of the simulator's ground-truth files (the first byte picks which:
//! `changed.txt`, `faults.csv` or `dependencies.csv`) either read or yield a located error; never
//! a panic. What reads is written back (faults with `write_faults`; changed services one per line;
//! dependencies as CSV with every field quoted) and must read back the same.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_rts::simulate::{read_changed, read_dependencies, read_faults, write_faults};

/// A CSV field, always quoted (RFC 4180).
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    match pick % 3 {
        0 => match read_changed("changed.txt", rest) {
            Ok(services) => {
                let text: String = services.iter().map(|s| format!("{s}\n")).collect();
                match read_changed("changed.out", text.as_bytes()) {
                    Ok(back) => assert_eq!(back, services, "{text}"),
                    Err(e) => panic!("written changed services do not read: {e}\n{text}"),
                }
            }
            Err(e) => drop(e.to_string()),
        },
        1 => match read_faults("faults.csv", rest) {
            Ok(faults) => {
                let mut csv = Vec::new();
                write_faults(&faults, &mut csv).expect("writing to memory");
                match read_faults("faults.out", &csv[..]) {
                    Ok(back) => assert_eq!(back, faults, "{}", String::from_utf8_lossy(&csv)),
                    Err(e) => panic!("written faults do not read: {e}\n{}", String::from_utf8_lossy(&csv)),
                }
            }
            Err(e) => drop(e.to_string()),
        },
        _ => match read_dependencies("dependencies.csv", rest) {
            Ok(edges) => {
                let mut text = String::from("caller,callee\n");
                for (a, b) in &edges {
                    text.push_str(&format!("{},{}\n", quoted(a), quoted(b)));
                }
                match read_dependencies("dependencies.out", text.as_bytes()) {
                    Ok(back) => assert_eq!(back, edges, "{text}"),
                    Err(e) => panic!("written dependencies do not read: {e}\n{text}"),
                }
            }
            Err(e) => drop(e.to_string()),
        },
    }
});
