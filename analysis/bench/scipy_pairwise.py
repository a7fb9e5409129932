#!/usr/bin/env python3
"""The analysis benchmark's computation in SciPy, for `rigor bench analysis` to compare against.

Reads the synthetic results rigor wrote (little-endian f64, shape subjects x techniques x cells x
repetitions), then for every subject and cell compares every pair of techniques: Mann-Whitney U
(SciPy's default method) and Vargha-Delaney A12 = U1 / (m n), Holm-adjusts the p-values of each
(subject, cell), and writes the comparison table as CSV. Prints `seconds: <figure>` (the
computation and the table, not reading the input) and the first comparison for a cross-check.

Usage: scipy_pairwise.py DATA SUBJECTS TECHNIQUES CELLS REPETITIONS OUT_CSV
"""
import sys
import time

import numpy as np
from scipy.stats import mannwhitneyu


def holm(p):
    p = np.asarray(p, dtype=float)
    order = np.argsort(p, kind="stable")
    n = len(p)
    adjusted = np.minimum(1.0, np.maximum.accumulate((n - np.arange(n)) * p[order]))
    out = np.empty(n)
    out[order] = adjusted
    return out


def main():
    path, s, t, c, r, out = sys.argv[1], *map(int, sys.argv[2:6]), sys.argv[6]
    data = np.fromfile(path, dtype="<f8").reshape(s, t, c, r)
    start = time.perf_counter()
    rows = []
    first = None
    for si in range(s):
        for ci in range(c):
            pairs, ps = [], []
            for a in range(t):
                for b in range(a + 1, t):
                    x, y = data[si, a, ci], data[si, b, ci]
                    res = mannwhitneyu(x, y)
                    a12 = res.statistic / (len(x) * len(y))
                    pairs.append((a, b, res.statistic, a12))
                    ps.append(res.pvalue)
            for (a, b, u, a12), p, ph in zip(pairs, ps, holm(ps)):
                rows.append(f"s{si},c{ci},t{a},t{b},{a12:.6f},{p:.6g},{ph:.6g}")
                if first is None:
                    first = (u, p, a12)
    with open(out, "w") as f:
        f.write("subject,cell,a,b,a12,p,p_holm\n")
        f.write("\n".join(rows))
        f.write("\n")
    elapsed = time.perf_counter() - start
    print(f"first: u={first[0]!r} p={first[1]!r} a12={first[2]!r}")
    print(f"comparisons: {len(rows)}")
    print(f"seconds: {elapsed:.3f}")


if __name__ == "__main__":
    main()
