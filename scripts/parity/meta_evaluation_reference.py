"""Reference values for the meta-evaluation statistics (src/core/metaEvaluation/*, src/core/agreement/*, src/core/stats/{tTest,multipleTesting,
partialCorrelation}.ts), written to test/core/metaEvaluation/fixtures/meta-evaluation-reference.json.

Run with Debian's python (statsmodels 0.13.5, scipy 1.10.1, numpy 1.24, sklearn):

    KRIPPENDORFF_SRC=<dir holding the krippendorff/ package of pln-fing-udelar/fast-krippendorff> \
    ALTTEST_NOTEBOOK=<path of alt_test_example.ipynb of nitaytech/AltTest> \
    EVALREFLECTIONS_CSV=<annotations-gpt2-stage.csv> EVALREFLECTIONS_SCORED=<scored *.dialogues.jsonl> \
    /usr/bin/python3 scripts/parity/meta_evaluation_reference.py

The two public reference implementations are fetched separately and only *run* here (imported from the given
paths); nothing of them is copied into this repository. The scored dialogue file comes from ReflectEval's own CLI:
    reflect-eval import annotations annotations-gpt2-stage.csv --reference -o er.dialogues.jsonl
    reflect-eval score er.dialogues.jsonl && reflect-eval judge er.dialogues.jsonl
Its evaluator scores are inputs of the alt-test parity only (the alt-test is what is compared).

References per statistic:
- Cohen's kappa (unweighted, linear, quadratic; standard errors), Fleiss' kappa: statsmodels 0.13.5.
- Krippendorff's alpha: the `krippendorff` package (fast-krippendorff) on numpy.
- Gwet's AC1: the formula of Gwet (2008) / Gwet (2014, §4.2) written out below, independently of the
  TypeScript; R irrCAC (Gwet's own package) is run by psych_reference.R as a second reference.
- one-sample t-test: scipy.stats.ttest_1samp(alternative='less'); Benjamini–Yekutieli and the alt-test: the
  reference notebook's `by_procedure` and `alt_test` (its t-test is scipy's), with its `ttest` wrapped to record the
  per-annotator p-values.
- partial Spearman: scipy.stats.rankdata + least-squares residuals (not the closed formula the TypeScript uses).
- confusion against the majority label: sklearn.metrics.
"""
import csv
import hashlib
import json
import os
import sys
import warnings

import numpy as np
import scipy
import sklearn
import statsmodels
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_score, recall_score
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "test", "core", "metaEvaluation", "fixtures", "meta-evaluation-reference.json")

sys.path.insert(0, os.environ["KRIPPENDORFF_SRC"])
import krippendorff  # noqa: E402  (the reference, from the fetched repository)

warnings.simplefilter("ignore")
rng = np.random.default_rng(20261124)


def fnum(x):
    """A float for JSON: nan becomes null, +-inf the strings "Infinity"/"-Infinity" (JSON has neither)."""
    x = float(x)
    if np.isnan(x):
        return None
    if np.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def tcode(v):
    return None if v is None else v


# ---------------------------------------------------------------- Cohen's kappa (statsmodels)
def cohen_case(name, a, b, categories=None):
    pairs = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
    cats = categories if categories is not None else sorted({x for p in pairs for x in p})
    idx = {c: i for i, c in enumerate(cats)}
    k = len(cats)
    table = np.zeros((k, k))
    for x, y in pairs:
        table[idx[x], idx[y]] += 1
    out = {"name": name, "a": a, "b": b, "categories": categories, "table": table.tolist()}
    for w in ("none", "linear", "quadratic"):
        try:
            r = cohens_kappa(table) if w == "none" else cohens_kappa(table, wt=w)
            out[w] = {"kappa": fnum(r.kappa), "se": fnum(r.std_kappa), "se0": fnum(r.std_kappa0)}
        except Exception as e:  # noqa: BLE001 (k = 1: division by zero in the weights)
            out[w] = {"kappa": None, "se": None, "se0": None, "error": type(e).__name__}
    return out


cohen = []
for i in range(60):
    k = int(rng.integers(2, 7))
    n = int(rng.integers(5, 80))
    truth = rng.integers(1, k + 1, n)
    noise = rng.random(n) < rng.uniform(0.1, 0.7)
    a = [int(v) for v in truth]
    b = [int(rng.integers(1, k + 1)) if z else int(v) for v, z in zip(truth, noise)]
    miss = rng.random(n) < (0.15 if i % 2 else 0)
    b = [None if m else v for v, m in zip(b, miss)]
    cohen.append(cohen_case(f"random-{i}", a, b))
