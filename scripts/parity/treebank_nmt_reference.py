#!/usr/bin/python3
"""Reference values for the Treebank tokenizer variants and the nmt / Hugging Face evaluate BLEU.

- NLTK 3.8 (Debian python3-nltk 3.8-1) itself: ``TreebankWordTokenizer().tokenize`` on every text of the committed
  pairs and on tokenizer edge cases; ``sentence_bleu`` (all smoothing functions) and ``meteor_score`` on Treebank
  tokens (via text_metrics_reference.py's helpers, WordNet 3.0 from Debian's wordnet-base).
- tensorflow/nmt ``compute_bleu`` and Hugging Face evaluate's ``Tokenizer13a``: the original files, run as they
  are, NOT part of this repository (they are Apache-2.0 code of other projects, used only to produce the values).
  Get them and pass their paths:

      git show 0be864257a76c151eef20ea689755f08bc1faf4e:nmt/scripts/bleu.py      # github.com/tensorflow/nmt
        > /tmp/ref/nmt_bleu.py        (sha256 d35b20182f82f22f1c31232df1d25977328cf011178fcd381c2d82ee4116b40b)
      git show v0.4.6:metrics/bleu/tokenizer_13a.py                              # github.com/huggingface/evaluate
        > /tmp/ref/tokenizer_13a.py   (sha256 496ba6b982897605ca52ac06595a0e59496c8563e26a28b47f14a0cfba725a91)

      /usr/bin/python3 scripts/parity/treebank_nmt_reference.py /tmp/ref/nmt_bleu.py /tmp/ref/tokenizer_13a.py

  evaluate's ``bleu`` metric (metrics/bleu/bleu.py) is ``compute_bleu(references=[[tokenizer(r)]],
  translations=[tokenizer(p)], max_order, smooth)`` with ``tokenizer=Tokenizer13a()`` by default and imports
  compute_bleu from exactly that nmt file; this script calls them the same way, one pair at a time.

Writes test/core/metrics/fixtures/treebank-nmt-parity.json (read by test/core/metrics/treebankNmtParity.test.ts).
"""
import hashlib
import importlib.util
import json
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import text_metrics_reference as tmr  # noqa: E402  (loads NLTK's WordNet from Debian's files)

import nltk  # noqa: E402
from nltk.tokenize import TreebankWordTokenizer  # noqa: E402
from nltk.translate.bleu_score import sentence_bleu  # noqa: E402
from nltk.translate.meteor_score import meteor_score  # noqa: E402

TREEBANK = TreebankWordTokenizer()

# Texts that exercise every rule of the tokenizer and the places where Python's re and JavaScript differ.
EDGE_TEXTS = [
    '"Hello," she said.',
    "I can't do it... really!",
    "gimme the cannot, GONNA gotta lemme d'ye more'n wanna",
    "wanna\tgo wanna\u00a0go wanna\u2003go wanna",
    "'Tis the 'twas. 'TIS 'TWAS 'tıs 'twaſ",
    "cannot CANNOT cannotx xcannot c\u0430nnot",
    "gımme gİmme gimme",
    "a--b -- c---d (c) [d] {e} <f>",
    "end.\n",
    "end.\n\n",
    "end. \n",
    "end.)\" ",
    "Mr. Smith went to Washington. He said 'hi'.",
    "x:y 3:4 a,b 1,000 a: b, c,",
    "ratio 3:\u0663 and 1,\u0661 and 2,\u00b2",
    "rock 'n' roll ''quoted'' don't",
    "they'll they'LL I'm I'M he'd she's SHE'S you're YOU'VE can't CAN'T won't",
    "' quoted ' and \"quoted\" and ``quoted'' and (\"x\") [\"y\"] {''z''} <\"w\">",
    "It costs $5 & 20% @home #tag;",
    "Why?! Really?? No!",
    "caf\u00e9's na\u00efve co\u00f6perate \u00fcber's",
    "\u0391\u03b8\u03ae\u03bd\u03b1 can't \u03a3\u039f\u03a6\u0399\u0391'S",
    "\u65e5\u672c\u8a9e\u3067\u3059\u3002 can't",
    "emoji \U0001F600's cannot\U0001F600",
    "under_score's wanna_be",
    "tab\there\x1cand\x1fthere",
    "",
    "   ",
    ".",
    "...",
    "'",
    "\"",
    "a'",
    "trailing comma,",
    "trailing colon:",
    "The end...",
    "Kelvin \u212a's and long \u017f",
]


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def sha256(path):
    with open(path, "rb") as fp:
        return hashlib.sha256(fp.read()).hexdigest()


