#!/usr/bin/python3
"""Reference values for the correlation table of a public dialogue-evaluation release imported as a new user would:
USR's Topical-Chat annotations (Mehri & Eskenazi, ACL 2020, "USR: An Unsupervised and Reference Free Evaluation
Metric for Dialog Generation"; tc_usr_data.json). Computed independently of ReflectEval's importer and metrics:

- the records are read from the release itself (json.load), not from ReflectEval's import;
- per response, with the context's "Original Ground Truth" response as the reference and whitespace tokens
  (Python str.split(), ReflectEval's default tokenizer): BLEU-4 = NLTK 3.8 sentence_bleu([ref], hyp) with the
  default weights and no smoothing (src/core/metrics/bleu4.ts's default), METEOR = NLTK 3.8 meteor_score with
  WordNet 3.0 from Debian's wordnet-base (alpha 0.9, beta 3, gamma 0.5; src/core/metrics/meteor.ts's default),
  ROUGE-L F = rouge-score 0.1.2's RougeScorer(['rougeL'], use_stemmer=False) (src/core/metrics/rougeL.ts's default)
  — the functions of text_metrics_reference.py, which ReflectEval's metric parity tests already use;
- per quality (Understandable, Natural, Maintains Context, Engaging, Uses Knowledge, Overall), the human score of
  a response is the mean of its annotators' ratings (numpy.mean over the rating list: ReflectEval's humanScore
  "mean"); the Spearman (and Pearson) correlation of each metric with it is scipy.stats.spearmanr (pearsonr),
  scipy 1.10.

Two response sets, each cell computed on both:
- "responses": every response but the Original Ground Truth one (5 per context, 300) — what the paper's table is
  computed on;
- "notReferenceText": those whose text is not the reference text (trimmed): ReflectEval's rule that a candidate
  equal to its item's reference is never scored against it (one Topical-Chat response, a nucleus-sampling output,
  equals its reference).

The release is not in this repository (no licence is stated for the USR annotations). Get it offline with the
mirror tool and point the script at it:

    fetch github:ramya2811/GRADE-A-PLUS        # a public copy, commit d95f2100c3bc87f810cec9363d05455b4e4231c0
    git --git-dir=<mirror>/repo show d95f2100:data/usr_data/tc_usr_data.json > tc_usr_data.json
    /usr/bin/python3 scripts/parity/usr_correlation_reference.py tc_usr_data.json

It checks the file's SHA-256 and writes test/fixtures/usr-tc/usr-tc-reference.json: per response the ids
ReflectEval's importer gives it with the guessed mapping of docs/importing.md (item "tc-usr-data-<k>", candidate
"<slug of the model>-1"), the three metric values, and per set, metric and quality, n, rho, its p-value, Pearson's r
and its p-value. No text and no rating of the release is written.
"""
import hashlib
import json
import math
import os
import re
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import text_metrics_reference as tm  # noqa: E402  (sets up NLTK's WordNet from Debian's files)

import numpy as np  # noqa: E402
import scipy  # noqa: E402
from scipy.stats import pearsonr, spearmanr  # noqa: E402

SHA256 = "2766eb0b850190221df727d4c22ad3b934f66c83db869dc483f13e145eff66f2"
QUALITIES = ["Understandable", "Natural", "Maintains Context", "Engaging", "Uses Knowledge", "Overall"]
REFERENCE_SOURCE = "Original Ground Truth"
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "usr-tc", "usr-tc-reference.json")


def slug(s):
    """ReflectEval's slug of a source (src/core/datasets/genericImport.ts): lower case, runs of other characters → '-'."""
    return re.sub(r"^-+|-+$", "", re.sub(r"[^a-z0-9]+", "-", s.lower()))


def num(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def main(path):
    raw = open(path, "rb").read()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != SHA256:
        sys.exit(f"{path}: SHA-256 {digest}, expected {SHA256} (tc_usr_data.json at GRADE-A-PLUS d95f2100)")
    data = json.loads(raw)
    rows = []
    for k, record in enumerate(data):
        refs = [r for r in record["responses"] if r["model"] == REFERENCE_SOURCE]
        assert len(refs) == 1, f"record {k}: {len(refs)} responses from {REFERENCE_SOURCE}"
        reference = refs[0]["response"]
        for r in record["responses"]:
            if r["model"] == REFERENCE_SOURCE:
                continue
            hyp = r["response"]
            rows.append(
                {
                    "record": k,
                    "itemId": f"tc-usr-data-{k + 1}",
                    "candidateId": f"{slug(r['model'])}-1",
                    "model": r["model"],
                    "equalsReference": hyp.strip() == reference.strip(),
                    "bleu4": tm.nltk_bleu4(reference, hyp),
                    "meteor": float(tm.nltk_meteor(reference, hyp)),
                    "rougeL": tm.rouge_l(reference, hyp, False)[2],
                    "_means": {q: float(np.mean(r[q])) for q in QUALITIES},
                }
            )
    sets = {"responses": rows, "notReferenceText": [r for r in rows if not r["equalsReference"]]}
    cells = []
    for set_name, rs in sets.items():
        for metric in ("bleu4", "meteor", "rougeL"):
            x = [r[metric] for r in rs]
            for q in QUALITIES:
                y = [r["_means"][q] for r in rs]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    rho, p_rho = spearmanr(x, y)
                    r_, p_r = pearsonr(x, y)
                cells.append({"set": set_name, "metric": metric, "quality": q, "n": len(rs), "spearman": num(rho), "spearmanP": num(p_rho), "pearson": num(r_), "pearsonP": num(p_r)})
    out = {
        "release": {"name": "USR Topical-Chat (Mehri & Eskenazi, ACL 2020)", "file": "tc_usr_data.json", "sha256": SHA256, "copy": "github.com/ramya2811/GRADE-A-PLUS data/usr_data/tc_usr_data.json at d95f2100c3bc87f810cec9363d05455b4e4231c0"},
        "reference": {"python": sys.version.split()[0], "nltk": tm.nltk.__version__, "scipy": scipy.__version__, "numpy": np.__version__, "script": "scripts/parity/usr_correlation_reference.py"},
        "settings": {"tokens": "str.split()", "bleu4": "sentence_bleu([ref], hyp), weights (0.25,)*4, no smoothing", "meteor": "meteor_score([ref], hyp), alpha 0.9, beta 3, gamma 0.5, WordNet 3.0", "rougeL": "rouge-score 0.1.2 rougeL F, no stemmer", "humanScore": "mean of the annotators' ratings"},
        "responses": [{k: v for k, v in r.items() if k != "_means"} for r in rows],
        "cells": cells,
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as fp:
        json.dump(out, fp, indent=1)
        fp.write("\n")
    print(f"wrote {len(rows)} responses ({sum(r['equalsReference'] for r in rows)} equal to their reference) and {len(cells)} cells to {os.path.relpath(OUT)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
