//! `rigor`: the command line. It only wires the libraries together; see ARCHITECTURE.md.

mod cli;
mod techniques;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::init_tracing(args.verbose);
    // The executor child speaks a binary protocol on stdout: it must not start a runtime or print.
    if let cli::Command::Executor = args.command {
        return match rigor_worker::runner::serve(&techniques::registry()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("executor: {e}");
                ExitCode::from(1)
            }
        };
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    match rt.block_on(cli::dispatch(args.command)) {
        Ok(code) => code,
        Err(e) => {
            let code = cli::exit_code_of(&e);
            eprintln!("error: {}", cli::describe(&e));
            ExitCode::from(code)
        }
    }
}
