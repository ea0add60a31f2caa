#!/usr/bin/env python3
"""Reference values for ReflectEval's correlation statistics, computed with scipy.

    /usr/bin/python3 scripts/parity/stats_reference.py      # Debian python3-scipy (1.10) and python3-numpy

Writes test/core/stats/fixtures/scipy-correlation.json: seeded cases shaped like ReflectEval's data (coherence
scores 0..3 or 0..6 against continuous or Likert evaluator scores, many ties), untied cases of every size around
scipy's exact/asymptotic switch for Kendall's tau (n ≤ 33), perfectly monotone cases, constant columns and small
hand-picked ones, with scipy's spearmanr, pearsonr and kendalltau (tau-b, method 'auto') statistic and p-value
(null where scipy gives nan).
"""
import json
import os
import warnings

import numpy as np
import scipy
from scipy import stats

warnings.simplefilter("ignore")
rng = np.random.default_rng(20261122)
cases = []


def add(name, x, y):
    x = [float(v) for v in x]
    y = [float(v) for v in y]
    out = {"name": name, "x": x, "y": y}
    for method, fn in (("spearman", stats.spearmanr), ("pearson", stats.pearsonr), ("kendall", stats.kendalltau)):
        res = fn(x, y)
        r, p = float(res[0]), float(res[1])
        out[method] = {"statistic": None if np.isnan(r) else r, "pValue": None if np.isnan(p) else p}
    cases.append(out)


for i in range(300):
    n = int(rng.integers(3, 241))
    kind = i % 5
    human = rng.integers(0, 4 if i % 2 else 7, size=n)
    if kind == 0:
        ev = human + rng.normal(0, 1.5, size=n)
    elif kind == 1:
        ev = rng.integers(1, 6, size=n)  # a 1-5 rating judge, heavy ties
    elif kind == 2:
        ev = np.round(rng.uniform(0, 1, size=n), 3)  # BLEU-like, some ties
    elif kind == 3:
        ev = -human * 10 + rng.integers(0, 30, size=n)  # a 0-100 scoring judge
    else:
        ev = rng.normal(size=n)
    add(f"random-{i}", ev, human)
for n in list(range(3, 41)) + [60, 120, 200]:  # no ties: exact p up to n = 33, asymptotic above
    add(f"untied-{n}", rng.permutation(n), rng.permutation(n) + 0.5 * rng.permutation(n) / n)
add("untied-one-discordant", list(range(40)), list(range(38)) + [39, 38])
add("perfect", [1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
add("perfect-negative", [1, 2, 3, 4, 5], [9, 7, 5, 3, 1])
add("monotone-with-ties", [1, 1, 2, 3], [0, 0, 1, 2])
add("constant-y", [1, 2, 3, 4], [2, 2, 2, 2])
add("constant-x", [5, 5, 5], [1, 2, 3])
add("three", [1, 2, 3], [1, 3, 2])
add("ties-both", [1, 2, 2, 3, 3, 3], [3, 3, 1, 2, 2, 0])
add("large-values", [1e12, 2e12 + 1, 3e12 - 7, 4e12], [0.001, 0.003, 0.002, 0.004])
# Ties and constant columns as the correlation table meets them (issue 7).
add("constant-both", [2, 2, 2, 2, 2], [0, 0, 0, 0, 0])
add("constant-metric-vs-coherence", [0.25] * 12, [0, 1, 2, 3, 3, 2, 1, 0, 3, 3, 2, 1])
add("one-differing-value", [1, 1, 1, 1, 1, 1, 2], [0, 3, 1, 2, 3, 0, 3])
add("binary-vs-binary", [0, 1, 1, 0, 1, 0, 1, 1], [1, 1, 0, 0, 1, 0, 1, 1])
add("likert-vs-coherence-all-tied-pairs", [1, 1, 5, 5, 3, 3, 3, 1, 5, 3], [0, 0, 3, 3, 2, 2, 2, 0, 3, 2])
add("three-with-ties", [1, 1, 2], [1, 2, 2])
add("judge-rating-vs-experts-240", list(np.resize([1, 2, 3, 4, 5, 5, 4, 3], 240)), list(np.resize([0, 1, 2, 3, 3, 2, 1], 240)))

here = os.path.dirname(os.path.abspath(__file__))
dest = os.path.join(here, "..", "..", "test", "core", "stats", "fixtures", "scipy-correlation.json")
with open(dest, "w") as f:
    json.dump({"scipy": scipy.__version__, "numpy": np.__version__, "cases": cases}, f)
print(f"wrote {len(cases)} cases to {os.path.normpath(dest)}")
