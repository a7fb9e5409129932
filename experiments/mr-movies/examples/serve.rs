//! Runs the service by hand: `cargo run -p rigor-mr-movies --example serve -- [ADDR] [MUTANT]`
//! (default 127.0.0.1:8080, no mutant), then e.g. `curl '127.0.0.1:8080/search?title=star'`.

use rigor_mr_movies::{serve, Mutant};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let mutant = args.next().map(|m| m.parse::<Mutant>()).transpose()?;
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!(
        "serving on http://{} (mutant: {})",
        listener.local_addr()?,
        mutant.map_or("none", |m| m.name())
    );
    serve(listener, mutant).await?;
    Ok(())
}
