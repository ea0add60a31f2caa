#!/usr/bin/python3
"""Reference values for ReflectEval's text metrics, computed in Python by the reference implementations.

- BLEU-4 and METEOR: NLTK 3.8 itself (Debian python3-nltk 3.8-1): ``sentence_bleu`` with ``SmoothingFunction``,
  ``meteor_score`` with WordNet 3.0 from Debian's wordnet-base (../wordnet/nltk_wordnet.py) and NLTK's
  ``PorterStemmer``.
- sentence BLEU of sacreBLEU: sacreBLEU is not installed here, so ``sacrebleu_sentence_bleu`` below is
  sacreBLEU-equivalent code written from sacreBLEU 2.6.0 (github.com/mjpost/sacrebleu at
  f615c7286d4d813370efb824d94fc2bfcd3a6b94): compat.sentence_bleu -> BLEU(tokenize='13a', smooth_method='exp',
  effective_order=True).sentence_score: BLEU._preprocess_segment (lowercase, rstrip, tokenizer), tokenizer_13a +
  TokenizerRegexp, helpers.extract_all_word_ngrams, BLEU._compute_segment_statistics, BLEU.compute_bleu,
  utils.my_log.
- ROUGE-L of rouge-score: not installed either; ``rouge_l`` below is rouge-score-equivalent code written from
  rouge-score 0.1.2 (github.com/google-research/google-research rouge/: rouge_scorer.py at 61ce9f0c,
  tokenize.py at 7ce52c05, scoring.py): tokenize.tokenize with NLTK's PorterStemmer, _score_lcs, _lcs_table,
  scoring.fmeasure.

Modes:
  text_metrics_reference.py                 parity values for test/core/metrics/fixtures/text-metric-pairs.json,
                                            written to test/core/metrics/fixtures/text-metric-parity.json
  text_metrics_reference.py --bench IN OUT  the benchmark's reference run: BLEU-4 (NLTK defaults, whitespace
                                            tokens), ROUGE-L (rouge-score defaults) and METEOR (NLTK defaults,
                                            whitespace tokens) over the pairs of IN (JSON lines [reference,
                                            candidate]); writes the values and, per metric, the wall-clock and
                                            CPU seconds of its scoring loop alone (time.perf_counter,
                                            time.process_time) to OUT.
"""
import hashlib
import json
import math
import os
import platform
import re
import sys
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wordnet"))
from nltk_wordnet import nltk_wordnet  # noqa: E402

warnings.filterwarnings("ignore")
WORDNET = nltk_wordnet()

import nltk  # noqa: E402
from nltk.stem.porter import PorterStemmer  # noqa: E402
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu  # noqa: E402
from nltk.translate.meteor_score import meteor_score  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "test", "core", "metrics", "fixtures")

# ----------------------------------------------------------------------------------------------------------------
# sacreBLEU-equivalent code (sacreBLEU 2.6.0)

_RE_13A = [
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def tokenize_13a(line):
    """Tokenizer13a()(line)."""
    line = line.replace("<skipped>", "")
    line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"')
        line = line.replace("&amp;", "&")
        line = line.replace("&lt;", "<")
        line = line.replace("&gt;", ">")
    line = f" {line} "
    for regex, repl in _RE_13A:
        line = regex.sub(repl, line)
    return " ".join(line.split())


def _sacre_preprocess(sent, lowercase, tokenize):
    if lowercase:
        sent = sent.lower()
    sent = sent.rstrip()
    return tokenize_13a(sent) if tokenize == "13a" else sent


def _word_ngrams(line, max_order=4):
    tokens = line.split()
    counts = {}
    for n in range(1, max_order + 1):
        for i in range(0, len(tokens) - n + 1):
            g = tuple(tokens[i : i + n])
            counts[g] = counts.get(g, 0) + 1
    return counts, len(tokens)


SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}


def _compute_bleu(correct, total, sys_len, ref_len, smooth_method, smooth_value, effective_order, max_ngram_order=4):
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    precisions = [0.0] * max_ngram_order
    if not any(correct):
        return 0.0
    smooth_mteval = 1.0
    eff_order = max_ngram_order
    for n in range(1, len(precisions) + 1):
        if smooth_method == "add-k" and n > 1:
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
            elif smooth_method == "floor":
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    my_log = lambda num: -9999999999 if num == 0.0 else math.log(num)  # noqa: E731
    return bp * math.exp(sum([my_log(p) for p in precisions[:eff_order]]) / eff_order)


