#!/usr/bin/env python3
"""Reference values for ReflectEval's fixed-sample prediction-powered estimators, computed with ppi_py.

ppi_py (github.com/aangelopoulos/ppi_py, version 0.2.3, commit bd90caada03a1a3473eea62c53e39123371dedb8) is run
offline as a reference, never copied: bring its repository with the project's `fetch` tool, extract the package and
run this script with Debian's numpy, scipy, statsmodels, scikit-learn, numba, pandas and tqdm (ppi_py imports them):

    git -C /work/.mirror/aangelopoulos+ppi_py/repo archive bd90caada03a1a3473eea62c53e39123371dedb8 ppi_py \
        | tar -x -C /tmp/ppi_py_src
    LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/blas:/usr/lib/x86_64-linux-gnu/lapack \
        PYTHONPATH=/tmp/ppi_py_src /usr/bin/python3 scripts/parity/ppi_reference.py

(LD_LIBRARY_PATH points numpy at the reference BLAS where the Debian alternatives are not configured.)

Writes test/core/estimation/fixtures/ppi-reference.json: for each case its inputs (the arrays exactly as passed) and
ppi_py's outputs:
- `mean` cases: ppi_mean_pointestimate (lam=None), ppi_mean_ci (lam=None and, where given, a fixed lam), the λ
  ppi_py tunes (_calc_lam_glm as ppi_mean_ci calls it), classical_mean_ci;
- `difference` cases: the unpaired difference of two groups' means as ppi_ols_ci / ppi_ols_pointestimate with X =
  [1, 1{first group}] and coord=1, the λ of each step, classical_ols_ci;
- `ols` cases: ppi_ols_ci with a 3-column design and coord=None.

Data: the committed EvalReflections GPT-2 stage (data/evalreflections/annotations-gpt2-stage.csv; CC BY-NC): per
reflection, the experts' and the laypeople's majority vote (coherent when at least 2 of 3 say so) and share of
"coherent" labels; the labelled subset is a seeded uniform sample. Plus generated cases (normal, binary, a predictor
that is noise, one whose λ clips at 1).
"""
import csv
import json
import os
import sys

import numpy as np

import ppi_py
from ppi_py.ppi import _calc_lam_glm, _ols_get_stats

ALPHA = 0.05
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
rng = np.random.default_rng(20261207)


def reflections():
    """(context id, source, expert majority, expert share, lay majority, lay share) per reflection, in file order."""
    path = os.path.join(ROOT, "data", "evalreflections", "annotations-gpt2-stage.csv")
    rows = {}
    order = []
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            key = (r["annomi_dialogue_id"], r["reflection_source"], r["reflection"])
            if key not in rows:
                rows[key] = {"expert": [], "lay": []}
                order.append(key)
            group = "expert" if r["annotator"].lower().startswith("expert") else "lay"
            rows[key][group].append(1.0 if r["coherent_and_context_consistent"].strip().lower() == "yes" else 0.0)
    out = []
    for key in order:
        e = rows[key]["expert"]
        l = rows[key]["lay"]
        out.append(
            {
                "context": key[0],
                "source": key[1],
                "expertMajority": 1.0 if sum(e) * 2 > len(e) else 0.0,
                "expertShare": sum(e) / len(e),
                "layMajority": 1.0 if sum(l) * 2 > len(l) else 0.0,
                "layShare": sum(l) / len(l),
            }
        )
    return out


def floats(a):
    return [float(v) for v in np.asarray(a).ravel()]


def mean_lambda(Y, Yhat, Yu):
    """λ exactly as ppi_mean_ci computes it (lam=None)."""
    pe = ppi_py.ppi_mean_pointestimate(Y, Yhat, Yu, lam=1)
    Y2, Yh2, Yu2 = Y.reshape(-1, 1), Yhat.reshape(-1, 1), Yu.reshape(-1, 1)
    return float(_calc_lam_glm(Y2 - pe, Yh2 - pe, Yu2 - pe, np.eye(1), coord=None, clip=True))


