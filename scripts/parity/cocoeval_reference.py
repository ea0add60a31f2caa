#!/usr/bin/python3
"""Reference values for ReflectEval's nlg-eval metrics (cocoBleu, cocoRougeL), computed by pycocoevalcap itself.

pycocoevalcap's BLEU and ROUGE-L scorers are plain Python (bleu/bleu.py, bleu/bleu_scorer.py, rouge/rouge.py; the
ROUGE-L mean needs NumPy). They are not installed and never copied into ReflectEval: this script imports them from a
checkout given on the command line and runs them as nlg-eval (Maluuba/nlg-eval, nlgeval/__init__.py) calls them —
``Bleu(4).compute_score(refs, hyps)`` and ``Rouge().compute_score(refs, hyps)`` with ``refs = {i: [r.strip(), ...]}``
and ``hyps = {i: [h.strip()]}``, no PTBTokenizer.

Getting pycocoevalcap (the values committed were produced with salaniz/pycocoevalcap at
ad63453cfab57a81a02b2949b17a91fab1c3df77, pip version 1.2; nlg-eval's own copy, nlgeval/pycocoevalcap at
Maluuba/nlg-eval 2ab4528fad5548315cf61e40c2249fec8c8ad233, gives the same values — it differs only in
``six`` imports and a ``verbose`` argument):

    git clone https://github.com/salaniz/pycocoevalcap /tmp/pycocoevalcap
    git -C /tmp/pycocoevalcap checkout ad63453cfab57a81a02b2949b17a91fab1c3df77
    # or, from a bare mirror: git --git-dir=MIRROR.git archive ad63453c bleu rouge | tar -x -C /tmp/pycocoevalcap
    python3 scripts/parity/cocoeval_reference.py /tmp/pycocoevalcap

The directory must hold bleu/bleu.py, bleu/bleu_scorer.py and rouge/rouge.py (for nlg-eval's copy, pass
nlgeval/pycocoevalcap; it needs python3-six).

Inputs: the 1,208 committed pairs of test/core/metrics/fixtures/text-metric-pairs.json plus EXTRA_PAIRS below
(whitespace, repetition and length edge cases), and MULTI_REFERENCE segments. Output:
test/core/metrics/fixtures/cocoeval-parity.json (or --out PATH), read by test/core/metrics/cocoParity.test.ts.
It also records, for the same tests: Python's ``x ** y`` (glibc ``pow``) beside the correctly rounded power
(``decimal`` at 80 digits) on a seeded sample; ``np.mean`` of seeded arrays; ``beta ** 2`` for the betas used; and
pycocoevalcap's F-measure expression on the rouge-score precision/recall values of
test/core/metrics/fixtures/text-metric-parity.json (ReflectEval's ROUGE-L ``beta`` uses that expression).
"""
import argparse
import contextlib
import hashlib
import io
import json
import os
import platform
import random
import sys
from decimal import Decimal, getcontext

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "test", "core", "metrics", "fixtures")

# (reference, candidate): what pycocoevalcap's two tokenizations (str.split() for BLEU, str.split(" ") for ROUGE-L
# after nlg-eval's str.strip()) and its tiny/small constants make of awkward inputs.
EXTRA_PAIRS = [
    ("you feel tired", "you  feel tired"),  # double space: an empty ROUGE token, not a BLEU one
    ("you  feel", ""),  # empty candidate = one empty ROUGE token, which matches the reference's
    ("", ""),
    ("  ", "you"),
    ("you feel", "  "),
    ("you feel tired", "you\tfeel\ttired"),  # tab: splits for BLEU, stays inside the ROUGE token
    ("you feel tired", "you\nfeel\r\ntired"),
    ("you feel tired", "\u3000you feel tired\u00a0"),  # Unicode whitespace at the ends: stripped
    ("you feel tired", "you\u00a0feel\u2009tired"),  # inside: BLEU splits (str.split), ROUGE does not
    ("you\u0085feel\u2028tired", "you feel tired"),
    ("you\x1cfeel tired\x1f", "you feel tired"),
    ("you feel tired", "you feel really very tired today and tomorrow and the day after"),  # longer
    ("you feel tired today because of work", "tired"),  # shorter
    ("you feel tired today", "completely different words here"),  # no overlap
    ("the cat the mat", "the the the the the the the"),  # clipping
    ("you feel you feel", "you feel you feel you feel"),
    ("a b c d", "a"),
    ("a b c d", "a b"),
    ("a b c d", "a b c"),
    ("a b c d", "a b c d"),
    ("a b c d", "d c b a"),
    ("You Feel Tired", "you feel tired"),  # case kept
    ("tired.", "tired ."),  # punctuation attached
    ("😀 you feel 😀", "you feel 😀😀"),
    ("e\u0301t\u00e9", "\u00e9t\u00e9"),  # combining accent vs precomposed: different tokens
    ("zero\u200bwidth space", "zero width space"),
    ("x " * 300, "x " * 299 + "y"),  # long texts, LCS over several 32-bit words
    (" ".join(f"w{i}" for i in range(740)), "w0"),  # brevity penalty of 1/740: exp(-739), below the normal range
    (" ".join(f"w{i}" for i in range(60)), " ".join(f"w{i}" for i in range(0, 60, 2))),
]

