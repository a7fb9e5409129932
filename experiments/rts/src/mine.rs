//! Mining the service dependency matrix (SDM) from traces: step 1 of MRTS-BP.
//!
//! **Transactions** are the root-to-leaf service paths of each trace, consecutive equal services
//! collapsed (see [`crate::edges`]). A trace whose root calls `a` and `b`, and `a` calls `c`, gives
//! the two transactions `root,a,c` and `root,b`.
//!
//! **Supports count occurrences in transactions**, exactly:
//! - `supp(i)` = the number of positions holding service `i`, summed over all transactions
//!   (a transaction `a,b,a` counts 2 for `a`). This is also the *item frequency* of `i`.
//! - `supp(i→j)` = the number of positions `k` with `t[k] = i` and `t[k+1] = j`, summed over
//!   all transactions: the occurrences of the contiguous two-service sub-path `i,j`.
//!
//! Each occurrence of `i→j` sits on an occurrence of `i`, so `supp(i→j) ≤ supp(i)` and every
//! SDM weight lies in `[0, 1]` (the precondition for belief propagation to converge). The counts
//! are computed per span, not per materialised path: a span that starts a run of its service
//! adds the number of leaves below it to `supp(service)`, and likewise for parent→child pairs —
//! the same numbers, in time linear in the spans.
//!
//! **SDM**: `SDM[i][j] = supp(i→j) / supp(i)` when `supp(i→j) > c`, else 0, where the frequent
//! threshold `c` is an absolute count or a fraction of the number of transactions
//! ([`Threshold`]). The study sweeps `c` between the smallest and largest item frequency
//! ([`Supports::item_frequency_range`], [`Supports::c_sweep`]).
//!
//! The [`Miner`] takes one trace at a time; its memory is the interned names plus one counter
//! per observed service pair, independent of the number of records.

use std::io::BufRead;
use std::sync::mpsc;

use crate::edges::{FastMap, Interner, TraceShape};
use crate::formats::{FormatError, TraceReader};
use crate::record::SpanRecord;

/// The frequent threshold `c`: a pair `i→j` enters the SDM when `supp(i→j)` is strictly greater.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Threshold {
    /// An absolute number of occurrences (fractional values come from sweeps).
    Absolute(f64),
    /// A fraction of the number of transactions (root-to-leaf paths).
    Relative(f64),
}

impl Default for Threshold {
    /// `Absolute(0)`: every observed pair is frequent.
    fn default() -> Self {
        Threshold::Absolute(0.0)
    }
}

impl std::str::FromStr for Threshold {
    type Err = String;
    /// `12` or `12.5` is an absolute count; `5%` is 5% of the transactions.
    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        let (number, relative) = match s.strip_suffix('%') {
            Some(n) => (n.trim(), true),
            None => (s, false),
        };
        match number.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(if relative {
                Threshold::Relative(v / 100.0)
            } else {
                Threshold::Absolute(v)
            }),
            _ => Err(format!(
                "threshold `{s}` must be a count >= 0 or a percentage like `5%`"
            )),
        }
    }
}

/// Counts for one observed service pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PairCounts {
    /// `supp(i→j)`: occurrences of the sub-path `i,j` in transactions.
    pub support: u64,
    /// Spans with edge `i→j` by the edge rule (calls; used for the static dependency graph).
    pub calls: u64,
}

/// What mining counted: item and pair supports plus reading statistics.
#[derive(Debug, Clone, Default)]
pub struct Supports {
    services: Interner,
    items: Vec<u64>,
    pairs: FastMap<u64, PairCounts>,
    /// Number of transactions (root-to-leaf paths) seen.
    pub transactions: u64,
    pub traces: u64,
    pub spans: u64,
    /// Spans whose parent was missing from their trace (treated as roots).
    pub orphans: u64,
    /// Spans on or below a cycle of parent links (ignored).
    pub cyclic: u64,
    /// Spans repeating an earlier span id of their trace.
    pub duplicate_ids: u64,
}

fn pair_key(i: u32, j: u32) -> u64 {
    (u64::from(i) << 32) | u64::from(j)
}

fn unpair(key: u64) -> (u32, u32) {
    ((key >> 32) as u32, key as u32)
}