cohen.append(cohen_case("declared-scale-1-5", [1, 2, 2, 3, 5, 5, 4], [1, 2, 3, 3, 5, 4, 4], [1, 2, 3, 4, 5, 6]))
cohen.append(cohen_case("all-agree-two-categories", ["x", "y", "x", "y"], ["x", "y", "x", "y"]))
cohen.append(cohen_case("one-category", ["x", "x", "x"], ["x", "x", "x"]))
cohen.append(cohen_case("strings", ["coherent", "incoherent", "coherent", "coherent", "incoherent"], ["coherent", "coherent", "coherent", "incoherent", "incoherent"]))

# ---------------------------------------------------------------- Fleiss' kappa (statsmodels), 2..9 raters
fleiss = []
for i in range(30):
    n_rat = 2 + i % 8
    n_cat = int(rng.integers(2, 6))
    p = rng.dirichlet(np.full(n_cat, 0.5 if i % 2 else 2.0))
    counts = np.array([rng.multinomial(n_rat, p) for _ in range(int(rng.integers(3, 50)))])
    fleiss.append({"name": f"raters-{n_rat}-{i}", "counts": counts.tolist(), "kappa": fnum(fleiss_kappa(counts, method="fleiss"))})


# ---------------------------------------------------------------- Gwet's AC1, written out from Gwet (2008) / (2014)
def gwet_ac1(data, categories):
    """data: units x raters, None missing. p_a over units with r_i >= 2; pi_k over units with r_i >= 1."""
    q = len(categories)
    pa_terms, pis = [], np.zeros(q)
    n_units = 0
    for row in data:
        vals = [v for v in row if v is not None]
        r = len(vals)
        if r == 0:
            continue
        n_units += 1
        counts = np.array([sum(1 for v in vals if v == c) for c in categories], dtype=float)
        pis += counts / r
        if r >= 2:
            pa_terms.append(float((counts * (counts - 1)).sum() / (r * (r - 1))))
    if not pa_terms:
        return None, None, None
    pa = float(np.mean(pa_terms))
    pi = pis / n_units
    pe = float((pi * (1 - pi)).sum() / (q - 1)) if q >= 2 else 0.0
    return (pa - pe) / (1 - pe), pa, pe


# ---------------------------------------------------------------- reliability data: alpha and AC1
def alpha_ref(data, level, domain=None):
    arr = np.array([[np.nan if v is None else v for v in row] for row in data], dtype=float).T  # coders x units
    try:
        kw = {"level_of_measurement": level}
        if domain is not None:
            kw["value_domain"] = domain
        return fnum(krippendorff.alpha(reliability_data=arr, **kw)), None
    except ValueError as e:
        return None, str(e)


reliability = []
for i in range(80):
    coders = 2 + i % 8
    units = int(rng.integers(4, 60))
    V = 1 + i % 6 if i % 13 else 1
    latent = rng.integers(1, V + 1, units)
    noise = rng.uniform(0.0, 0.8)
    data = []
    for u in range(units):
        row = []
        for c in range(coders):
            v = int(latent[u]) if rng.random() > noise else int(rng.integers(1, V + 1))
            row.append(None if rng.random() < (0.25 if i % 3 == 0 else 0.05 if i % 3 == 1 else 0) else v)
        data.append(row)
    case = {"name": f"random-{i}", "data": data}
    for level in ("nominal", "ordinal", "interval", "ratio"):
        a, err = alpha_ref(data, level)
        case[level] = a
        if err:
            case[level + "Error"] = err
    cats = sorted({v for row in data for v in row if v is not None})
    ac1, pa, pe = gwet_ac1(data, cats)
    case["ac1"] = {"value": ac1, "pa": pa, "pe": pe, "categories": cats}
    reliability.append(case)
# the package's docstring examples (Krippendorff 2011), all-agree, ties, a declared domain, strings
kdoc = [[None, None, None, None, None, 3, 4, 1, 2, 1, 1, 3, 3, None, 3],
        [1, None, 2, 1, 3, 3, 4, 3, None, None, None, None, None, None, None],
        [None, None, 2, 1, 3, 4, 4, None, 2, 1, 1, 3, 3, None, 4]]