# (hypothesis, [references]): the "closest" reference length (ties to the shorter) and max-over-references.
MULTI_REFERENCE = [
    ("you feel tired today", ["you feel tired", "you feel very tired today friend"]),
    ("a b c d e", ["a b c d", "a b c d e f"]),  # tie at distance 1: the shorter length, 4
    ("a b c", ["x y", "a b c d e f g h", "a c"]),
    ("so you want to stop drinking", ["you want to stop", "so you would like to quit drinking", "so drinking is a problem"]),
    ("", ["a b", "c"]),
    ("the the the", ["the cat", "the the dog", "a the"]),
    ("you  feel", ["you feel", "you  feel  tired"]),
]

BETAS = [0.5, 1.0, 1.2, 2.0, 3.7]
CORPUS_SIZES = [1, 2, 7, 8, 9, 16, 100, 127, 128, 129, 256, 257, 1000]
NUMPY_MEAN_SIZES = [0, 1, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 129, 130, 200, 255, 256, 257, 1000, 1208, 4097, 8193, 20000]


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_pycocoevalcap(root):
    for rel in ("bleu/bleu.py", "bleu/bleu_scorer.py", "rouge/rouge.py"):
        if not os.path.isfile(os.path.join(root, rel)):
            sys.exit(f"{root}: no {rel}; pass a pycocoevalcap checkout (see this script's docstring)")
    sys.path.insert(0, root)
    from bleu.bleu import Bleu  # noqa: E402
    from rouge.rouge import Rouge  # noqa: E402

    files = {rel: sha256(os.path.join(root, rel)) for rel in ("bleu/bleu.py", "bleu/bleu_scorer.py", "rouge/rouge.py")}
    return Bleu, Rouge, files


def run_bleu(Bleu, refs, hyps):
    """Bleu(4).compute_score(refs, hyps) without the scorer's prints (salaniz's copy prints unless verbose=0)."""
    with contextlib.redirect_stdout(io.StringIO()):
        score, scores = Bleu(4).compute_score(refs, hyps)
    return [float(x) for x in score], [[float(x) for x in row] for row in scores]


def run_rouge(Rouge, refs, hyps, beta=None):
    r = Rouge()
    if beta is not None:
        r.beta = beta
    mean, scores = r.compute_score(refs, hyps)
    return float(mean), [float(x) for x in scores]


def nlgeval_dicts(segments):
    """nlg-eval's refs/hyps dictionaries: {idx: [stripped refs]}, {idx: [stripped hyp]}."""
    refs = {i: [r.strip() for r in rs] for i, (_, rs) in enumerate(segments)}
    hyps = {i: [h.strip()] for i, (h, _) in enumerate(segments)}
    return refs, hyps