impl Supports {
    /// Service names; their positions are the ids used by [`Sdm`] rows.
    pub fn services(&self) -> &[String] {
        self.services.names()
    }

    /// `supp(service)`; 0 for an unknown service.
    pub fn support(&self, service: &str) -> u64 {
        self.services
            .get(service)
            .map_or(0, |i| self.items[i as usize])
    }

    /// `supp(from→to)`; 0 for an unobserved pair.
    pub fn pair_support(&self, from: &str, to: &str) -> u64 {
        self.pair(from, to).support
    }

    /// Both counts of a pair (zeros when unobserved).
    pub fn pair(&self, from: &str, to: &str) -> PairCounts {
        match (self.services.get(from), self.services.get(to)) {
            (Some(i), Some(j)) => self.pairs.get(&pair_key(i, j)).copied().unwrap_or_default(),
            _ => PairCounts::default(),
        }
    }

    /// Every observed pair `(from, to, counts)`, sorted by names.
    pub fn pairs(&self) -> Vec<(&str, &str, PairCounts)> {
        let mut v: Vec<_> = self
            .pairs
            .iter()
            .map(|(&k, &c)| {
                let (i, j) = unpair(k);
                (self.services.name(i), self.services.name(j), c)
            })
            .collect();
        v.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        v
    }

    /// The smallest and largest item frequency `supp(i)` over services with a non-zero support;
    /// `None` before any transaction.
    pub fn item_frequency_range(&self) -> Option<(u64, u64)> {
        let mut it = self.items.iter().copied().filter(|&s| s > 0);
        let first = it.next()?;
        Some(it.fold((first, first), |(lo, hi), s| (lo.min(s), hi.max(s))))
    }

    /// `steps` absolute thresholds evenly spaced from the smallest to the largest item frequency,
    /// both included (one value when `steps` is 1 or the range is a single value; empty without
    /// data). Experiment 1 uses `c_sweep(10)`.
    pub fn c_sweep(&self, steps: usize) -> Vec<Threshold> {
        let Some((lo, hi)) = self.item_frequency_range() else {
            return Vec::new();
        };
        if steps == 0 {
            return Vec::new();
        }
        if steps == 1 || lo == hi {
            return vec![Threshold::Absolute(lo as f64)];
        }
        let step = (hi - lo) as f64 / (steps - 1) as f64;
        (0..steps)
            .map(|k| {
                Threshold::Absolute(if k + 1 == steps {
                    hi as f64
                } else {
                    lo as f64 + step * k as f64
                })
            })
            .collect()
    }

    /// `c` as an absolute count.
    pub fn absolute(&self, c: Threshold) -> f64 {
        match c {
            Threshold::Absolute(c) => c,
            Threshold::Relative(f) => f * self.transactions as f64,
        }
    }

    /// The service dependency matrix for threshold `c` (see the module doc).
    pub fn sdm(&self, c: Threshold) -> Sdm {
        let c = self.absolute(c);
        let n = self.services.len();
        let mut rows: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for (&key, counts) in &self.pairs {
            let (i, j) = unpair(key);
            let item = self.items[i as usize];
            if counts.support as f64 > c && item > 0 {
                rows[i as usize].push((j, counts.support as f64 / item as f64));
            }
        }
        for row in &mut rows {
            row.sort_unstable_by_key(|&(j, _)| j);
        }
        Sdm {
            services: self.services.clone(),
            rows,
        }
    }
}

/// Consumes traces one at a time and accumulates [`Supports`].
#[derive(Debug, Default)]
pub struct Miner {
    supports: Supports,
    shape: TraceShape,
}

impl Miner {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one trace (all its spans; order does not matter).
    pub fn add_trace(&mut self, spans: &[SpanRecord]) {
        let s = &mut self.supports;
        self.shape.analyze(spans, &mut s.services);
        if s.items.len() < s.services.len() {
            s.items.resize(s.services.len(), 0);
        }
        for (i, n) in self.shape.path_items() {
            s.items[i as usize] += n;
        }
        for (i, j, n) in self.shape.path_pairs() {
            s.pairs.entry(pair_key(i, j)).or_default().support += n;
        }
        for (i, j) in self.shape.edges() {
            s.pairs.entry(pair_key(i, j)).or_default().calls += 1;
        }
        s.transactions += self.shape.path_count();
        s.traces += 1;
        s.spans += spans.len() as u64;
        s.orphans += self.shape.orphans() as u64;
        s.cyclic += self.shape.cyclic() as u64;
        s.duplicate_ids += self.shape.duplicate_ids() as u64;
    }