special = [
    ("krippendorff-2011-example", [list(u) for u in zip(*kdoc)], None),
    ("all-agree", [[1, 1, 1], [2, 2, 2], [3, 3, None]], None),
    ("one-value", [[2, 2], [2, 2], [2, None]], None),
    ("no-pairable-unit", [[1, None], [None, 2], [3, None]], None),
    ("declared-domain-1-5", [[1, 2, 2], [4, 4, 5], [5, 5, 5], [2, 3, 2]], [1, 2, 3, 4, 5]),
]
for name, data, domain in special:
    case = {"name": name, "data": data, "domain": domain}
    for level in ("nominal", "ordinal", "interval", "ratio"):
        a, err = alpha_ref(data, level, domain)
        case[level] = a
        if err:
            case[level + "Error"] = err
    cats = domain if domain is not None else sorted({v for row in data for v in row if v is not None})
    ac1, pa, pe = gwet_ac1(data, cats)
    case["ac1"] = {"value": ac1, "pa": pa, "pe": pe, "categories": cats}
    reliability.append(case)
sdata = [["coherent", "incoherent", None], ["coherent", "coherent", "coherent"], ["incoherent", "incoherent", "coherent"], [None, "incoherent", "incoherent"]]
s_arr = np.array([[("nan" if v is None else v) for v in row] for row in sdata]).T
ac1, pa, pe = gwet_ac1(sdata, ["coherent", "incoherent"])
reliability.append({"name": "strings-nominal", "data": sdata, "nominal": fnum(krippendorff.alpha(reliability_data=s_arr, level_of_measurement="nominal")),
                    "ac1": {"value": ac1, "pa": pa, "pe": pe, "categories": ["coherent", "incoherent"]}})

# ---------------------------------------------------------------- ICC inputs (values from psych_reference.R)
icc_cases = []
for i in range(25):
    n = int(rng.integers(3, 40))
    k = 2 + i % 8
    subj = rng.normal(0, 1.5, n)
    rater = rng.normal(0, 0.7, k)
    x = subj[:, None] + rater[None, :] + rng.normal(0, 1, (n, k))
    if i % 2:
        x = np.clip(np.round(x + 3), 1, 5)  # Likert 1-5 with ties
    icc_cases.append({"name": f"random-{i}", "data": x.tolist()})
icc_cases.append({"name": "shrout-fleiss-1979-table-2", "data": [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]})

# ---------------------------------------------------------------- t-test and BY (scipy; the notebook's procedure)
nb = json.load(open(os.environ["ALTTEST_NOTEBOOK"]))
ns = {}
for cell in nb["cells"][1:3]:  # the imports and the definitions of the reference implementation
    exec("".join(cell["source"]), ns)  # noqa: S102 (runs the fetched reference; nothing is copied)
recorded = []
_ref_ttest = ns["ttest"]


def recording_ttest(indicators, epsilon):
    p = _ref_ttest(indicators, epsilon)
    recorded.append({"d": [int(v) for v in indicators], "p": fnum(p)})
    return p


ns["ttest"] = recording_ttest

ttests = []
for i in range(20):
    n = int(rng.integers(2, 60))
    d = [int(v) for v in rng.choice([-1, 0, 1], n, p=rng.dirichlet([1, 1, 1]))]
    eps = float([0, 0.1, 0.15, 0.2][i % 4])
    r = stats.ttest_1samp(d, eps, alternative="less")
    ttests.append({"x": d, "popmean": eps, "t": fnum(r.statistic), "p": fnum(r.pvalue)})
for d, eps in (([0, 0, 0, 0], 0.2), ([1, 1, 1], 0.2), ([0.2, 0.2, 0.2], 0.2)):
    r = stats.ttest_1samp(d, eps, alternative="less")
    ttests.append({"x": d, "popmean": eps, "t": fnum(r.statistic), "p": fnum(r.pvalue)})

by = []
for i in range(20):
    m = int(rng.integers(1, 12))
    p = [float(v) for v in rng.uniform(0, 0.05 if i % 2 else 0.3, m)]
    if i % 5 == 0 and m > 1:
        p[0] = p[1]  # a tie
    q = [0.05, 0.1][i % 2]
    by.append({"p": p, "q": q, "rejected": sorted(int(v) for v in ns["by_procedure"](p, q))})


