#!/usr/bin/env python3
"""Reference values for ReflectEval's agreement statistics and first-study analyses, computed independently.

    /usr/bin/python3 scripts/parity/agreement_reference.py     # Debian python3-statsmodels 0.13.5, python3-scipy

Reads data/annotations/synthetic-annotations.csv with Python's csv module and recomputes, without any
ReflectEval code:

- Table 4 of the first study (Wu et al., GEM 2022, §5.1) for all annotators, laypeople and experts: Fleiss'
  kappa by statsmodels.stats.inter_rater.fleiss_kappa on count tables made by
  statsmodels.stats.inter_rater.aggregate_raters, and the number of subjects, for coherence, empathy (1-5),
  most evident error (MEE, filled when one error is chosen), consensus-adjusted MEE, and their merged (M)
  variants (Hallucinatory; Likert {1,2} -> disagree, {4,5} -> agree);
- majority-vote coherence rates per source (§5.2) and the distribution of majority-voted consensus-adjusted
  merged MEEs (§5.3), with "no majority";
- laypeople vs experts coherence scores (ICMI 2023 §2.1): means and scipy.stats.spearmanr per source;

twice: on the whole table ("full"), and on its 12 release columns only ("release": no MEE or empathy columns,
so MEEs come from filling alone). Also Fleiss' kappa of seeded random count tables and of Fleiss (1971) Table 1.
The rules (written out below in plain Python) are the ones docs/annotations.md states. Writes
test/core/agreement/fixtures/python-reference.json.
"""
import csv
import json
import os
import sys
from collections import Counter, OrderedDict

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TABLE = os.path.join(ROOT, "data", "annotations", "synthetic-annotations.csv")
OUT = os.path.join(ROOT, "test", "core", "agreement", "fixtures", "python-reference.json")

ERROR_COLS = {
    "dialogue_contradicting": "dialogueContradicting",
    "malformed": "malformed",
    "off_topic": "offTopic",
    "on_topic_but_unverifiable": "onTopicButUnverifiable",
    "parroting": "parroting",
}
MEE_NAMES = {
    "Malformed": "malformed",
    "Dialogue-contradicting": "dialogueContradicting",
    "Parroting": "parroting",
    "Off-topic": "offTopic",
    "On-topic but unverifiable": "onTopicButUnverifiable",
}
HALLUCINATORY = {"dialogueContradicting", "offTopic", "onTopicButUnverifiable"}
HUMAN_SOURCES = {"human"}


def merge_error(e):
    return "hallucinatory" if e in HALLUCINATORY else e


def merge_likert(v):
    return "disagree" if v <= 2 else ("neutral" if v == 3 else "agree")