def main(nmt_path, tokenizer_path):
    nmt = load(nmt_path, "nmt_bleu")
    hf = load(tokenizer_path, "hf_tokenizer_13a")
    hf13a = hf.Tokenizer13a()
    pairs = json.load(open(os.path.join(tmr.FIXTURES, "text-metric-pairs.json"), encoding="utf-8"))["pairs"]

    texts = sorted({t for p in pairs for t in (p["reference"], p["candidate"])} | set(EDGE_TEXTS))
    tokens = {t: TREEBANK.tokenize(t) for t in texts}

    def words(text, tokenizer):
        if tokenizer == "treebank":
            return TREEBANK.tokenize(text)
        if tokenizer == "13a-hf":
            return hf13a(text)
        return tmr.words(text, tokenizer)

    variants = []
    for sm in ("none", "method1", "method2", "method3", "method4", "method5", "method6", "method7"):
        fn = tmr.SMOOTHING.method0 if sm == "none" else getattr(tmr.SMOOTHING, sm)
        values = []
        for p in pairs:
            try:
                values.append(float(sentence_bleu([TREEBANK.tokenize(p["reference"])], TREEBANK.tokenize(p["candidate"]), smoothing_function=fn)))
            except AssertionError:  # method6 without a trigram match
                values.append(None)
        variants.append({"id": f"bleu4 tok=treebank smooth={sm}", "metric": "bleu4", "output": "score", "config": {"tokenizer": "treebank", "smoothing": sm}, "values": values})
    variants.append({
        "id": "meteor mode=tokens tok=treebank",
        "metric": "meteor",
        "output": "score",
        "config": {"mode": "tokens", "tokenizer": "treebank"},
        "values": [float(meteor_score([TREEBANK.tokenize(p["reference"])], TREEBANK.tokenize(p["candidate"]))) for p in pairs],
    })
    for tok in ("13a-hf", "whitespace", "lowercase", "treebank"):
        for smooth in (False, True):
            for order in ((4, 2) if tok == "13a-hf" else (4,)):
                values = []
                for p in pairs:
                    try:
                        values.append(float(nmt.compute_bleu([[words(p["reference"], tok)]], [words(p["candidate"], tok)], max_order=order, smooth=smooth)[0]))
                    except ZeroDivisionError:  # an empty candidate or reference
                        values.append(None)
                config = {"tokenizer": "13a" if tok == "13a-hf" else tok, "smooth": smooth, "maxOrder": order}
                variants.append({"id": f"nmtBleu tok={tok} smooth={smooth} order={order}", "metric": "nmtBleu", "output": "score", "config": config, "values": values})

    doc = {
        "generatedBy": "scripts/parity/treebank_nmt_reference.py",
        "python": platform.python_version(),
        "nltk": nltk.__version__,
        "wordnet": tmr.WORDNET.get_version(),
        "nmtBleu": {"file": "tensorflow/nmt nmt/scripts/bleu.py @ 0be864257a76c151eef20ea689755f08bc1faf4e", "sha256": sha256(nmt_path)},
        "hfTokenizer13a": {"file": "huggingface/evaluate metrics/bleu/tokenizer_13a.py @ v0.4.6 (a4fcb45252709bd07fba897afd4575735716664f)", "sha256": sha256(tokenizer_path)},
        "pairs": len(pairs),
        "treebankTokens": tokens,
        "hf13aTokens": {t: hf13a(t) for t in EDGE_TEXTS},
        "variants": variants,
    }
    out = os.path.join(tmr.FIXTURES, "treebank-nmt-parity.json")
    with open(out, "w", encoding="utf-8") as fp:
        json.dump(doc, fp, ensure_ascii=False, separators=(",", ":"))
        fp.write("\n")
    print(f"{out}: {len(texts)} texts tokenized, {len(pairs)} pairs x {len(variants)} variants")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