def mean_case(name, Y, Yhat, Yu, fixed=None):
    Y, Yhat, Yu = (np.asarray(v, dtype=float) for v in (Y, Yhat, Yu))
    lo, hi = ppi_py.ppi_mean_ci(Y, Yhat, Yu, alpha=ALPHA)
    clo, chi = ppi_py.classical_mean_ci(Y, alpha=ALPHA)
    case = {
        "kind": "mean",
        "name": name,
        "y": floats(Y),
        "yhat": floats(Yhat),
        "yhatUnlabelled": floats(Yu),
        "lambda": mean_lambda(Y, Yhat, Yu),
        "pointEstimate": float(np.asarray(ppi_py.ppi_mean_pointestimate(Y, Yhat, Yu)).ravel()[0]),
        "lower": float(np.asarray(lo).ravel()[0]),
        "upper": float(np.asarray(hi).ravel()[0]),
        "classical": {"estimate": float(Y.mean()), "lower": float(clo), "upper": float(chi)},
        "fixed": [],
    }
    for lam in fixed or []:
        flo, fhi = ppi_py.ppi_mean_ci(Y, Yhat, Yu, alpha=ALPHA, lam=lam)
        case["fixed"].append(
            {
                "lambda": lam,
                "pointEstimate": float(np.asarray(ppi_py.ppi_mean_pointestimate(Y, Yhat, Yu, lam=lam)).ravel()[0]),
                "lower": float(np.asarray(flo).ravel()[0]),
                "upper": float(np.asarray(fhi).ravel()[0]),
            }
        )
    return case


def ols_lambdas(X, Y, Yhat, Xu, Yu, coord):
    """The two λ of ppi_ols_ci (lam=None): tuned at the λ=1 estimate (the point estimate's), then at the tuned estimate (the interval's)."""
    pilot = ppi_py.ppi_ols_pointestimate(X, Y, Yhat, Xu, Yu, lam=1)
    s = _ols_get_stats(pilot, X.astype(float), Y, Yhat, Xu.astype(float), Yu, use_unlabeled=True)
    lam1 = float(_calc_lam_glm(*s, coord, clip=True))
    tuned = ppi_py.ppi_ols_pointestimate(X, Y, Yhat, Xu, Yu, lam=None, coord=coord)
    s2 = _ols_get_stats(tuned, X.astype(float), Y, Yhat, Xu.astype(float), Yu, use_unlabeled=True)
    lam2 = float(_calc_lam_glm(*s2, coord, clip=True))
    return lam1, lam2


def difference_case(name, first, second):
    """first, second: (Y, Yhat, Yu) of each group; the difference is first − second."""
    (Y1, H1, U1), (Y2, H2, U2) = [[np.asarray(v, dtype=float) for v in g] for g in (first, second)]
    X = np.array([[1.0, 1.0]] * len(Y1) + [[1.0, 0.0]] * len(Y2))
    Xu = np.array([[1.0, 1.0]] * len(U1) + [[1.0, 0.0]] * len(U2))
    Y = np.concatenate([Y1, Y2])
    Yhat = np.concatenate([H1, H2])
    Yu = np.concatenate([U1, U2])
    lo, hi = ppi_py.ppi_ols_ci(X, Y, Yhat, Xu, Yu, alpha=ALPHA, coord=1)
    lam1, lam2 = ols_lambdas(X, Y, Yhat, Xu, Yu, 1)
    centre = ppi_py.ppi_ols_pointestimate(X, Y, Yhat, Xu, Yu, lam=lam2)
    point = ppi_py.ppi_ols_pointestimate(X, Y, Yhat, Xu, Yu, lam=None, coord=1)
    clo, chi = ppi_py.classical_ols_ci(X, Y, alpha=ALPHA)
    return {
        "kind": "difference",
        "name": name,
        "first": {"y": floats(Y1), "yhat": floats(H1), "yhatUnlabelled": floats(U1)},
        "second": {"y": floats(Y2), "yhat": floats(H2), "yhatUnlabelled": floats(U2)},
        "pointLambda": lam1,
        "pointEstimate": float(point[1]),
        "lambda": lam2,
        "estimate": float(centre[1]),
        "lower": float(lo[1]),
        "upper": float(hi[1]),
        "classical": {"estimate": float(Y1.mean() - Y2.mean()), "lower": float(clo[1]), "upper": float(chi[1])},
    }


def ols_case(name, X, Y, Yhat, Xu, Yu):
    X, Y, Yhat, Xu, Yu = (np.asarray(v, dtype=float) for v in (X, Y, Yhat, Xu, Yu))
    lo, hi = ppi_py.ppi_ols_ci(X, Y, Yhat, Xu, Yu, alpha=ALPHA)
    lam1, lam2 = ols_lambdas(X, Y, Yhat, Xu, Yu, None)
    centre = ppi_py.ppi_ols_pointestimate(X, Y, Yhat, Xu, Yu, lam=lam2)
    point = ppi_py.ppi_ols_pointestimate(X, Y, Yhat, Xu, Yu)
    return {
        "kind": "ols",
        "name": name,
        "x": [floats(r) for r in X],
        "y": floats(Y),
        "yhat": floats(Yhat),
        "xUnlabelled": [floats(r) for r in Xu],
        "yhatUnlabelled": floats(Yu),
        "pointLambda": lam1,
        "pointEstimate": floats(point),
        "lambda": lam2,
        "estimate": floats(centre),
        "lower": floats(lo),
        "upper": floats(hi),
    }


