//! Compiles the protocol with protox (pure Rust) so that fresh machines need no `protoc`.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fds = protox::compile(["rigor/v1/rigor.proto", "rigor/v1/store.proto", "rigor/v1/exec.proto"], ["."])?;
    tonic_prost_build::configure().compile_fds(fds)?;
    println!("cargo:rerun-if-changed=rigor/v1");
    Ok(())
}