def run_alt(humans, llm, scoring, eps, q=0.05, min_inst=30):
    recorded.clear()
    wr, ap = ns["alt_test"](llm, humans, scoring, epsilon=eps, q_fdr=q, min_instances_per_human=min_inst)
    return {"winningRate": fnum(wr), "advantageProbability": fnum(ap), "pValues": [r["p"] for r in recorded], "diffMeans": [float(np.mean(r["d"])) for r in recorded]}


alt = []
# synthetic tables: the paper's simulation design (priors, noisy annotators, noisy evaluator), categories and ratings
for i in range(8):
    n_items, n_h, K = 60 + 10 * i, 3 + i % 3, 2 + i % 4
    priors = rng.dirichlet(np.ones(K))
    gold = rng.choice(K, n_items, p=priors)
    def noisy(noise):
        out = []
        for g in gold:
            pr = priors * noise
            pr[g] += 1 - noise
            out.append(int(rng.choice(K, p=pr / pr.sum())))
        return out
    humans = {f"h{j}": {f"i{t}": v for t, v in enumerate(noisy(0.3)) if rng.random() > 0.1} for j in range(n_h)}
    llm = {f"i{t}": v for t, v in enumerate(noisy([0.1, 0.3, 0.6, 0.9][i % 4]))}
    scoring = "accuracy" if i % 2 == 0 else "neg_rmse"
    eps = [0.2, 0.1, 0.15, 0.0][i % 4]
    alt.append({"name": f"synthetic-{i}", "humans": humans, "evaluator": llm, "scoring": scoring, "epsilon": eps, "q": 0.05, **run_alt(humans, llm, scoring, eps)})


# ---------------------------------------------------------------- EvalReflections GPT-2 stage (real labels)
def sha(text):
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


