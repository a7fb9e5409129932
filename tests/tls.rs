//! The coordinator over TLS with a token: certificates from a CA generated in the test; a client
//! that trusts the CA and has the token submits, a worker runs the study, and a client without
//! the CA or with a wrong token is refused.

mod common;

use std::process::Stdio;
use std::time::Duration;

use common::*;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};

const STUDY: &str = "[study]\nname = \"secure\"\nseed = 5\nrepetitions = 3\n\n[[experiment]]\nid = \"e\"\nkind = \"noop\"\nsubjects = [\"a\", \"b\"]\n";

#[test]
fn tls_and_token_protect_every_call() {
    let dir = tmp();
    // A CA, and a server certificate for localhost signed by it.
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    let server_key = KeyPair::generate().unwrap();
    let server = CertificateParams::new(vec!["localhost".to_string()]).unwrap().signed_by(&server_key, &ca).unwrap();
    let (ca_pem, cert, key) = (dir.path().join("ca.pem"), dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&ca_pem, ca.pem()).unwrap();
    std::fs::write(&cert, server.pem()).unwrap();
    std::fs::write(&key, server_key.serialize_pem()).unwrap();

    let port = free_port();
    let mut cmd = rigor();
    cmd.args(["coordinator", "--listen", &format!("127.0.0.1:{port}"), "--token", "s3cret"])
        .arg("--data")
        .arg(dir.path().join("data"))
        .arg("--tls-cert")
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key);
    let _coordinator = Proc::spawn("coordinator", cmd, dir.path().join("coordinator.stderr"), Stdio::null());
    let url = format!("https://localhost:{port}");
    let ca_arg = s(&ca_pem);
    wait_until(Duration::from_secs(30), "the TLS coordinator answers", || {
        run(&["status", "--coordinator", &url, "--ca-cert", ca_arg, "--token", "s3cret"]).code == Some(0)
    });

    let study = write(dir.path(), "secure.toml", STUDY);
    let out = run(&["submit", s(&study), "--coordinator", &url, "--ca-cert", ca_arg, "--token", "s3cret"]).ok("submit over TLS");
    assert!(out.stdout.contains("6 jobs (6 new"), "{}", out.stdout);

    let mut worker = rigor();
    worker.args(["worker", "--coordinator", &url, "--ca-cert", ca_arg, "--token", "s3cret", "--slots", "2", "--id", "tls-w"]);
    worker.arg("--cache").arg(dir.path().join("cache"));
    let _worker = Proc::spawn("worker", worker, dir.path().join("worker.stderr"), Stdio::null());
    run(&["watch", "secure", "--coordinator", &url, "--ca-cert", ca_arg, "--token", "s3cret"]).ok("watch over TLS");
    let table = results_csv_with(&url, "secure", &["--ca-cert", ca_arg, "--token", "s3cret"]);
    assert_eq!(table.ids_with_status("ok").len(), 6);

    // Without the CA the server's certificate is not trusted; a wrong token is refused.
    let r = run(&["status", "--coordinator", &url, "--token", "s3cret"]);
    assert_ne!(r.code, Some(0), "a client that does not trust the CA must fail");
    assert!(r.stderr.contains("certificate"), "{}", r.stderr);
    let r = run(&["status", "--coordinator", &url, "--ca-cert", ca_arg, "--token", "wrong"]);
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("wrong token"), "{}", r.stderr);
    // Plain HTTP to a TLS port does not get through either.
    let r = run(&["status", "--coordinator", &format!("http://127.0.0.1:{port}"), "--token", "s3cret"]);
    assert_ne!(r.code, Some(0));
}

fn results_csv_with(url: &str, study: &str, extra: &[&str]) -> Table {
    let mut args = vec!["results", study, "--coordinator", url, "--format", "csv"];
    args.extend_from_slice(extra);
    Table::parse(&run(&args).ok("rigor results").stdout)
}