def sacrebleu_sentence_bleu(hypothesis, reference, smooth_method="exp", smooth_value=None, lowercase=False, tokenize="13a", use_effective_order=True):
    """sacrebleu.sentence_bleu(hypothesis, [reference], ...).score"""
    ref_ngrams, ref_len = _word_ngrams(_sacre_preprocess(reference, lowercase, tokenize))
    hyp_ngrams, hyp_len = _word_ngrams(_sacre_preprocess(hypothesis, lowercase, tokenize))
    correct = [0, 0, 0, 0]
    total = [0, 0, 0, 0]
    for g, c in hyp_ngrams.items():
        n = len(g) - 1
        total[n] += c
        if g in ref_ngrams:
            correct[n] += min(c, ref_ngrams[g])
    return _compute_bleu(correct, total, hyp_len, ref_len, smooth_method, smooth_value, use_effective_order)


# ----------------------------------------------------------------------------------------------------------------
# rouge-score-equivalent code (rouge-score 0.1.2)

PORTER = PorterStemmer()


def rouge_tokenize(text, stem):
    text = text.lower()
    text = re.sub(r"[^a-z0-9]+", " ", text)
    tokens = re.split(r"\s+", text)
    if stem:
        tokens = [PORTER.stem(x) if len(x) > 3 else x for x in tokens]
    return [x for x in tokens if re.match(r"^[a-z0-9]+$", x)]