def main():
    refl = reflections()
    assert len(refl) == 150, len(refl)
    cases = []
    # EvalReflections: a uniform sample of 45 of the 150 reflections labelled by the experts, the laypeople's labels on all.
    labelled = np.zeros(len(refl), dtype=bool)
    labelled[rng.choice(len(refl), size=45, replace=False)] = True
    for estimand, (ycol, hcol) in {"majority": ("expertMajority", "layMajority"), "share": ("expertShare", "layShare")}.items():
        Y = [r[ycol] for r, l in zip(refl, labelled) if l]
        H = [r[hcol] for r, l in zip(refl, labelled) if l]
        U = [r[hcol] for r, l in zip(refl, labelled) if not l]
        cases.append(mean_case(f"evalreflections {estimand}: experts from laypeople, 45 of 150 labelled", Y, H, U, fixed=[0.0, 1.0, 0.5]))

    def group(source, ycol, hcol):
        Y = [r[ycol] for r, l in zip(refl, labelled) if l and r["source"] == source]
        H = [r[hcol] for r, l in zip(refl, labelled) if l and r["source"] == source]
        U = [r[hcol] for r, l in zip(refl, labelled) if not l and r["source"] == source]
        return Y, H, U

    for estimand, cols in {"majority": ("expertMajority", "layMajority"), "share": ("expertShare", "layShare")}.items():
        cases.append(difference_case(f"evalreflections {estimand}: GPT-2 − BART, unpaired", group("GPT-2", *cols), group("BART", *cols)))
        cases.append(difference_case(f"evalreflections {estimand}: Human − GPT-2, unpaired", group("Human", *cols), group("GPT-2", *cols)))

    # Generated cases.
    for i, (n, N, signal) in enumerate([(40, 200, 1.0), (120, 600, 0.3), (25, 25, 2.0), (300, 90, 0.8)]):
        y = rng.normal(size=n + N)
        yhat = signal * y + rng.normal(size=n + N)
        cases.append(mean_case(f"normal {i}: n={n}, N={N}, signal {signal}", y[:n], yhat[:n], yhat[n:], fixed=[0.3]))
    p = rng.uniform(0.1, 0.9, size=500)
    yb = (rng.uniform(size=500) < p).astype(float)
    cases.append(mean_case("binary: a calibrated probability predictor, n=80, N=420", yb[:80], p[:80], p[80:]))
    noise = rng.normal(size=500)
    cases.append(mean_case("binary: a noise predictor (lambda clips at 0)", yb[:80], noise[:80], noise[80:]))
    big = 3 * yb + 0.01 * rng.normal(size=500)
    cases.append(mean_case("binary: a predictor on another scale", yb[:80], big[:80], big[80:]))
    clip = 0.5 * yb + 0.02 * rng.normal(size=500)
    cases.append(mean_case("binary: a near-perfect predictor at half the scale, n=50, N=450 (lambda clips at 1)", yb[:50], clip[:50], clip[50:]))
    cases.append(mean_case("binary: a near-perfect predictor, n=200, N=300", yb[:200], yb[:200] + 0.05 * rng.normal(size=200), yb[200:] + 0.05 * rng.normal(size=300)))
    for i, (n1, n2, N1, N2) in enumerate([(30, 40, 120, 160), (12, 9, 60, 45)]):
        def g(n, N, shift):
            y = rng.normal(loc=shift, size=n + N)
            yh = 0.7 * y + rng.normal(scale=0.6, size=n + N)
            return y[:n], yh[:n], yh[n:]
        cases.append(difference_case(f"normal difference {i}", g(n1, N1, 0.4), g(n2, N2, 0.0)))
    Xall = np.column_stack([np.ones(400), rng.normal(size=400), rng.uniform(size=400)])
    yall = Xall @ np.array([0.5, 1.0, -2.0]) + rng.normal(size=400)
    hall = yall + rng.normal(scale=0.8, size=400)
    cases.append(ols_case("ols: three coefficients, coord=None", Xall[:100], yall[:100], hall[:100], Xall[100:], hall[100:]))

    out = {
        "source": "ppi_py 0.2.3 (github.com/aangelopoulos/ppi_py, commit bd90caada03a1a3473eea62c53e39123371dedb8)",
        "script": "scripts/parity/ppi_reference.py",
        "versions": {"numpy": np.__version__, "python": sys.version.split()[0]},
        "alpha": ALPHA,
        "cases": cases,
    }
    dest = os.path.join(ROOT, "test", "core", "estimation", "fixtures", "ppi-reference.json")
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {dest}")


if __name__ == "__main__":
    main()
