#!/usr/bin/env python3
"""Reference partitions for ReflectEval's semantic deduplication clustering, from scikit-learn.

    /usr/bin/python3 scripts/parity/agglomerative_reference.py     # Debian python3-sklearn 1.2.1, scipy 1.10

For each case, `AgglomerativeClustering(n_clusters=None, distance_threshold=t)` with its defaults for linkage and
metric (ward, euclidean) — what the first study (§4.2.1) ran on sentence embeddings — gives `labels_`; the
merge distances (`distances_`, scipy's Ward heights) are recorded too. sklearn cuts the tree into
`count(distances_ >= t) + 1` clusters, i.e. keeps exactly the merges whose distance is < t.

Cases: unit-normalised vectors (as sentence embeddings are) in seeded Gaussian clusters of several sizes,
dimensions and thresholds, some rounded to float32 as real embeddings are; exact duplicates (distance-0 ties);
merge heights just below and just above the threshold (±1e-9, ±1e-6); a pair exactly at the threshold; symmetric
configurations with tied distances (regular simplex, square, points on a line); sizes 2 and 3.

Output: test/core/dedup/fixtures/sklearn-agglomerative.json.
"""
import json
import os

import numpy as np
import scipy
import sklearn
from sklearn.cluster import AgglomerativeClustering

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "test", "core", "dedup", "fixtures", "sklearn-agglomerative.json")
rng = np.random.default_rng(20261123)
cases = []


def add(name, X, thresholds):
    """One case: vectors and, per threshold, sklearn's labels (plus the merge distances, which do not depend on t)."""
    X = np.asarray(X, dtype=np.float64)
    if len(X) < 2:
        raise ValueError(name)
    cuts, distances = [], None
    for t in thresholds if isinstance(thresholds, (list, tuple)) else [thresholds]:
        m = AgglomerativeClustering(n_clusters=None, distance_threshold=t).fit(X)
        cuts.append({"threshold": t, "labels": [int(l) for l in m.labels_], "nClusters": int(m.n_clusters_)})
        distances = [float(d) for d in m.distances_]
    cases.append({"name": name, "vectors": X.tolist(), "cuts": cuts, "distances": distances})


def unit(X, digits=8):
    """Unit rows, then every value rounded to `digits` significant digits (float32-like embeddings that print short;
    the rounded decimals are the case's vectors on both sides)."""
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    return np.vectorize(lambda v: float(f"{v:.{digits}g}"))(X)


for i in range(80):
    n = int(rng.integers(2, 53))
    dim = int(rng.choice([8, 16, 32]))
    k = int(rng.integers(1, max(2, n // 3) + 1))
    centers = rng.normal(size=(k, dim))
    spread = float(rng.choice([0.05, 0.15, 0.3, 0.6]))
    X = unit(centers[rng.integers(0, k, size=n)] + spread * rng.normal(size=(n, dim)))
    add(f"random-{i}", X, [0.7, float(rng.choice([0.3, 0.5, 1.0, 1.5]))])

# Exact duplicates (generated grids repeat texts across decoding settings; identical texts embed identically).
for i in range(10):
    n, dim = int(rng.integers(4, 30)), 16
    base = unit(rng.normal(size=(max(2, n // 3), dim)))
    X = base[rng.integers(0, len(base), size=n)]
    add(f"duplicates-{i}", X, 0.7)
add("all-identical", np.tile(unit(rng.normal(size=(1, 8))), (5, 1)), 0.7)

# Merge heights just around the threshold: take a random case, set t at a merge distance ± eps.
for i in range(20):
    n, dim = int(rng.integers(3, 25)), 16
    X = unit(rng.normal(size=(n, dim)) + 2.0 * rng.normal(size=(1, dim)))
    heights = AgglomerativeClustering(n_clusters=None, distance_threshold=0.0, compute_distances=True).fit(X).distances_
    h = float(heights[int(rng.integers(0, len(heights)))])
    add(f"near-threshold-{i}", X, [h + eps for eps in (1e-9, -1e-9, 1e-6, -1e-6)])

# A pair exactly at the threshold (0.75 is exact in binary, and so is sqrt(0.5625)): distance >= t splits.
add("pair-at-threshold", [[0.0, 0.0], [0.75, 0.0]], [0.75, 0.7500000000000001, 0.7499999999999999])

# Tied distances whose partition does not depend on the merge order, and chains where nearest-neighbour ties
# are broken in favour of the earlier pair.
simplex = np.eye(5)
add("simplex", simplex, [1.0, 1.4, 1.5])
add("square", [[0, 0], [1, 0], [0, 1], [1, 1]], [0.9, 1.2, 1.5, 2.0])
add("line", [[0.0], [1.0], [2.0], [3.0], [10.0]], [0.5, 1.2, 1.8, 3.0, 20.0])
add("two-points", [[1.0, 0.0], [0.0, 1.0]], 0.7)
add("three-points", [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.6, 0.8, 0.0]], 0.7)

os.makedirs(os.path.dirname(OUT), exist_ok=True)
json.dump({"generatedBy": "scripts/parity/agglomerative_reference.py", "sklearn": sklearn.__version__, "scipy": scipy.__version__,
           "numpy": np.__version__, "estimator": "AgglomerativeClustering(n_clusters=None, distance_threshold=t) (linkage='ward', metric='euclidean')",
           "cases": cases}, open(OUT, "w"))
print(f"{len(cases)} cases, {sum(len(c['vectors']) for c in cases)} vectors → {os.path.relpath(OUT, ROOT)} ({os.path.getsize(OUT) / 1e6:.2f} MB)")