def rouge_l(target, prediction, stem):
    """RougeScorer(['rougeL'], use_stemmer=stem).score(target, prediction)['rougeL'] as (precision, recall, f)."""
    t = rouge_tokenize(target, stem)
    p = rouge_tokenize(prediction, stem)
    if not t or not p:
        return 0, 0, 0
    table = [[0] * (len(p) + 1) for _ in range(len(t) + 1)]
    for i in range(1, len(t) + 1):
        for j in range(1, len(p) + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if t[i - 1] == p[j - 1] else max(table[i - 1][j], table[i][j - 1])
    lcs = table[-1][-1]
    precision = lcs / len(p)
    recall = lcs / len(t)
    f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f


# ----------------------------------------------------------------------------------------------------------------
# NLTK 3.8

SMOOTHING = SmoothingFunction()  # epsilon=0.1, alpha=5, k=5


def words(text, tokenizer):
    if tokenizer == "whitespace":
        return text.split()
    if tokenizer == "lowercase":
        return text.lower().split()
    if tokenizer == "13a":
        return tokenize_13a(text.rstrip()).split()
    raise ValueError(tokenizer)


def nltk_bleu4(reference, candidate, tokenizer="whitespace", smoothing="none", autoReweigh=False):
    fn = SMOOTHING.method0 if smoothing == "none" else getattr(SMOOTHING, smoothing)
    try:
        return float(sentence_bleu([words(reference, tokenizer)], words(candidate, tokenizer), smoothing_function=fn, auto_reweigh=autoReweigh))
    except AssertionError:  # method6 without trigram matches
        return None


def nltk_meteor(reference, candidate, mode="tokens", tokenizer="whitespace", alpha=0.9, beta=3.0, gamma=0.5):
    if mode == "string":
        # NLTK 3.6.3-3.6.4's string API: preprocess(text).split() with preprocess=str.lower, words used as they are.
        return meteor_score([reference.lower().split()], candidate.lower().split(), preprocess=lambda w: w, alpha=alpha, beta=beta, gamma=gamma)
    return meteor_score([words(reference, tokenizer)], words(candidate, tokenizer), alpha=alpha, beta=beta, gamma=gamma)


# ----------------------------------------------------------------------------------------------------------------


def variants():
    out = []
    for tok in ("whitespace", "13a", "lowercase"):
        for sm in ("none", "method1", "method2", "method3", "method4", "method5", "method6", "method7"):
            out.append({"id": f"bleu4 tok={tok} smooth={sm}", "metric": "bleu4", "output": "score", "config": {"tokenizer": tok, "smoothing": sm}})
    out.append({"id": "bleu4 tok=whitespace smooth=none autoReweigh", "metric": "bleu4", "output": "score", "config": {"tokenizer": "whitespace", "smoothing": "none", "autoReweigh": True}})
    for name, cfg in [
        ("default", {}),
        ("smooth=none", {"smoothMethod": "none"}),
        ("smooth=floor", {"smoothMethod": "floor"}),
        ("smooth=add-k", {"smoothMethod": "add-k"}),
        ("lowercase", {"lowercase": True}),
        ("tokenize=none", {"tokenize": "none"}),
        ("effectiveOrder=false", {"effectiveOrder": False}),
    ]:
        out.append({"id": f"sacrebleu {name}", "metric": "sacrebleu", "output": "score", "config": cfg})
    for stem in (False, True):
        for o in ("f", "precision", "recall"):
            out.append({"id": f"rougeL stemmer={stem} {o}", "metric": "rougeL", "output": o, "config": {"stemmer": stem}})
    for name, cfg in [
        ("mode=tokens tok=whitespace", {"mode": "tokens", "tokenizer": "whitespace"}),
        ("mode=tokens tok=13a", {"mode": "tokens", "tokenizer": "13a"}),
        ("mode=string", {"mode": "string"}),
        ("mode=tokens alpha=0.85 beta=2 gamma=0.45", {"mode": "tokens", "alpha": 0.85, "beta": 2.0, "gamma": 0.45}),
    ]:
        out.append({"id": f"meteor {name}", "metric": "meteor", "output": "score", "config": cfg})
    return out


def value(v, reference, candidate):
    m, c = v["metric"], v["config"]
    if m == "bleu4":
        return nltk_bleu4(reference, candidate, **c)
    if m == "sacrebleu":
        kw = {"smoothMethod": "smooth_method", "lowercase": "lowercase", "tokenize": "tokenize", "effectiveOrder": "use_effective_order"}
        return sacrebleu_sentence_bleu(candidate, reference, **{kw[k]: x for k, x in c.items()})
    if m == "rougeL":
        p, r, f = rouge_l(reference, candidate, c["stemmer"])
        return {"precision": p, "recall": r, "f": f}[v["output"]]
    if m == "meteor":
        return nltk_meteor(reference, candidate, **c)
    raise ValueError(m)


def synonym_digest(word):
    """First 12 hex digits of sha1 over the sorted synonym set METEOR uses (names that equal their lowercase)."""
    syns = {l.name() for s in WORDNET.synsets(word) for l in s.lemmas() if "_" not in l.name()} | {word}
    joined = "\n".join(sorted(x for x in syns if x == x.lower()))
    return hashlib.sha1(joined.encode("utf-8")).hexdigest()[:12]


def parity():
    pairs = json.load(open(os.path.join(FIXTURES, "text-metric-pairs.json"), encoding="utf-8"))["pairs"]
    out_variants = []
    for v in variants():
        values = [value(v, p["reference"], p["candidate"]) for p in pairs]
        out_variants.append({**v, "values": [None if x is None else float(x) for x in values]})
    # Porter stems and WordNet synonym sets of every word METEOR / ROUGE-L see in the pairs.
    vocab = set()
    for p in pairs:
        for text in (p["reference"], p["candidate"]):
            vocab.update(text.lower().split())
            vocab.update(rouge_tokenize(text, False))
    vocab = sorted(vocab)
    doc = {
        "generatedBy": "scripts/parity/text_metrics_reference.py",
        "python": platform.python_version(),
        "nltk": nltk.__version__,
        "wordnet": WORDNET.get_version(),
        "sacrebleu": "sacreBLEU-equivalent code from sacreBLEU 2.6.0 (mjpost/sacrebleu f615c7286d4d813370efb824d94fc2bfcd3a6b94)",
        "rougeScore": "rouge-score-equivalent code from rouge-score 0.1.2 (google-research/google-research rouge/, rouge_scorer.py 61ce9f0c, tokenize.py 7ce52c05)",
        "pairs": len(pairs),
        "variants": out_variants,
        "stems": {w: PORTER.stem(w) for w in vocab},
        "synonymDigests": {w: synonym_digest(w) for w in vocab},
    }
    out = os.path.join(FIXTURES, "text-metric-parity.json")
    with open(out, "w", encoding="utf-8") as fp:
        json.dump(doc, fp, ensure_ascii=False, separators=(",", ":"))
        fp.write("\n")
    print(f"{out}: {len(pairs)} pairs x {len(out_variants)} variants, {len(vocab)} words")


def bench(inp, out):
    pairs = [json.loads(line) for line in open(inp, encoding="utf-8") if line.strip()]
    wall, cpu, values = {}, {}, {}
    loops = {
        "bleu4": lambda r, c: float(sentence_bleu([r.split()], c.split())),
        "rougeL": lambda r, c: rouge_l(r, c, False)[2],
        "meteor": lambda r, c: meteor_score([r.split()], c.split()),
    }
    for name, fn in loops.items():
        t0, c0 = time.perf_counter(), time.process_time()
        values[name] = [fn(reference, candidate) for reference, candidate in pairs]
        wall[name], cpu[name] = time.perf_counter() - t0, time.process_time() - c0
    with open(out, "w", encoding="utf-8") as fp:
        json.dump({"wall": wall, "cpu": cpu, "pairs": len(pairs), **values}, fp)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--bench":
        bench(sys.argv[2], sys.argv[3])
    else:
        parity()