def minstd(seed, n):
    """A seeded stream both Python and JavaScript reproduce exactly: Park–Miller minimal standard, x³ of its uniforms."""
    out = []
    s = seed
    for _ in range(n):
        s = (s * 48271) % 2147483647
        u = s / 2147483647
        out.append(u * u * u)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pycocoevalcap", help="directory holding bleu/ and rouge/ of pycocoevalcap")
    ap.add_argument("--out", default=os.path.join(FIXTURES, "cocoeval-parity.json"))
    args = ap.parse_args()
    Bleu, Rouge, files = load_pycocoevalcap(os.path.abspath(args.pycocoevalcap))
    import numpy as np

    pairs_path = os.path.join(FIXTURES, "text-metric-pairs.json")
    with open(pairs_path, encoding="utf-8") as f:
        committed = json.load(f)["pairs"]
    pairs = [(p["reference"], p["candidate"]) for p in committed] + EXTRA_PAIRS
    segments = [(cand, [ref]) for ref, cand in pairs]

    # One candidate at a time, as nlg-eval's compute_individual_metrics: the corpus score of a one-segment corpus,
    # which must equal the per-sentence list entry.
    single_bleu, single_rouge = [], []
    for seg in segments:
        refs, hyps = nlgeval_dicts([seg])
        score, scores = run_bleu(Bleu, refs, hyps)
        if score != [row[0] for row in scores]:
            sys.exit(f"one-segment corpus BLEU differs from the per-sentence BLEU for {seg!r}")
        mean, rs = run_rouge(Rouge, refs, hyps)
        if mean != rs[0]:
            sys.exit(f"one-segment ROUGE-L mean differs from its score for {seg!r}")
        single_bleu.append(score)
        single_rouge.append(rs[0])

    # The whole corpus and its prefixes, as nlg-eval's compute_metrics.
    corpora = []
    for size in CORPUS_SIZES + [len(segments)]:
        refs, hyps = nlgeval_dicts(segments[:size])
        score, scores = run_bleu(Bleu, refs, hyps)
        for k in range(4):
            if scores[k] != [b[k] for b in single_bleu[:size]]:
                sys.exit("per-sentence BLEU in a corpus differs from the one-segment runs")
        mean, rs = run_rouge(Rouge, refs, hyps)
        if rs != single_rouge[:size]:
            sys.exit("per-candidate ROUGE-L in a corpus differs from the one-segment runs")
        corpora.append({"size": size, "bleu": score, "rouge": mean})

    multi = []
    for hyp, refs_ in MULTI_REFERENCE:
        refs, hyps = nlgeval_dicts([(hyp, refs_)])
        score, _ = run_bleu(Bleu, refs, hyps)
        mean, _ = run_rouge(Rouge, refs, hyps)
        multi.append({"hypothesis": hyp, "references": refs_, "bleu": score, "rouge": mean})
    refs, hyps = nlgeval_dicts(MULTI_REFERENCE)
    multi_bleu, multi_bleu_each = run_bleu(Bleu, refs, hyps)
    multi_rouge, _ = run_rouge(Rouge, refs, hyps)

    # ROUGE-L with other betas (Rouge().beta set) on the first 300 committed pairs and every extra pair.
    beta_rows = list(range(300)) + list(range(len(committed), len(pairs)))
    beta_values = {}
    for beta in BETAS:
        refs, hyps = nlgeval_dicts([segments[i] for i in beta_rows])
        _, rs = run_rouge(Rouge, refs, hyps, beta)
        beta_values[repr(beta)] = rs

    # pycocoevalcap's F-measure expression on rouge-score's precision and recall (text-metric-parity.json).
    with open(os.path.join(FIXTURES, "text-metric-parity.json"), encoding="utf-8") as f:
        variants = {v["id"]: v["values"] for v in json.load(f)["variants"]}
    rouge_score_beta = {}
    for stem in ("False", "True"):
        p = variants[f"rougeL stemmer={stem} precision"]
        r = variants[f"rougeL stemmer={stem} recall"]
        for beta in BETAS:
            rouge_score_beta[f"stemmer={stem} beta={beta!r}"] = [
                ((1 + beta**2) * pp * rr) / float(rr + beta**2 * pp) if (pp != 0 and rr != 0) else 0.0 for pp, rr in zip(p, r)
            ]

    # x ** y: glibc's pow beside the correctly rounded power.
    getcontext().prec = 80
    rng = random.Random(20240501)
    powers = []
    for i in range(1500):
        x = rng.random() ** rng.choice([1, 3, 10, 40])
        y = [1.0 / 3, 0.25, 0.5, 1.0 / 3, 0.25][i % 5]
        if x == 0.0:
            continue
        powers.append([x, y, x**y, float(Decimal(x) ** Decimal(y))])

    means = []
    for k, n in enumerate(NUMPY_MEAN_SIZES):
        xs = minstd(1000 + k, n)
        with np.errstate(all="ignore"):
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = float(np.mean(np.array(xs, dtype=np.float64)))
        means.append({"seed": 1000 + k, "n": n, "mean": None if m != m else m})

    out = {
        "generatedBy": "scripts/parity/cocoeval_reference.py",
        "pycocoevalcap": {
            "source": "salaniz/pycocoevalcap ad63453cfab57a81a02b2949b17a91fab1c3df77 (pip 1.2); nlg-eval's copy (Maluuba/nlg-eval 2ab4528f) gives the same values",
            "sha256": files,
        },
        "python": platform.python_version(),
        "numpy": np.__version__,
        "libc": " ".join(platform.libc_ver()),
        "pairsFile": "text-metric-pairs.json",
        "pairsSha256": sha256(pairs_path),
        "committedPairs": len(committed),
        "extraPairs": [{"reference": r, "candidate": c} for r, c in EXTRA_PAIRS],
        "single": {"bleu": single_bleu, "rouge": single_rouge},
        "corpora": corpora,
        "multiReference": {"segments": multi, "corpusBleu": multi_bleu, "perSentenceBleu": multi_bleu_each, "corpusRouge": multi_rouge},
        "rougeBeta": {"rows": beta_rows, "betaSquared": {repr(b): b**2 for b in BETAS}, "values": beta_values},
        "rougeScoreBeta": rouge_score_beta,
        "powers": powers,
        "numpyMeans": means,
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.out}: {len(segments)} pairs, {len(corpora)} corpora, {len(powers)} powers", file=sys.stderr)


if __name__ == "__main__":
    main()
