#!/usr/bin/env python3
"""Reference values for ReflectEval's correlation table, bootstrap intervals and dependent-correlation tests,
computed independently of the TypeScript code with Debian's python3-scipy (1.10) and numpy.

    npx tsx scripts/parity/bootstrap_indices.ts                 # the resample indices ReflectEval draws
    /usr/bin/python3 scripts/parity/correlation_table_reference.py

Reads test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl and
test/core/correlation/fixtures/bootstrap-indices.json; writes test/core/correlation/fixtures/scipy-correlation-table.json:

- cells: for every method (spearman, pearson, kendall), human group (experts, laypeople, all) and column
  (origin.source of the candidate, only groups with a labelled response, then "all"): every evaluator's n, left-out
  count, statistic and p-value from scipy.stats.{spearmanr, pearsonr, kendalltau}; the laypeople-experts row;
- intervals: percentile bootstrap intervals (numpy.percentile, linear) of every cell for each method (experts),
  recomputed on the resamples of bootstrap-indices.json (items, not candidates, resampled), with the count of
  resamples where scipy gave nan;
- comparisons: for pairs of evaluators, r(A,H), r(B,H), r(A,B), the difference, Williams' t and Steiger's z (own
  implementation of the formulas below, independent of the TS one) and the paired bootstrap interval and p;
- formulas: Williams' t and Steiger's z on random (r_jk, r_jh, r_kh, n).

Williams (1959) as in Steiger (1980, p. 246, eq. 7):
    t = (r_jk - r_jh) * sqrt((n-1)(1+r_kh) / (2 (n-1)/(n-3) |R| + rbar^2 (1-r_kh)^3)),  df = n - 3
Steiger (1980, p. 247, eq. 14 with eq. 10 at the pooled rbar):
    z = (atanh r_jk - atanh r_jh) sqrt(n-3) / sqrt(2 - 2c),
    c = (r_kh (1 - 2 rbar^2) - rbar^2 (1 - 2 rbar^2 - r_kh^2) / 2) / (1 - rbar^2)^2
"""
import json
import math
import os
import warnings

import numpy as np
import scipy
from scipy import stats