def read_responses(release_only):
    """Responses keyed by (dialogue id, stage, context, source, text), each with its annotations in row order."""
    responses = OrderedDict()
    with open(TABLE, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            context = tuple(tuple(t.items())[0] for t in json.loads(row["dialogue_context"]))
            key = (row["annomi_dialogue_id"], row["stage"], context, row["reflection_source"], row["reflection"])
            coherent = row["coherent_and_context_consistent"] == "Yes"
            errors = [] if coherent else [cat for col, cat in ERROR_COLS.items() if row[col] == "Yes"]
            mee = None if release_only or not row["most_evident_error"] else MEE_NAMES[row["most_evident_error"]]
            empathy = None if release_only or not row["empathy"] else int(row["empathy"])
            responses.setdefault(key, []).append(
                {"annotator": row["annotator"], "expert": row["annotator"].startswith("Expert"), "coherent": coherent,
                 "errors": errors, "mee": mee, "empathy": empathy})
    return responses


def filled_mee(a):
    """The MEE, or the only error when one was chosen (§5.1)."""
    if a["coherent"]:
        return None
    if a["mee"] is not None:
        return a["mee"]
    return a["errors"][0] if len(set(a["errors"])) == 1 else None


def error_label(a, merged):
    """(incoherent, error set, MEE); with merging, errors and MEE are mapped and a single merged error fills the MEE."""
    mee = filled_mee(a)
    errs = set(a["errors"])
    if merged:
        errs = {merge_error(e) for e in errs}
        mee = merge_error(mee) if mee is not None else (next(iter(errs)) if len(errs) == 1 and not a["coherent"] else None)
    return (not a["coherent"], errs, mee)


def consensus(labels):
    """Consensus-adjusted MEEs of one response's annotators (docs/annotations.md, §5.1)."""
    own = [m for (_, _, m) in labels]
    if not labels or any((not inc) or not errs for (inc, errs, _) in labels):
        return own
    common = set.intersection(*[errs for (_, errs, _) in labels])
    if not common:
        return own
    if len(common) == 1:
        return [next(iter(common))] * len(labels)
    votes = Counter(m for m in own if m in common)
    top = votes.most_common()
    if not top or (len(top) > 1 and top[0][1] == top[1][1]):
        return own
    return [top[0][0]] * len(labels)


def kappa_of(subjects):
    """Fleiss' kappa and #subjects of a list of equal-length rating lists (None when statsmodels gives nan)."""
    if not subjects:
        return {"kappa": None, "subjects": 0}
    codes = {}
    data = np.array([[codes.setdefault(v, len(codes)) for v in s] for s in subjects])
    table, _ = aggregate_raters(data)
    with np.errstate(invalid="ignore", divide="ignore"):
        k = float(fleiss_kappa(table, method="fleiss"))
    return {"kappa": None if np.isnan(k) else k, "subjects": len(subjects)}


def agreement(responses, group):
    keep = {"all": lambda a: True, "laypeople": lambda a: not a["expert"], "experts": lambda a: a["expert"]}[group]
    subjects = [[a for a in anns if keep(a)] for anns in responses.values()]
    subjects = [s for s in subjects if s]
    freq = Counter(len(s) for s in subjects)
    n = max(freq.items(), key=lambda kv: (kv[1], kv[0]))[0]
    complete = [s for s in subjects if len(s) == n]
    rows = {"coherence": kappa_of([["coherent" if a["coherent"] else "incoherent" for a in s] for s in complete])}
    all_coherent = [s for s in complete if all(a["coherent"] for a in s)]
    empathy = [[a["empathy"] for a in s] for s in all_coherent if all(a["empathy"] is not None for a in s)]
    rows["empathy"] = kappa_of(empathy)
    rows["empathyMerged"] = kappa_of([[merge_likert(v) for v in s] for s in empathy])
    all_incoherent = [s for s in complete if all(not a["coherent"] for a in s)]
    for merged, suffix in ((False, ""), (True, "Merged")):
        labels = [[error_label(a, merged) for a in s] for s in all_incoherent]
        plain = [[m for (_, _, m) in l] for l in labels]
        adjusted = [consensus(l) for l in labels]
        rows["mostEvidentError" + suffix] = kappa_of([m for m in plain if None not in m])
        rows["consensusMostEvidentError" + suffix] = kappa_of([m for m in adjusted if None not in m])
    return {"raters": n, "leftOut": len(subjects) - len(complete), "rows": rows}


def majority(votes):
    votes = [v for v in votes if v is not None]
    if not votes:
        return None
    v, c = Counter(votes).most_common(1)[0]
    return v if 2 * c > len(votes) else "noMajority"


def analyses(responses):
    rates = OrderedDict()
    dist = OrderedDict()
    pairs = OrderedDict()
    for (did, stage, ctx, source, text), anns in responses.items():
        strategy = "ground truth" if source.strip().lower() in HUMAN_SOURCES else source
        label = majority(["coherent" if a["coherent"] else "incoherent" for a in anns]) or "unlabelled"
        r = rates.setdefault(strategy, {"responses": 0, "labelled": 0, "coherent": 0, "incoherent": 0, "noMajority": 0})
        r["responses"] += 1
        r[label] += 1
        if label in ("coherent", "incoherent"):
            r["labelled"] += 1
        if label == "incoherent":
            mees = consensus([error_label(a, True) for a in anns])
            d = dist.setdefault(strategy, {"incoherent": 0, "counts": Counter()})
            d["incoherent"] += 1
            d["counts"][majority(mees) or "noMajority"] += 1
        lay = [a["coherent"] for a in anns if not a["expert"]]
        exp = [a["coherent"] for a in anns if a["expert"]]
        if lay and exp:
            for s in ("all responses", strategy):
                p = pairs.setdefault(s, ([], [], [], []))
                p[0].append(sum(lay))
                p[1].append(sum(exp))
                p[2].append(sum(lay) / len(lay))
                p[3].append(sum(exp) / len(exp))
    for r in rates.values():
        r["rate"] = r["coherent"] / r["labelled"] if r["labelled"] else None
    group = OrderedDict()
    for s, (lay, exp, slay, sexp) in pairs.items():
        rho, p = stats.spearmanr(lay, exp)
        group[s] = {"responses": len(lay), "meanLaypeople": float(np.mean(lay)), "meanExperts": float(np.mean(exp)),
                    "meanShareLaypeople": float(np.mean(slay)), "meanShareExperts": float(np.mean(sexp)),
                    "spearman": None if np.isnan(rho) else float(rho), "pValue": None if np.isnan(p) else float(p)}
    for d in dist.values():
        d["counts"] = dict(d["counts"])
    return {"coherenceRates": rates, "errorDistribution": dist, "groupCoherence": group}


def variant(release_only):
    responses = read_responses(release_only)
    out = {"responses": len(responses), "agreement": {g: agreement(responses, g) for g in ("all", "laypeople", "experts")}}
    out.update(analyses(responses))
    return out


def random_tables():
    rng = np.random.default_rng(20261122)
    cases = []
    for i in range(120):
        n_sub = int(rng.integers(1, 60))
        n_rat = int(rng.integers(2, 10))
        n_cat = int(rng.integers(2, 7))
        # skewed category probabilities, so some tables have strong agreement and some empty columns
        p = rng.dirichlet(np.full(n_cat, 0.3 if i % 3 == 0 else 1.5))
        table = np.array([rng.multinomial(n_rat, p) for _ in range(n_sub)])
        with np.errstate(invalid="ignore", divide="ignore"):
            k = float(fleiss_kappa(table, method="fleiss"))
        cases.append({"name": f"random-{i}", "counts": table.tolist(), "kappa": None if np.isnan(k) else k})
    fleiss1971 = [
        [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0], [2, 0, 4, 0, 0],
        [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6], [1, 0, 0, 5, 0], [1, 1, 0, 4, 0],
        [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1], [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0],
        [0, 2, 0, 4, 0], [1, 0, 2, 0, 3], [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0],
        [1, 0, 0, 4, 1], [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6],
    ]
    cases.append({"name": "fleiss-1971-table-1", "counts": fleiss1971, "kappa": float(fleiss_kappa(np.array(fleiss1971)))})
    cases.append({"name": "all-one-category", "counts": [[3, 0], [3, 0]], "kappa": None})
    return cases


result = {
    "generatedBy": "scripts/parity/agreement_reference.py",
    "python": sys.version.split()[0],
    "statsmodels": statsmodels.__version__,
    "scipy": scipy.__version__,
    "numpy": np.__version__,
    "table": "data/annotations/synthetic-annotations.csv",
    "full": variant(False),
    "release": variant(True),
    "fleiss": random_tables(),
}
os.makedirs(os.path.dirname(OUT), exist_ok=True)
with open(OUT, "w") as f:
    json.dump(result, f)
    f.write("\n")
print(f"wrote {os.path.relpath(OUT, ROOT)}")
for name in ("full", "release"):
    for g, t in result[name]["agreement"].items():
        print(name, g, t["raters"], {k: (None if v["kappa"] is None else round(v["kappa"], 4), v["subjects"]) for k, v in t["rows"].items()})