er = None
if os.environ.get("EVALREFLECTIONS_CSV") and os.environ.get("EVALREFLECTIONS_SCORED"):
    labels = {}
    with open(os.environ["EVALREFLECTIONS_CSV"], newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            key = f"{row['annomi_dialogue_id']}:{sha(row['reflection'])}"
            e = labels.setdefault(key, {"source": row["reflection_source"], "labels": {}})
            e["labels"][row["annotator"]] = row["coherent_and_context_consistent"] == "Yes"
    scores = {}
    for line in open(os.environ["EVALREFLECTIONS_SCORED"], encoding="utf-8"):
        it = json.loads(line)
        ref = (it.get("reference") or {}).get("text")
        for c in it["candidates"]:
            key = f"{it['provenance']['transcriptId']}:{sha(c['text'])}"
            s = {}
            for sid, sc in c["scores"].items():
                name = "bleu4" if sid.startswith("metric:bleu4.score@") else "judge" if sid.startswith("judge:") else None
                if name is None:
                    continue
                self_score = name == "bleu4" and ref is not None and c["text"].strip() == ref.strip()
                s[name] = None if self_score or sc.get("status") != "ok" else sc["value"]
                s[name + "Id"] = sid
            scores[key] = s
    instances = [{"key": k, "source": v["source"], "labels": v["labels"], "scores": {n: scores[k][n] for n in ("bleu4", "judge")}} for k, v in labels.items()]
    ids = {n: next(iter(scores.values()))[n + "Id"] for n in ("bleu4", "judge")}

    def match_rate(values, share):
        """Threshold t among the distinct values whose share of values >= t is closest to `share` (larger t on a tie)."""
        best, gap = None, None
        for t in sorted(set(values)):
            g = abs(np.mean([v >= t for v in values]) - share)
            if gap is None or g <= gap:
                best, gap = t, g
        return best

    er = {"source": "EvalReflections GPT-2 stage (Wu et al., ACL 2023), uccollab/expert_laypeople_reflection_annotation "
                    "commit dc34b224ef65418d2e7a2762a2b934ace9c97343; CC BY-NC (research purposes only); coherence labels only",
          "evaluatorIds": ids, "instances": instances, "altTest": []}
    for group, prefix, eps in (("experts", "Expert", 0.2), ("laypeople", "Layperson", 0.1)):
        humans = {}
        for inst in instances:
            for a, v in inst["labels"].items():
                if a.startswith(prefix):
                    humans.setdefault(a, {})[inst["key"]] = v
        humans = dict(sorted(humans.items()))
        share = np.mean([v for h in humans.values() for v in h.values()])
        for name in ("judge", "bleu4"):
            vals = {i["key"]: i["scores"][name] for i in instances if i["scores"][name] is not None}
            t = match_rate(list(vals.values()), share)
            llm = {k: v >= t for k, v in vals.items()}
            er["altTest"].append({"group": group, "evaluator": name, "threshold": t, "coherentShare": float(share), "epsilon": eps, "q": 0.05,
                                  **run_alt(humans, llm, "accuracy", eps)})

# ---------------------------------------------------------------- partial Spearman (residual method)
partial = []
for i in range(15):
    n = int(rng.integers(4, 120))
    z = rng.integers(3, 40, n).astype(float)
    y = np.round(np.clip(z / 15 + rng.normal(0, 1, n), 0, 3))
    x = 0.5 * z + rng.normal(0, 5 if i % 2 else 1, n) + (2 * y if i % 3 == 0 else 0)
    rx, ry, rz = stats.rankdata(x), stats.rankdata(y), stats.rankdata(z)
    A = np.column_stack([np.ones(n), rz])
    ex = rx - A @ np.linalg.lstsq(A, rx, rcond=None)[0]
    ey = ry - A @ np.linalg.lstsq(A, ry, rcond=None)[0]
    # Residuals that are rounding noise (x or y a linear function of z's ranks) leave the partial correlation undefined.
    flat = lambda e, v: np.linalg.norm(e) <= 1e-9 * np.linalg.norm(v - v.mean())  # noqa: E731
    r = float("nan") if flat(ex, rx) or flat(ey, ry) else float(np.corrcoef(ex, ey)[0, 1])
    tstat = float("nan") if np.isnan(r) else r * np.sqrt((n - 3) / (1 - r * r)) if abs(r) < 1 else np.inf
    p = float(2 * stats.t.sf(abs(tstat), n - 3)) if n > 3 else float("nan")
    partial.append({"x": x.tolist(), "y": y.tolist(), "z": z.tolist(), "r": fnum(r), "p": fnum(p)})

# ---------------------------------------------------------------- evaluator vs majority label (sklearn)
majority = []
for i in range(6):
    n = int(rng.integers(10, 80))
    truth = rng.random(n) < 0.5
    labels3 = [[bool(t) if rng.random() > 0.3 else bool(rng.random() < 0.5) for _ in range(3)] for t in truth]
    score = [float(np.round(rng.uniform(1, 5) if rng.random() < 0.4 else (4.5 if t else 1.5), 2)) for t in truth]
    thr = [2.5, 3.0, 3.5][i % 3]
    maj = ["coherent" if sum(l) >= 2 else "incoherent" for l in labels3]
    pred = ["coherent" if s >= thr else "incoherent" for s in score]
    cm = confusion_matrix(maj, pred, labels=["incoherent", "coherent"])  # rows true, cols predicted
    majority.append({"labels": labels3, "scores": score, "threshold": thr,
                     "tp": int(cm[0, 0]), "fn": int(cm[0, 1]), "fp": int(cm[1, 0]), "tn": int(cm[1, 1]),
                     "kappa": fnum(cohen_kappa_score(maj, pred)),
                     "precision": fnum(precision_score(maj, pred, pos_label="incoherent", zero_division=0)) if "incoherent" in pred else None,
                     "recall": fnum(recall_score(maj, pred, pos_label="incoherent", zero_division=0)) if "incoherent" in maj else None})

result = {
    "generatedBy": "scripts/parity/meta_evaluation_reference.py",
    "python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
    "statsmodels": statsmodels.__version__, "sklearn": sklearn.__version__,
    "references": {"krippendorff": "pln-fing-udelar/fast-krippendorff b1eb616cadc1f2f6881250876e941266c35ef98d (run, not copied)",
                   "altTest": "nitaytech/AltTest 18428b1f4f34ac61c4978bc180263b90111e7337 alt_test_example.ipynb (run, not copied)"},
    "cohen": cohen, "fleiss": fleiss, "reliability": reliability, "icc": icc_cases, "ttest": ttests, "by": by,
    "altTest": alt, "evalReflections": er, "partial": partial, "majority": majority,
}
with open(OUT, "w") as f:
    json.dump(result, f, allow_nan=False)
    f.write("\n")
print(f"wrote {os.path.relpath(OUT, ROOT)}")
if er:
    for a in er["altTest"]:
        print(a["group"], a["evaluator"], "t =", a["threshold"], "wr =", a["winningRate"], "ap =", round(a["advantageProbability"], 4), [round(p, 4) for p in a["pValues"]])