warnings.simplefilter("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DATA = os.path.join(ROOT, "test", "fixtures", "correlation", "evalreflections-synthetic.dialogues.jsonl")
INDICES = os.path.join(ROOT, "test", "core", "correlation", "fixtures", "bootstrap-indices.json")
DEST = os.path.join(ROOT, "test", "core", "correlation", "fixtures", "scipy-correlation-table.json")
FUNCS = {"spearman": stats.spearmanr, "pearson": stats.pearsonr, "kendall": stats.kendalltau}

items = [json.loads(line) for line in open(DATA, encoding="utf-8") if line.strip()]
items = [it for it in items if it["candidates"]]


def is_expert(a):
    return a["group"].lower().startswith("expert") if a.get("group") else a["annotator"].startswith("Expert")


def coherence(c, group):
    labels = [a for a in c["annotations"] if isinstance(a.get("coherent"), bool)]
    if group == "experts":
        labels = [a for a in labels if is_expert(a)]
    elif group == "laypeople":
        labels = [a for a in labels if not is_expert(a)]
    return sum(1 for a in labels if a["coherent"]) if labels else None


def value(c, ev):
    s = c["scores"].get(ev)
    if s is None:
        return "absent"
    return float(s["value"]) if s["status"] == "ok" and isinstance(s["value"], (int, float)) else None


evaluators = sorted({ev for it in items for c in it["candidates"] for ev in c["scores"]})
labelled_sources = {c["origin"].get("source") for it in items for c in it["candidates"] if any(isinstance(a.get("coherent"), bool) for a in c["annotations"])}
columns = sorted(s for s in labelled_sources if s) + ["all"]


def in_column(c, col):
    return col == "all" or c["origin"].get("source") == col


def per_item(ev, col, group):
    """x, y per item, and the left-out count; ev None = the laypeople-experts reference."""
    xs, ys, left = [], [], 0
    for it in items:
        x, y = [], []
        for c in it["candidates"]:
            if not in_column(c, col):
                continue
            xv = coherence(c, "laypeople") if ev is None else value(c, ev)
            yv = coherence(c, "experts") if ev is None else coherence(c, group)
            if xv is None or xv == "absent" or yv is None:
                left += 1
                continue
            x.append(float(xv))
            y.append(float(yv))
        xs.append(x)
        ys.append(y)
    return xs, ys, left


def corr(method, x, y):
    if len(x) < 3:
        return None, None
    r, p = FUNCS[method](x, y)[:2]
    return (None, None) if np.isnan(r) else (float(r), float(p))


def flat(xs, idx):
    return [v for k in idx for v in xs[k]]


def interval(values, level=0.95):
    d = np.array([v for v in values if v is not None])
    if len(d) < 2:
        return None, None
    a = 1 - level
    return float(np.percentile(d, 100 * a / 2)), float(np.percentile(d, 100 * (1 - a / 2)))


def williams(rjk, rjh, rkh, n):
    det = 1 - rjk ** 2 - rjh ** 2 - rkh ** 2 + 2 * rjk * rjh * rkh
    rbar = (rjk + rjh) / 2
    t = (rjk - rjh) * math.sqrt((n - 1) * (1 + rkh) / (2 * (n - 1) / (n - 3) * det + rbar ** 2 * (1 - rkh) ** 3))
    return t, float(2 * stats.t.sf(abs(t), n - 3))


def steiger(rjk, rjh, rkh, n):
    rbar = (rjk + rjh) / 2
    c = (rkh * (1 - 2 * rbar ** 2) - 0.5 * rbar ** 2 * (1 - 2 * rbar ** 2 - rkh ** 2)) / (1 - rbar ** 2) ** 2
    z = (math.atanh(rjk) - math.atanh(rjh)) * math.sqrt(n - 3) / math.sqrt(2 - 2 * c)
    return z, float(2 * stats.norm.sf(abs(z)))


boot = json.load(open(INDICES))["cases"]
assert all(b["m"] == len(items) for b in boot), "bootstrap-indices.json was drawn for another number of items"
cells = []
for method in FUNCS:
    for group in ("experts", "laypeople", "all"):
        for ev in [None] + evaluators:
            for col in columns:
                xs, ys, left = per_item(ev, col, group)
                r, p = corr(method, flat(xs, range(len(items))), flat(ys, range(len(items))))
                cell = {"method": method, "human": group, "evaluator": ev or "human:laypeople-vs-experts", "column": col, "n": sum(map(len, xs)), "excluded": left, "statistic": r, "pValue": p}
                if group == "experts":
                    b = boot[0]
                    sts = [corr(method, flat(xs, idx), flat(ys, idx))[0] for idx in b["indices"]]
                    lo, hi = interval(sts)
                    cell["interval"] = {"seed": b["seed"], "resamples": b["resamples"], "lower": lo, "upper": hi, "undefinedResamples": sum(1 for s in sts if s is None)}
                cells.append(cell)

PAIRS = [
    ("judge:api:gpt-3.5-turbo:instructions×rating@a1b2c3d4e5f6", "judge:api:gpt-3.5-turbo:instructions×scoring@0f1e2d3c4b5a"),
    ("metric:followUpLikelihood.You're not understanding me!@model:blenderbot-400M-distill|rv:0.1.0", "metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0"),
]
comparisons = []
for method in FUNCS:
    for a, b in PAIRS:
        for col in columns:
            A, B, H = [], [], []
            for it in items:
                ra, rb, rh = [], [], []
                for c in it["candidates"]:
                    va, vb, h = value(c, a), value(c, b), coherence(c, "experts")
                    if not in_column(c, col) or va in (None, "absent") or vb in (None, "absent") or h is None:
                        continue
                    ra.append(va)
                    rb.append(vb)
                    rh.append(float(h))
                A.append(ra)
                B.append(rb)
                H.append(rh)
            all_idx = range(len(items))
            rA = corr(method, flat(A, all_idx), flat(H, all_idx))[0]
            rB = corr(method, flat(B, all_idx), flat(H, all_idx))[0]
            rAB = corr(method, flat(A, all_idx), flat(B, all_idx))[0]
            n = sum(map(len, A))
            out = {"method": method, "a": a, "b": b, "column": col, "n": n, "rA": rA, "rB": rB, "rAB": rAB, "difference": rA - rB}
            if method != "kendall":
                out["williams"] = dict(zip(("statistic", "pValue"), williams(rA, rB, rAB, n)))
                out["steiger"] = dict(zip(("statistic", "pValue"), steiger(rA, rB, rAB, n)))
            bc = boot[1]
            diffs = []
            for idx in bc["indices"]:
                x = corr(method, flat(A, idx), flat(H, idx))[0]
                y = corr(method, flat(B, idx), flat(H, idx))[0]
                diffs.append(None if x is None or y is None else x - y)
            lo, hi = interval(diffs)
            d = [v for v in diffs if v is not None]
            p = min(1.0, 2 * (1 + min(sum(1 for v in d if v <= 0), sum(1 for v in d if v >= 0))) / (len(d) + 1))
            out["bootstrap"] = {"seed": bc["seed"], "resamples": bc["resamples"], "lower": lo, "upper": hi, "pValue": p, "undefinedResamples": len(diffs) - len(d)}
            comparisons.append(out)

rng = np.random.default_rng(1980)
formulas = []
while len(formulas) < 200:
    rjk, rjh, rkh = rng.uniform(-0.95, 0.95, size=3)
    if 1 - rjk ** 2 - rjh ** 2 - rkh ** 2 + 2 * rjk * rjh * rkh <= 0:
        continue  # not a valid correlation matrix
    n = int(rng.integers(5, 400))
    wt, wp = williams(rjk, rjh, rkh, n)
    sz, sp = steiger(rjk, rjh, rkh, n)
    formulas.append({"rjk": float(rjk), "rjh": float(rjh), "rkh": float(rkh), "n": n, "williams": {"statistic": wt, "pValue": wp}, "steiger": {"statistic": sz, "pValue": sp}})

with open(DEST, "w") as f:
    json.dump({"scipy": scipy.__version__, "numpy": np.__version__, "columns": columns, "cells": cells, "comparisons": comparisons, "formulas": formulas}, f)
print(f"wrote {len(cells)} cells, {len(comparisons)} comparisons, {len(formulas)} formula cases to {os.path.relpath(DEST, ROOT)}")
