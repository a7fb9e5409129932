//! Every pairwise comparison of groups within each cell of a results frame: Mann-Whitney U,
//! its p-value, A12, and Holm-adjusted p-values per cell. The computation behind comparison
//! tables, and what `rigor bench analysis` times.

use polars::prelude::*;

use crate::stats::{compare, holm, CompareOptions};
use crate::table::{Cell, Table};

/// One comparison of group `a` against group `b` within one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct PairResult {
    /// The cell's key values, in the order of `keys`.
    pub cell: Vec<String>,
    pub a: String,
    pub b: String,
    pub u: f64,
    pub a12: f64,
    pub p: f64,
    /// Holm-adjusted over the comparisons of the same cell.
    pub p_holm: f64,
}

fn text_values(df: &DataFrame, name: &str) -> PolarsResult<Vec<String>> {
    let c = df.column(name)?.cast(&DataType::String)?;
    Ok(c.str()?.iter().map(|v| v.unwrap_or("").to_string()).collect())
}

/// The comparisons of one cell: every pair of groups in order of first appearance.
fn cell_pairs(part: &DataFrame, keys: &[&str], group: &str, value: &str, options: &CompareOptions) -> PolarsResult<Vec<PairResult>> {
    let cell: Vec<String> = keys.iter().map(|k| text_values(&part.head(Some(1)), k).map(|v| v[0].clone())).collect::<PolarsResult<_>>()?;
    let groups = part.partition_by_stable([group], true)?;
    let mut samples: Vec<(String, Vec<f64>)> = Vec::with_capacity(groups.len());
    for g in &groups {
        let name = text_values(&g.head(Some(1)), group)?.remove(0);
        let values: Vec<f64> = g.column(value)?.cast(&DataType::Float64)?.f64()?.into_no_null_iter().collect();
        samples.push((name, values));
    }
    let mut out = Vec::new();
    for i in 0..samples.len() {
        for j in i + 1..samples.len() {
            let (a, x) = &samples[i];
            let (b, y) = &samples[j];
            let (u, a12, p) = match compare(x, y, options) {
                Ok(c) => (c.u, c.a12, c.p),
                Err(_) => (f64::NAN, f64::NAN, f64::NAN),
            };
            out.push(PairResult { cell: cell.clone(), a: a.clone(), b: b.clone(), u, a12, p, p_holm: f64::NAN });
        }
    }
    let raw: Vec<f64> = out.iter().map(|r| r.p).collect();
    if let Ok(adjusted) = holm(&raw) {
        for (r, p) in out.iter_mut().zip(adjusted) {
            r.p_holm = p;
        }
    }
    Ok(out)
}

/// Compares every pair of `group` values on `value` within each cell of `keys`, on `threads`
/// threads. Cells come in order of first appearance.
pub fn all_pairs(df: &DataFrame, keys: &[&str], group: &str, value: &str, options: &CompareOptions, threads: usize) -> PolarsResult<Vec<PairResult>> {
    let cells = df.partition_by_stable(keys.iter().copied(), true)?;
    let threads = threads.clamp(1, cells.len().max(1));
    let chunk = cells.len().div_ceil(threads).max(1);
    let parts: Vec<PolarsResult<Vec<PairResult>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = cells
            .chunks(chunk)
            .map(|slice| {
                scope.spawn(move || {
                    let mut out = Vec::new();
                    for part in slice {
                        out.extend(cell_pairs(part, keys, group, value, options)?);
                    }
                    Ok(out)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("comparison thread panicked")).collect()
    });
    let mut out = Vec::new();
    for p in parts {
        out.extend(p?);
    }
    Ok(out)
}

/// The comparisons as a table (one row per pair).
pub fn pairs_table(name: &str, keys: &[&str], pairs: &[PairResult]) -> Table {
    let mut columns: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    columns.extend(["a", "b", "A12", "p", "p (Holm)"].map(String::from));
    let rows = pairs
        .iter()
        .map(|r| {
            let mut row: Vec<Cell> = r.cell.iter().map(|c| Cell::new(c.clone())).collect();
            row.push(Cell::new(r.a.clone()));
            row.push(Cell::new(r.b.clone()));
            row.push(Cell::new(format!("{:.3}", r.a12)));
            row.push(Cell::new(crate::table::p_value(r.p)));
            row.push(Cell::new(crate::table::p_value(r.p_holm)));
            row
        })
        .collect();
    Table {
        name: name.to_string(),
        caption: "Pairwise comparisons: A12 and Mann-Whitney p".into(),
        groups: Vec::new(),
        columns,
        label_columns: keys.len() + 2,
        rows,
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_per_cell_match_direct_comparisons() {
        let df = df!(
            "subject" => ["s", "s", "s", "s", "s", "s", "t", "t"],
            "tech" => ["a", "a", "b", "b", "c", "c", "a", "b"],
            "value" => [1.0, 2.0, 3.0, 4.0, 1.5, 2.5, 9.0, 9.0],
        )
        .unwrap();
        let o = CompareOptions::default();
        let pairs = all_pairs(&df, &["subject"], "tech", "value", &o, 2).unwrap();
        assert_eq!(pairs.len(), 3 + 1);
        let ab = &pairs[0];
        assert_eq!((ab.a.as_str(), ab.b.as_str()), ("a", "b"));
        let direct = compare(&[1.0, 2.0], &[3.0, 4.0], &o).unwrap();
        assert_eq!((ab.u, ab.a12, ab.p), (direct.u, direct.a12, direct.p));
        let holm_direct = holm(&pairs[..3].iter().map(|r| r.p).collect::<Vec<_>>()).unwrap();
        assert_eq!(pairs[..3].iter().map(|r| r.p_holm).collect::<Vec<_>>(), holm_direct);
        assert_eq!(pairs[3].cell, ["t"]);
        assert!(pairs[3].p.is_nan(), "one value each, tied: NaN");
        let t = pairs_table("x", &["subject"], &pairs);
        assert_eq!(t.rows.len(), 4);
    }
}
