"""Reference adjusted p-values for ReflectEval's `adjustPValues` (src/core/stats/multipleTesting.ts): statsmodels
`multipletests(p, method='holm' | 'fdr_by').pvals_corrected` on random and hand-picked families (ties, zeros, ones,
tiny values, families of 1 to 40 tests, the sizes of a correlation table's column).

    /usr/bin/python3 scripts/parity/multiple_testing_reference.py > test/core/stats/fixtures/multipletests.json
"""
import json
import numpy as np
import scipy
import statsmodels
from statsmodels.stats.multitest import multipletests

rng = np.random.default_rng(40)
families = [
    [0.01],
    [0.0, 1.0],
    [0.04, 0.04, 0.04],
    [0.001, 0.01, 0.01, 0.2, 0.5, 1.0],
    [1e-12, 3e-9, 0.049, 0.051, 0.9],
    [0.5] * 12,
]
for size in [2, 3, 5, 8, 12, 20, 40]:
    for _ in range(6):
        kind = rng.integers(3)
        if kind == 0:
            p = rng.uniform(size=size)
        elif kind == 1:
            p = rng.beta(0.3, 3, size=size)  # many small p-values
        else:
            p = np.round(rng.uniform(size=size), 2)  # ties
        families.append([float(x) for x in p])

cases = []
for p in families:
    row = {'p': p}
    for method, name in [('holm', 'holm'), ('fdr_by', 'by')]:
        row[name] = [float(x) for x in multipletests(np.array(p), alpha=0.05, method=method)[1]]
    cases.append(row)
print(json.dumps({'generatedBy': 'scripts/parity/multiple_testing_reference.py', 'statsmodels': statsmodels.__version__, 'scipy': scipy.__version__, 'numpy': np.__version__, 'cases': cases}, indent=1))
