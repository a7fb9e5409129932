//! `model.toml` is the model in rigor's native format, for studies and `rigor ct generate`: it
//! must stay what `model()` builds.

use std::path::Path;

#[test]
fn model_file_is_the_model() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("model.toml");
    let written = rigor_ct::parse::write_native(&rigor_ct_insurance::model());
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    if std::env::var_os("RIGOR_BLESS").is_some() {
        std::fs::write(&path, &written).unwrap();
    } else {
        assert!(on_disk == written, "model.toml is stale: regenerate with RIGOR_BLESS=1 cargo test -p rigor-ct-insurance --test model_file");
    }
    let read = rigor_ct::parse::read(&path, None).unwrap();
    assert_eq!(read, rigor_ct_insurance::model());
}