    /// Mines every remaining trace of `reader` on this thread.
    pub fn add_reader<R: BufRead>(
        &mut self,
        reader: &mut TraceReader<R>,
    ) -> Result<(), FormatError> {
        while let Some(trace) = reader.next_trace()? {
            self.add_trace(trace);
        }
        Ok(())
    }

    /// Like [`Miner::add_reader`], but parsing runs on a second thread while this one mines:
    /// parsing and mining cost about the same per record, so on two cores this nearly halves the
    /// time of the benchmark. Batches of spans are handed over and recycled through two bounded
    /// channels, so memory stays constant.
    pub fn add_reader_parallel<R: BufRead + Send>(
        &mut self,
        reader: &mut TraceReader<R>,
    ) -> Result<(), FormatError> {
        const BATCH_SPANS: usize = 8192;
        const IN_FLIGHT: usize = 4;
        let (full_tx, full_rx) = mpsc::sync_channel::<Batch>(IN_FLIGHT);
        let (empty_tx, empty_rx) = mpsc::sync_channel::<Batch>(IN_FLIGHT + 2);
        std::thread::scope(|scope| {
            let parser = scope.spawn(move || -> Result<(), FormatError> {
                // Spans are read straight into the batch's slots (no copy); a batch is cut only
                // where a trace ends, so the span that starts the next trace moves to the next batch.
                let mut batch = Batch::default();
                loop {
                    let at = batch.slot();
                    if !reader.next_span(&mut batch.spans[at])? {
                        break;
                    }
                    if at > 0 && batch.spans[at - 1].trace_id != batch.spans[at].trace_id {
                        batch.ends.push(at);
                        if at >= BATCH_SPANS {
                            let mut next = empty_rx.try_recv().unwrap_or_default();
                            next.slot();
                            std::mem::swap(&mut next.spans[0], &mut batch.spans[at]);
                            next.len = 1;
                            if full_tx.send(std::mem::replace(&mut batch, next)).is_err() {
                                return Ok(());
                            }
                            continue;
                        }
                    }
                    batch.len += 1;
                }
                if batch.len > 0 {
                    batch.ends.push(batch.len);
                    let _ = full_tx.send(batch);
                }
                Ok(())
            });
            for mut batch in full_rx {
                for trace in batch.traces() {
                    self.add_trace(trace);
                }
                batch.clear();
                let _ = empty_tx.try_send(batch);
            }
            parser
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    }

    pub fn supports(&self) -> &Supports {
        &self.supports
    }

    pub fn finish(self) -> Supports {
        self.supports
    }
}

/// Whole traces handed from the parsing thread to the mining one. Slots past `len` keep their
/// string buffers for reuse.
#[derive(Default)]
struct Batch {
    spans: Vec<SpanRecord>,
    len: usize,
    /// End (exclusive) of each trace in `spans`.
    ends: Vec<usize>,
}

impl Batch {
    /// The index of a free slot at `len`, creating it if needed.
    fn slot(&mut self) -> usize {
        if self.len == self.spans.len() {
            self.spans.push(SpanRecord::default());
        }
        self.len
    }

    fn traces(&self) -> impl Iterator<Item = &[SpanRecord]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts
            .zip(self.ends.iter().copied())
            .map(|(a, b)| &self.spans[a..b])
    }

    fn clear(&mut self) {
        self.len = 0;
        self.ends.clear();
    }
}

/// Mines a sequence of traces.
pub fn mine<T: AsRef<[SpanRecord]>>(traces: impl IntoIterator<Item = T>) -> Supports {
    let mut miner = Miner::new();
    for t in traces {
        miner.add_trace(t.as_ref());
    }
    miner.finish()
}

/// The service dependency matrix, stored sparsely: row `i` lists `(j, SDM[i][j])` for the
/// non-zero entries, `j` ascending. Ids are positions in [`Sdm::services`].
#[derive(Debug, Clone, Default)]
pub struct Sdm {
    services: Interner,
    rows: Vec<Vec<(u32, f64)>>,
}

impl Sdm {
    pub fn services(&self) -> &[String] {
        self.services.names()
    }

