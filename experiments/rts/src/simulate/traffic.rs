//! User traffic: traces of one version, streamed span by span in constant memory.
//!
//! Each trace picks an entry API by popularity (Zipf over a random order of the entry APIs) and
//! one of its variants by weight, and emits that variant's call tree in preorder, root first.
//! Traces arrive as a Poisson stream (exponential gaps, mean 5 ms) from midnight of 2023-01-01
//! plus one day per version; within a trace each span starts 20–519 µs after the previous one, so
//! timestamps increase along the preorder and a child starts after its parent. Trace ids are 128
//! random bits, span ids 32 random bits per trace followed by the span's 1-based index (unique
//! within a trace, never zero) — both as lowercase hex, as Jaeger, Zipkin and OTLP write them. The
//! last trace is cut short (a prefix of its preorder, still a tree) so the record count is exact.

use std::io;

use rand::Rng;

use super::sample::{open_unit, stream, Purpose, Weighted};
use super::system::System;
use super::SimError;
use crate::record::SpanRecord;

const EPOCH_US: u64 = 1_672_531_200_000_000;
const DAY_US: u64 = 86_400_000_000;
const MEAN_GAP_US: f64 = 5_000.0;

/// What a call to [`System::traffic`] produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrafficStats {
    pub traces: u64,
    pub records: u64,
}

/// Appends `value` as `digits` lowercase hex digits (the low ones).
fn push_hex(out: &mut String, value: u64, digits: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for i in (0..digits).rev() {
        out.push(HEX[((value >> (4 * i)) & 0xf) as usize] as char);
    }
}

fn set_span_id(out: &mut String, prefix: u32, index: usize) {
    out.clear();
    push_hex(out, (u64::from(prefix) << 32) | (index as u64 + 1), 16);
}

/// Replaces an optional field's text, reusing its buffer (or a spare one) instead of allocating.
fn set_some(field: &mut Option<String>, spare: &mut String, text: &str) {
    let mut s = field.take().unwrap_or_else(|| std::mem::take(spare));
    s.clear();
    s.push_str(text);
    *field = Some(s);
}

fn set_none(field: &mut Option<String>, spare: &mut String) {
    if let Some(s) = field.take() {
        *spare = s;
    }
}

impl System {
    /// Streams `records` spans of version `v`'s traffic into `sink`, whole traces contiguous and
    /// root first. The traffic depends only on the seed, the version and `records` (a longer run
    /// starts with the same traces). Stops at the sink's first error.
    pub fn traffic(
        &self,
        v: u32,
        records: u64,
        sink: &mut dyn FnMut(&SpanRecord) -> io::Result<()>,
    ) -> Result<TrafficStats, SimError> {
        let version = self.version(v)?;
        let mut rng = stream(self.seed, Purpose::Traffic, v);
        let popularity: Vec<f64> = self.entries.iter().map(|e| e.popularity).collect();
        let pick_entry = Weighted::new(&popularity);
        let pick_variant: Vec<Option<Weighted>> = self
            .entries
            .iter()
            .map(|e| Weighted::new(&e.variants.iter().map(|v| v.weight).collect::<Vec<_>>()))
            .collect();
        let mut stats = TrafficStats { traces: 0, records: 0 };
        let Some(pick_entry) = pick_entry else {
            return Ok(stats);
        };
        let service_of: Vec<&str> = self.apis.iter().map(|a| self.services[a.service as usize].name.as_str()).collect();

        let mut span = SpanRecord {
            trace_id: String::with_capacity(32),
            span_id: String::with_capacity(16),
            parent_id: None,
            service: String::new(),
            operation: String::new(),
            caller: None,
            timestamp_us: 0,
        };
        let (mut spare_parent, mut spare_caller) = (String::with_capacity(16), String::new());
        let mut clock = EPOCH_US + u64::from(v - 1) * DAY_US;
        while stats.records < records {
            let entry = pick_entry.sample(&mut rng);
            let variant = pick_variant[entry].as_ref().map_or(0, |w| w.sample(&mut rng));
            let tree = &version.trees[entry][variant];
            clock += (-MEAN_GAP_US * open_unit(&mut rng).ln()) as u64 + 1;
            span.trace_id.clear();
            push_hex(&mut span.trace_id, rng.random::<u64>(), 16);
            push_hex(&mut span.trace_id, rng.random::<u64>() | 1, 16);
            let prefix: u32 = rng.random();
            let mut timestamp = clock;
            let take = tree.nodes.len().min(usize::try_from(records - stats.records).unwrap_or(usize::MAX));
            for (i, node) in tree.nodes[..take].iter().enumerate() {
                if i > 0 {
                    timestamp += 20 + u64::from(rng.random::<u32>() % 500);
                }
                span.timestamp_us = timestamp;
                set_span_id(&mut span.span_id, prefix, i);
                match node.parent {
                    Some(p) => {
                        let parent = p as usize;
                        let id = span.parent_id.get_or_insert_with(|| std::mem::take(&mut spare_parent));
                        set_span_id(id, prefix, parent);
                        set_some(&mut span.caller, &mut spare_caller, service_of[tree.nodes[parent].api as usize]);
                    }
                    None => {
                        set_none(&mut span.parent_id, &mut spare_parent);
                        set_none(&mut span.caller, &mut spare_caller);
                    }
                }
                span.service.clear();
                span.service.push_str(service_of[node.api as usize]);
                span.operation.clear();
                span.operation.push_str(&self.apis[node.api as usize].name);
                sink(&span).map_err(SimError::Sink)?;
            }
            stats.records += take as u64;
            stats.traces += 1;
        }
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_fixed_width() {
        let mut s = String::new();
        push_hex(&mut s, 0xab, 4);
        assert_eq!(s, "00ab");
        set_span_id(&mut s, 1, 0);
        assert_eq!(s, "0000000100000001");
    }
}
