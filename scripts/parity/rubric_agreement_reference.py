"""Reference values for agreement on a study with its own rubric (issue 39 item 4): Krippendorff's alpha of each
dimension at the level its type asks for — nominal (binary, categorical), ordinal (a 1-5 Likert scale), interval
(a 0-10 number) — computed by the `krippendorff` package (pln-fing-udelar/fast-krippendorff, run, not copied).

Writes a seeded synthetic study (test/core/agreement/fixtures/rubric-study.dialogues.jsonl and its
rubric-study.rubric.json: 30 contexts x 4 responses, 4 raters of whom each rates about three quarters of the
responses, latent quality driving every dimension) and test/core/agreement/fixtures/rubric-agreement-reference.json.

    git --git-dir=<fetched fast-krippendorff> archive b1eb616 krippendorff | tar -x -C /tmp/kripp
    KRIPPENDORFF_SRC=/tmp/kripp /usr/bin/python3 scripts/parity/rubric_agreement_reference.py

Needs Debian python3-numpy.
"""
import json
import os
import random
import sys

sys.path.insert(0, os.environ["KRIPPENDORFF_SRC"])
import krippendorff  # noqa: E402  (the reference, from the fetched repository)
import numpy as np  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
OUT = os.path.join(ROOT, "test", "core", "agreement", "fixtures")
rng = random.Random(20261204)
RATERS = ["r1", "r2", "r3", "r4"]
RUBRIC = {
    "version": 1,
    "name": "synthetic quality",
    "primary": "Overall",
    "dimensions": [
        {"name": "Sensible", "type": "binary"},
        {"name": "Overall", "type": "ordinal", "points": [{"value": v} for v in range(1, 6)]},
        {"name": "Specificity", "type": "numeric", "min": 0, "max": 10, "step": 0.5},
        {"name": "Problem", "type": "categorical", "options": [{"value": "none"}, {"value": "generic"}, {"value": "off topic"}]},
        {"name": "Why", "type": "text"},
    ],
}


def clip(v, lo, hi):
    return max(lo, min(hi, v))


items = []
for i in range(30):
    candidates = []
    for j in range(4):
        q = rng.gauss(0, 1)
        annotations = []
        for r in RATERS:
            if rng.random() < 0.25:
                continue
            e = q + rng.gauss(0, 0.8)
            a = {
                "annotator": r,
                "Sensible": e > -0.5,
                "Overall": int(clip(round(3 + 1.2 * e), 1, 5)),
                "Specificity": clip(round((5 + 2 * e) * 2) / 2, 0, 10),
                "Problem": "none" if e > 0 else ("generic" if e > -1 else "off topic"),
                "Why": "because",
            }
            if rng.random() < 0.1:
                del a["Specificity"]
            annotations.append(a)
        candidates.append({"id": f"c{j}", "text": f"response {j} to context {i}", "origin": {"kind": "model", "source": "synthetic"}, "annotations": annotations, "scores": {}})
    items.append({"id": f"ctx-{i}", "context": [{"speaker": "User", "text": f"context {i}"}], "candidates": candidates})

with open(os.path.join(OUT, "rubric-study.dialogues.jsonl"), "w") as f:
    for it in items:
        f.write(json.dumps(it) + "\n")
with open(os.path.join(OUT, "rubric-study.rubric.json"), "w") as f:
    f.write(json.dumps(RUBRIC, indent=2) + "\n")

# Units: candidates with an Overall rating (the primary) from any rater; coders: the raters, sorted.
units = [c for it in items for c in it["candidates"] if any("Overall" in a for a in c["annotations"])]


def matrix(dim, encode):
    rows = []
    for c in units:
        by = {a["annotator"]: a for a in c["annotations"] if "Overall" in a}
        rows.append([encode(by[r][dim]) if r in by and dim in by[r] else np.nan for r in RATERS])
    return np.array(rows, dtype=float).T  # coders x units


cats = {"none": 0, "generic": 1, "off topic": 2}
out = {
    "reference": "pln-fing-udelar/fast-krippendorff b1eb616cadc1f2f6881250876e941266c35ef98d (run, not copied)",
    "units": len(units),
    "alpha": {
        "Sensible": {"level": "nominal", "value": float(krippendorff.alpha(reliability_data=matrix("Sensible", lambda v: 1.0 if v else 0.0), level_of_measurement="nominal"))},
        "Overall": {"level": "ordinal", "value": float(krippendorff.alpha(reliability_data=matrix("Overall", float), level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5]))},
        "Specificity": {"level": "interval", "value": float(krippendorff.alpha(reliability_data=matrix("Specificity", float), level_of_measurement="interval"))},
        "Problem": {"level": "nominal", "value": float(krippendorff.alpha(reliability_data=matrix("Problem", lambda v: float(cats[v])), level_of_measurement="nominal", value_domain=[0, 1, 2]))},
    },
}
with open(os.path.join(OUT, "rubric-agreement-reference.json"), "w") as f:
    f.write(json.dumps(out, indent=2) + "\n")
print(json.dumps(out["alpha"]))
