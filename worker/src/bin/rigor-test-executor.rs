//! An executor with only the `noop` technique, for the worker's integration tests (the real
//! executor is the `rigor executor` subcommand, with every technique).
fn main() {
    let registry = rigor_technique::Registry::new().with(rigor_technique::Noop);
    if let Err(e) = rigor_worker::runner::serve(&registry) {
        eprintln!("rigor-test-executor: {e}");
        std::process::exit(1);
    }
}
