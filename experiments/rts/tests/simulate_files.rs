//! The simulator's output directory: layout, byte-for-byte reproducibility and ground-truth files
//! that read back as generated.

use std::collections::BTreeMap;
use std::fs;
use std::io::BufReader;
use std::path::Path;

use rigor_rts::formats::{read_all, Format};
use rigor_rts::record::read_tests;
use rigor_rts::simulate::{read_changed, read_dependencies, read_faults, trace_file_name, write_dir, Profile, System};

fn profile(records: u64) -> Profile {
    Profile::custom("small", 30, records, 3, 40)
}

/// Every file under `dir` by relative path, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                out.insert(name, fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn written(profile: &Profile, seed: u64, format: Format) -> (tempfile::TempDir, BTreeMap<String, Vec<u8>>) {
    let dir = tempfile::tempdir().unwrap();
    write_dir(&System::generate(profile, seed).unwrap(), dir.path(), format).unwrap();
    let files = files(dir.path());
    (dir, files)
}

#[test]
fn the_directory_has_the_documented_layout() {
    let (_dir, files) = written(&profile(0), 1, Format::Csv);
    let mut expected = vec!["system.json".to_string()];
    for v in 1..=3 {
        for name in ["changed.txt", "tests.csv", "faults.csv", "dependencies.csv", "coverage.csv", "traces.csv"] {
            expected.push(format!("v{v}/{name}"));
        }
    }
    expected.sort();
    assert_eq!(files.keys().cloned().collect::<Vec<_>>(), expected);
    assert_eq!(trace_file_name(Format::Otlp), "traces.otlp.jsonl");
}

#[test]
fn the_same_seed_writes_the_same_bytes_in_every_format() {
    for format in [Format::Csv, Format::Jaeger, Format::Zipkin, Format::Otlp] {
        let (_a, first) = written(&profile(400), 7, format);
        let (_b, second) = written(&profile(400), 7, format);
        assert_eq!(first.keys().collect::<Vec<_>>(), second.keys().collect::<Vec<_>>());
        for (name, bytes) in &first {
            assert!(bytes == &second[name], "{format:?}: {name} differs between two runs");
        }
        let traces = &first[&format!("v2/{}", trace_file_name(format))];
        assert!(!traces.is_empty());
        let (_c, other) = written(&profile(400), 8, format);
        assert_ne!(first["v1/tests.csv"], other["v1/tests.csv"]);
        assert_ne!(first[&format!("v1/{}", trace_file_name(format))], other[&format!("v1/{}", trace_file_name(format))]);
    }
}

#[test]
fn ground_truth_files_read_back_as_generated() {
    let system = System::generate(&profile(0), 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    write_dir(&system, dir.path(), Format::Csv).unwrap();
    for version in &system.versions {
        let v = version.number;
        let vdir = dir.path().join(format!("v{v}"));
        let open = |name: &str| fs::File::open(vdir.join(name)).unwrap();
        assert_eq!(read_changed("changed.txt", open("changed.txt")).unwrap(), system.changed_services(v).unwrap());
        assert_eq!(read_tests("tests.csv", open("tests.csv")).unwrap(), system.tests(v).unwrap());
        assert_eq!(read_faults("faults.csv", open("faults.csv")).unwrap(), version.faults);
        let deps = read_dependencies("dependencies.csv", open("dependencies.csv")).unwrap();
        let expected: Vec<(String, String)> =
            system.dependencies(v).unwrap().into_iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
        assert_eq!(deps, expected);
        let coverage = fs::read_to_string(vdir.join("coverage.csv")).unwrap();
        assert_eq!(coverage.lines().count(), system.tests.len() + 1);
    }
    let summary: serde_json::Value = serde_json::from_slice(&fs::read(dir.path().join("system.json")).unwrap()).unwrap();
    assert_eq!(summary["profile"]["name"], "small");
    assert_eq!(summary["seed"], 3);
    assert_eq!(summary["services"].as_array().unwrap().len(), 30);
    assert_eq!(summary["versions"].as_array().unwrap().len(), 3);
}

#[test]
fn an_unwritable_directory_is_an_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("file");
    fs::write(&blocker, "not a directory").unwrap();
    let system = System::generate(&profile(0), 1).unwrap();
    let err = write_dir(&system, &blocker.join("out"), Format::Csv).unwrap_err();
    assert!(err.to_string().contains("file/out"), "{err}");
}

#[test]
fn written_traces_read_back_in_every_format() {
    let system = System::generate(&profile(700), 12).unwrap();
    let mut expected = Vec::new();
    system
        .traffic(2, 700, &mut |span| {
            expected.push((span.trace_id.clone(), span.span_id.clone(), span.parent_id.clone(), span.service.clone()));
            Ok(())
        })
        .unwrap();
    expected.sort();
    for format in [Format::Csv, Format::Jaeger, Format::Zipkin, Format::Otlp] {
        let dir = tempfile::tempdir().unwrap();
        write_dir(&system, dir.path(), format).unwrap();
        let file = dir.path().join("v2").join(trace_file_name(format));
        let (spans, report) = read_all(format, "traces", BufReader::new(fs::File::open(&file).unwrap())).unwrap();
        assert_eq!((report.records, report.malformed_count), (700, 0), "{format:?}: {report}");
        let mut read: Vec<_> = spans.into_iter().map(|s| (s.trace_id, s.span_id, s.parent_id, s.service)).collect();
        read.sort();
        assert!(read == expected, "{format:?}: spans differ after a round trip");
    }
}

/// Generation speed of whole directories; run with
/// `cargo test --release -p rigor-rts --test simulate_files -- --ignored --nocapture`.
#[test]
#[ignore]
fn write_dir_throughput() {
    // Need in CSV only: its JSON formats take up to 3 GB of temporary disk.
    for (name, formats) in [("m-ticket", &Format::ALL[..]), ("need", &[Format::Csv][..])] {
        let profile = Profile::by_name(name).unwrap();
        for &format in formats {
            let dir = tempfile::tempdir().unwrap();
            let start = std::time::Instant::now();
            let system = System::generate(&profile, 1).unwrap();
            let generated = start.elapsed().as_secs_f64();
            write_dir(&system, dir.path(), format).unwrap();
            let seconds = start.elapsed().as_secs_f64();
            let records = profile.log_records * u64::from(profile.versions);
            let bytes: usize = files(dir.path()).values().map(Vec::len).sum();
            println!(
                "{name} {format:?}: system {generated:.3} s, all {seconds:.2} s, {records} records, {:.2} M records/s, {:.0} MB",
                records as f64 / (seconds - generated) / 1e6,
                bytes as f64 / 1e6
            );
        }
    }
}
