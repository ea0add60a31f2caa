#!/usr/bin/python3
"""ICMI 2023 Tables 2 and 3 (GPT-2 column) recomputed in plain Python from the EvalReflections GPT-2 stage.

Wu et al., "Towards Effective Automatic Evaluation of Generated Reflections for Motivational Interviewing"
(ICMI 2023 Companion), report Spearman's rho between each evaluator and the experts' coherence score (the number
of the 3 experts who said coherent) on the 107 GPT-2 reflections: laypeople-experts 0.704 (Table 2); BLEU-4
-0.113, ROUGE-L 0.056, METEOR -0.108 (Table 3). This script reads data/evalreflections/annotations-gpt2-stage.csv
with the csv module, scores every response against its context's human reflection (the therapist's real one)
with

- BLEU-4: NLTK 3.8 ``sentence_bleu([ref.split()], cand.split())`` (no smoothing, NLTK's default);
- ROUGE-L F: the rouge-score-equivalent code of text_metrics_reference.py (rouge-score 0.1.2 defaults, no stemmer);
- METEOR: NLTK 3.8 ``meteor_score([ref.split()], cand.split())`` (WordNet 3.0 from Debian's files);

and correlates with scipy 1.10 ``spearmanr`` per reflection source (the human reflections, being the reference,
are not scored against themselves). It also computes a few variants to show which choices the published numbers
depend on. Output: test/core/metrics/fixtures/icmi2023-reference.json (read by test/core/metrics/icmi2023.test.ts).

    /usr/bin/python3 scripts/parity/icmi2023_reference.py
"""
import csv
import json
import os
import platform
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import text_metrics_reference as tmr  # noqa: E402

import nltk  # noqa: E402
import scipy  # noqa: E402
from nltk.tokenize import TreebankWordTokenizer  # noqa: E402
from nltk.translate.bleu_score import sentence_bleu  # noqa: E402
from nltk.translate.meteor_score import meteor_score  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

ROOT = os.path.join(HERE, "..", "..")
CSV = os.path.join(ROOT, "data", "evalreflections", "annotations-gpt2-stage.csv")
TREEBANK = TreebankWordTokenizer()


def responses():
    """One record per (context, source, reflection): the expert and lay coherence scores and the reference."""
    with open(CSV, newline="", encoding="utf-8") as fp:
        rows = list(csv.DictReader(fp))
    by_response = defaultdict(lambda: {"experts": 0, "laypeople": 0, "labels": 0})
    human = {}
    for r in rows:
        ctx = (r["annomi_dialogue_id"], r["stage"], r["dialogue_context"])
        key = (ctx, r["reflection_source"], r["reflection"].strip())
        rec = by_response[key]
        rec["labels"] += 1
        if r["coherent_and_context_consistent"] == "Yes":
            rec["experts" if r["annotator"].startswith("Expert") else "laypeople"] += 1
        if r["reflection_source"] == "Human":
            human[ctx] = r["reflection"]
    out = []
    for (ctx, source, text), rec in by_response.items():
        assert rec["labels"] == 6, (ctx[0], source, text, rec)
        out.append({"source": source, "candidate": text, "reference": human[ctx], **rec})
    return out


def rho(x, y):
    r = spearmanr(x, y)
    return {"statistic": float(r.correlation), "pValue": float(r.pvalue), "n": len(x)}


def main():
    rs = responses()
    model = [r for r in rs if r["source"] != "Human"]
    scores = {
        "bleu4": lambda r: float(sentence_bleu([r["reference"].split()], r["candidate"].split())),
        "rougeL": lambda r: tmr.rouge_l(r["reference"], r["candidate"], False)[2],
        "meteor": lambda r: float(meteor_score([r["reference"].split()], r["candidate"].split())),
        # variants: which choices the published numbers depend on
        "bleu4 smoothing method1": lambda r: float(sentence_bleu([r["reference"].split()], r["candidate"].split(), smoothing_function=tmr.SMOOTHING.method1)),
        "bleu4 Treebank tokens": lambda r: float(sentence_bleu([TREEBANK.tokenize(r["reference"])], TREEBANK.tokenize(r["candidate"]))),
        "bleu4 13a tokens": lambda r: float(sentence_bleu([tmr.words(r["reference"], "13a")], tmr.words(r["candidate"], "13a"))),
        "meteor Treebank tokens": lambda r: float(meteor_score([TREEBANK.tokenize(r["reference"])], TREEBANK.tokenize(r["candidate"]))),
        "rougeL Porter stemmer": lambda r: tmr.rouge_l(r["reference"], r["candidate"], True)[2],
    }
    columns = {"GPT-2": [r for r in model if r["source"] == "GPT-2"], "BART": [r for r in model if r["source"] == "BART"], "All": model}
    table = {}
    for name, fn in scores.items():
        values = {id(r): fn(r) for r in model}
        table[name] = {col: rho([values[id(r)] for r in rows], [r["experts"] for r in rows]) for col, rows in columns.items()}
    # how degenerate the unsmoothed BLEU-4 values are: exactly 0 (no unigram match), or below 1e-70 (an order
    # without a match: NLTK puts the smallest double in its place)
    bleu = {id(r): scores["bleu4"](r) for r in model}
    degenerate = {col: {"n": len(rows), "zero": sum(1 for r in rows if bleu[id(r)] == 0.0), "below1e-70": sum(1 for r in rows if bleu[id(r)] < 1e-70), "max": max(bleu[id(r)] for r in rows)} for col, rows in columns.items()}
    human_columns = {**columns, "Human": [r for r in rs if r["source"] == "Human"], "All": rs}
    table["laypeople-experts"] = {col: rho([r["laypeople"] for r in rows], [r["experts"] for r in rows]) for col, rows in human_columns.items()}
    doc = {
        "generatedBy": "scripts/parity/icmi2023_reference.py",
        "python": platform.python_version(),
        "nltk": nltk.__version__,
        "scipy": scipy.__version__,
        "responses": {src: sum(1 for r in rs if r["source"] == src) for src in ("GPT-2", "BART", "Human")},
        "published": {"laypeople-experts": 0.704, "bleu4": -0.113, "rougeL": 0.056, "meteor": -0.108},
        "spearman": table,
        "bleu4Degenerate": degenerate,
    }
    out = os.path.join(tmr.FIXTURES, "icmi2023-reference.json")
    with open(out, "w", encoding="utf-8") as fp:
        json.dump(doc, fp, indent=1)
        fp.write("\n")
    print("unsmoothed BLEU-4 values:", json.dumps(degenerate))
    for name, cols in table.items():
        print(f"{name:42s} " + "  ".join(f"{c}: {v['statistic']:+.3f} (p {v['pValue']:.3g}, n {v['n']})" for c, v in cols.items()))


if __name__ == "__main__":
    main()
