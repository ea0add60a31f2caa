"""BCa reference for ReflectEval's `bootstrapInterval` (src/core/stats/bootstrap.ts): scipy 1.10's own BCa
(`scipy.stats._resampling._bca_interval`, the jackknife over the clusters given as the data) on the resample
statistics ReflectEval computed (scripts/parity/bca_inputs.ts), and Hesterberg's expanded probabilities
(R package resample 0.6, `ExpandProbs`: Φ(√(m/(m−1))·t_{m−1}(p))) written out with scipy.stats.t and norm.

    /usr/bin/python3 scripts/parity/bca_reference.py /tmp/bca-inputs.json > test/core/stats/fixtures/bca-reference.json
"""
import json
import sys
import numpy as np
import scipy
from scipy import stats
from scipy.special import ndtr, ndtri
from scipy.stats._resampling import _bca_interval

inputs = json.load(open(sys.argv[1]))


def spearman_of_clusters(x, y, estimate):
    # On all clusters, ReflectEval's own estimate: scipy's agrees to 1e-15 (checked below), but resamples that draw
    # every context once equal ReflectEval's value exactly, and a one-ulp difference would move them across it in ẑ₀.
    def statistic(idx, axis=-1):
        idx = np.asarray(idx)
        if idx.ndim == 1 and len(idx) == len(x) and (idx == np.arange(len(x))).all():
            return estimate
        if idx.ndim == 1:
            xs = np.concatenate([x[i] for i in idx])
            ys = np.concatenate([y[i] for i in idx])
            return stats.spearmanr(xs, ys).correlation
        return np.array([statistic(row) for row in idx])
    return statistic


out = []
for case in inputs['cases']:
    x = [np.array(c, dtype=float) for c in case['x']]
    y = [np.array(c, dtype=float) for c in case['y']]
    m = len(x)
    theta_b = np.array([s for s in case['stats'] if s is not None])
    statistic = spearman_of_clusters(x, y, case['estimate'])
    scipy_estimate = float(stats.spearmanr(np.concatenate(x), np.concatenate(y)).correlation)
    assert abs(scipy_estimate - case['estimate']) < 1e-12, (scipy_estimate, case['estimate'])
    row = {'name': case['name'], 'm': m, 'estimate': scipy_estimate, 'jackknife': [float(statistic(np.delete(np.arange(m), i))) for i in range(m)]}
    for level in [0.9, 0.95]:
        alpha = (1 - level) / 2
        a1, a2, a_hat = _bca_interval((np.arange(m),), statistic, axis=-1, alpha=alpha, theta_hat_b=theta_b[None, :], batch=None)
        a1, a2, a_hat = float(np.squeeze(a1)), float(np.squeeze(a2)), float(np.squeeze(a_hat))
        # Hesterberg's expansion, then the same BCa adjustment with z replaced by the expanded quantile.
        p_exp = float(stats.norm.cdf(np.sqrt(m / (m - 1)) * stats.t.ppf(alpha, m - 1)))
        z0 = float(ndtri(((theta_b < case['estimate']).sum() + (theta_b <= case['estimate']).sum()) / (2 * len(theta_b))))
        def adjust(p):
            z = ndtri(p)
            return float(ndtr(z0 + (z0 + z) / (1 - a_hat * (z0 + z))))
        row[str(level)] = {
            'bca': [float(np.percentile(theta_b, a1 * 100)), float(np.percentile(theta_b, a2 * 100))],
            'acceleration': a_hat,
            'expandedProbability': p_exp,
            'expandedPercentile': [float(np.percentile(theta_b, p_exp * 100)), float(np.percentile(theta_b, (1 - p_exp) * 100))],
            'expandedBca': [float(np.percentile(theta_b, adjust(p_exp) * 100)), float(np.percentile(theta_b, adjust(1 - p_exp) * 100))],
        }
    out.append(row)
print(json.dumps({'generatedBy': 'scripts/parity/bca_reference.py', 'scipy': scipy.__version__, 'numpy': np.__version__, 'inputs': 'scripts/parity/bca_inputs.ts', 'cases': out}, indent=1))
