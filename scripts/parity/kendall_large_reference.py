#!/usr/bin/env python3
"""Reference values for Kendall's tau-b at the size of a real study (3,172 responses in 195 items), with scipy.

    python3 scripts/parity/kendall_large_reference.py      # Debian python3-scipy and python3-numpy

Writes test/core/stats/fixtures/scipy-kendall-large.json: per-item columns of two evaluators (a: a continuous
BLEU-like score with ties, b: a 1-5 rating judge) and the human coherence score h (the mean of three 0-3 labels,
heavy ties); scipy.stats.kendalltau (tau-b, method 'auto') of a and b against h on all responses, and on five item
bootstrap resamples (items drawn with replacement, their responses concatenated) — what ReflectEval's O(n log n)
kendallTauB and the weighted bootstrap path (kendallTauBWeighted) must reproduce to 1e-9.
"""
import json
import os
import warnings

import numpy as np
import scipy
from scipy import stats

warnings.simplefilter("ignore")
rng = np.random.default_rng(20261125)
m = 195
sizes = rng.integers(8, 25, size=m)
sizes[-1] += 3172 - int(sizes.sum())  # exactly 3,172 responses
assert sizes.min() > 0 and int(sizes.sum()) == 3172
n = int(sizes.sum())
h = rng.integers(0, 4, size=(n, 3)).mean(axis=1)
a = np.round(np.clip(h / 3 + rng.normal(0, 0.35, size=n), 0, 1), 3)
b = np.clip(np.round(1 + h * 4 / 3 + rng.normal(0, 1.2, size=n)), 1, 5)
offsets = np.concatenate([[0], np.cumsum(sizes)])
items = [list(range(int(offsets[k]), int(offsets[k + 1]))) for k in range(m)]


def tau(x, y):
    res = stats.kendalltau(x, y)
    return {"statistic": float(res[0]), "pValue": float(res[1])}


resamples = []
for _ in range(5):
    idx = rng.integers(0, m, size=m)
    rows = [r for k in idx for r in items[k]]
    resamples.append({"items": [int(k) for k in idx], "a": tau(a[rows], h[rows])["statistic"], "b": tau(b[rows], h[rows])["statistic"]})

out = {
    "scipy": scipy.__version__,
    "numpy": np.__version__,
    "sizes": [int(s) for s in sizes],
    "a": [float(v) for v in a],
    "b": [float(v) for v in b],
    "h": [float(v) for v in h],
    "full": {"a": tau(a, h), "b": tau(b, h)},
    "resamples": resamples,
}
here = os.path.dirname(os.path.abspath(__file__))
dest = os.path.join(here, "..", "..", "test", "core", "stats", "fixtures", "scipy-kendall-large.json")
with open(dest, "w") as f:
    json.dump(out, f)
print(f"wrote {n} responses in {m} items, {len(resamples)} resamples to {os.path.normpath(dest)}")