    pub fn index_of(&self, service: &str) -> Option<usize> {
        self.services.get(service).map(|i| i as usize)
    }

    /// The non-zero entries of row `i`.
    pub fn row(&self, i: usize) -> &[(u32, f64)] {
        self.rows.get(i).map_or(&[], Vec::as_slice)
    }

    /// `SDM[from][to]` by name (0 when absent).
    pub fn weight(&self, from: &str, to: &str) -> f64 {
        let (Some(i), Some(j)) = (self.services.get(from), self.services.get(to)) else {
            return 0.0;
        };
        let row = self.row(i as usize);
        row.binary_search_by_key(&j, |&(k, _)| k)
            .map_or(0.0, |pos| row[pos].1)
    }

    /// Every non-zero entry `(i, j, weight)`.
    pub fn entries(&self) -> impl Iterator<Item = (usize, usize, f64)> + '_ {
        self.rows
            .iter()
            .enumerate()
            .flat_map(|(i, row)| row.iter().map(move |&(j, w)| (i, j as usize, w)))
    }

    /// Number of non-zero entries.
    pub fn len(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::edges::span;

    /// Four services g, a, b, c in four traces:
    /// ```text
    /// t1: g -> a -> b          transactions: g,a,b   g,a,c
    ///          a -> c
    /// t2: g -> a -> b                        g,a,b
    /// t3: g -> c                             g,c
    /// t4: g -> g -> a -> a -> b (collapsed)  g,a,b
    /// ```
    /// supp: g 5, a 4, b 3, c 2; supp(g→a) 4, supp(a→b) 3, supp(a→c) 1, supp(g→c) 1.
    /// SDM (c = 0): g→a 4/5 = 0.8, g→c 1/5 = 0.2, a→b 3/4 = 0.75, a→c 1/4 = 0.25.
    /// With c = 1 only g→a and a→b stay (supports 4 and 3 exceed 1).
    pub(crate) fn four_service_traces() -> Vec<Vec<SpanRecord>> {
        vec![
            vec![
                span("t1", "1", None, "g"),
                span("t1", "2", Some("1"), "a"),
                span("t1", "3", Some("2"), "b"),
                span("t1", "4", Some("2"), "c"),
            ],
            vec![
                span("t2", "1", None, "g"),
                span("t2", "2", Some("1"), "a"),
                span("t2", "3", Some("2"), "b"),
            ],
            vec![span("t3", "1", None, "g"), span("t3", "2", Some("1"), "c")],
            vec![
                span("t4", "1", None, "g"),
                span("t4", "2", Some("1"), "g"),
                span("t4", "3", Some("2"), "a"),
                span("t4", "4", Some("3"), "a"),
                span("t4", "5", Some("4"), "b"),
            ],
        ]
    }

    #[test]
    fn supports_and_sdm_of_the_hand_computed_example() {
        let s = mine(four_service_traces());
        assert_eq!(s.transactions, 5);
        assert_eq!(
            [
                s.support("g"),
                s.support("a"),
                s.support("b"),
                s.support("c")
            ],
            [5, 4, 3, 2]
        );
        assert_eq!(s.pair_support("g", "a"), 4);
        assert_eq!(s.pair_support("a", "b"), 3);
        assert_eq!(s.pair_support("a", "c"), 1);
        assert_eq!(s.pair_support("g", "c"), 1);
        assert_eq!(s.pair_support("b", "a"), 0);
        // t4 has two spans of `a` under `g`: two calls by the edge rule, one path occurrence.
        assert_eq!(s.pair("g", "a").calls, 4);
        assert_eq!(s.item_frequency_range(), Some((2, 5)));

        let sdm = s.sdm(Threshold::Absolute(0.0));
        assert_eq!(sdm.weight("g", "a"), 0.8);
        assert_eq!(sdm.weight("g", "c"), 0.2);
        assert_eq!(sdm.weight("a", "b"), 0.75);
        assert_eq!(sdm.weight("a", "c"), 0.25);
        assert_eq!(sdm.len(), 4);

        let sdm = s.sdm(Threshold::Absolute(1.0));
        assert_eq!(sdm.len(), 2);
        assert_eq!(sdm.weight("a", "c"), 0.0);
        // Relative: 0.2 of 5 transactions is 1, the same cut.
        assert_eq!(s.sdm(Threshold::Relative(0.2)).len(), 2);
        // Nothing exceeds the largest item frequency.
        assert!(s.sdm(Threshold::Absolute(5.0)).is_empty());
    }

    #[test]
    fn repeated_service_in_one_transaction_counts_each_position() {
        // a -> b -> a -> b : one transaction a,b,a,b.
        let t = vec![
            span("t", "1", None, "a"),
            span("t", "2", Some("1"), "b"),
            span("t", "3", Some("2"), "a"),
            span("t", "4", Some("3"), "b"),
        ];
        let s = mine([t]);
        assert_eq!((s.support("a"), s.support("b")), (2, 2));
        assert_eq!((s.pair_support("a", "b"), s.pair_support("b", "a")), (2, 1));
        assert_eq!(s.sdm(Threshold::default()).weight("a", "b"), 1.0);
    }

    mod props {
        use super::*;
        use crate::edges::summarize;
        use proptest::prelude::*;
        use std::collections::HashMap;

        proptest! {
            /// The per-span counting equals the definition: occurrences in the materialised
            /// collapsed root-to-leaf paths.
            #[test]
            fn supports_count_occurrences_in_paths(
                traces in prop::collection::vec(prop::collection::vec((0usize..5, any::<prop::sample::Index>(), 0u8..8), 1..10), 1..8),
            ) {
                let traces: Vec<Vec<SpanRecord>> = traces.iter().enumerate().map(|(t, spans)| {
                    spans.iter().enumerate().map(|(i, &(svc, parent, kind))| {
                        // Mostly a random parent (before or after: cycles happen), sometimes a root or an orphan.
                        let parent = match kind { 0 => None, 1 => Some("nowhere".to_string()), _ => Some(parent.index(spans.len()).to_string()) };
                        span(&t.to_string(), &i.to_string(), parent.as_deref(), &format!("s{svc}"))
                    }).collect()
                }).collect();
                let mut items: HashMap<String, u64> = HashMap::new();
                let mut pairs: HashMap<(String, String), u64> = HashMap::new();
                let mut transactions = 0;
                for t in &traces {
                    for path in summarize(t).paths {
                        transactions += 1;
                        for s in &path {
                            *items.entry(s.clone()).or_default() += 1;
                        }
                        for w in path.windows(2) {
                            *pairs.entry((w[0].clone(), w[1].clone())).or_default() += 1;
                        }
                    }
                }
                let s = mine(&traces);
                prop_assert_eq!(s.transactions, transactions);
                for name in s.services() {
                    prop_assert_eq!(s.support(name), items.get(name).copied().unwrap_or(0));
                }
                let mined: HashMap<(String, String), u64> =
                    s.pairs().into_iter().filter(|p| p.2.support > 0).map(|(a, b, c)| ((a.to_string(), b.to_string()), c.support)).collect();
                prop_assert_eq!(mined, pairs);
                for (_, _, w) in s.sdm(Threshold::default()).entries() {
                    prop_assert!(w > 0.0 && w <= 1.0);
                }
            }
        }
    }

    #[test]
    fn thresholds_parse_as_counts_or_percentages() {
        assert_eq!("12".parse(), Ok(Threshold::Absolute(12.0)));
        assert_eq!("5%".parse(), Ok(Threshold::Relative(0.05)));
        assert!("-1".parse::<Threshold>().is_err());
        assert!("x%".parse::<Threshold>().is_err());
    }

    #[test]
    fn sweep_spans_the_item_frequency_range() {
        let s = mine(four_service_traces());
        let sweep = s.c_sweep(10);
        assert_eq!(sweep.len(), 10);
        assert_eq!(sweep[0], Threshold::Absolute(2.0));
        assert_eq!(sweep[9], Threshold::Absolute(5.0));
        assert!(mine(Vec::<Vec<SpanRecord>>::new()).c_sweep(10).is_empty());
    }
}
