//! Any bytes read as a Zipkin v2 JSON trace file give spans, malformed-record reports or an error;
//! never a panic. What reads is mined, and round-trips through the zipkin writer (see
//! `trace_check.rs`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rigor_rts::formats::Format;

mod trace_check;

fuzz_target!(|data: &[u8]| trace_check::check(Format::Zipkin, data));
