#!/usr/bin/python3
"""Builds data/wordnet/wn30-meteor.txt.gz: the part of WordNet 3.0 that NLTK 3.8's ``meteor_score`` reads.

NLTK's METEOR (nltk/translate/meteor_score.py, ``_enum_wordnetsyn_match``) asks, for each hypothesis word w,
for the set of ``lemma.name()`` without "_" over ``wordnet.synsets(w)``. ``synsets`` (nltk/corpus/reader/
wordnet.py) lowercases w, runs ``_morphy(w, pos)`` for pos in n, v, a, r (exception lists, then the detachment
rules, checking candidate forms against ``index.<pos>``) and collects the synsets of every form found. So the
data needed is: every index lemma with the parts of speech it is indexed under, every synset's lemma names (to
know which are synonyms), and the four exception lists. The index is not stored: it is derived from the synsets
(a lemma is indexed under pos p with synset s exactly when one of s's names lowercases to it); this script checks
that derivation against NLTK's own ``_lemma_pos_offset_map`` for every lemma and part of speech before writing.

Format (UTF-8 text, gzip level 9, mtime 0 so the build is byte-reproducible):

    # comment lines
    @lemmas <count>
    <lemma>          one per line, sorted by code point, front-coded: first char = length of the prefix shared
                     with the previous lemma (base 36, at most 35), then the rest
    @synsets <count>
    <pos> <name> …   pos n, v, a (satellites included) or r; each name is the base-36 id of its lowercased form in
                     @lemmas, suffixed "^" when the name itself has upper-case letters (such a name can never equal
                     a lowercased reference word, but it still indexes its lemma)
    @exceptions <pos> <count>
    <form> <base> …  NLTK's _exception_map[pos] in its order (a later line of the .exc file overrides an earlier)

Run: /usr/bin/python3 scripts/wordnet/build_wordnet_data.py [out]   (Debian: apt-get install wordnet-base python3-nltk)
"""
import gzip
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nltk_wordnet import nltk_wordnet  # noqa: E402

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
POS = "nvar"


def b36(n):
    s = ""
    while True:
        s = DIGITS[n % 36] + s
        n //= 36
        if not n:
            return s


def debian_version(package):
    try:
        return subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True, check=True).stdout
    except Exception:  # not Debian: leave it out
        return "unknown"


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "data", "wordnet", "wn30-meteor.txt.gz")
    wn = nltk_wordnet()
    index = wn._lemma_pos_offset_map
    lemmas = sorted(index)
    assert all(l == l.lower() for l in lemmas)
    lemma_id = {l: i for i, l in enumerate(lemmas)}

    synsets = []  # (pos, offset, names)
    derived = {}
    for p in POS:
        for s in wn.all_synsets(p):
            if (s.pos() if s.pos() != "s" else "a") != p:
                continue
            names = s.lemma_names()
            synsets.append((p, s.offset(), names))
            for n in names:
                derived.setdefault((n.lower(), p), set()).add(s.offset())
    # The derived index must be NLTK's index, lemma by lemma and pos by pos.
    pairs = 0
    for lemma, by_pos in index.items():
        for p in POS:
            if p in by_pos:
                pairs += 1
                assert set(by_pos[p]) == derived.get((lemma, p), set()), (lemma, p)
    assert pairs == len(derived), (pairs, len(derived))

    lines = [
        "# ReflectEval: WordNet 3.0 lemmas, synset lemma names and morphy exception lists, as NLTK 3.8's meteor_score reads them.",
        f"# Built by scripts/wordnet/build_wordnet_data.py from Debian wordnet-base {debian_version('wordnet-base')} (/usr/share/wordnet), checked against NLTK {__import__('nltk').__version__}.",
        "# WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Licence: data/wordnet/LICENSE.",
        f"@lemmas {len(lemmas)}",
    ]
    prev = ""
    for l in lemmas:
        k = 0
        while k < len(l) and k < len(prev) and k < 35 and l[k] == prev[k]:
            k += 1
        lines.append(DIGITS[k] + l[k:])
        prev = l
    lines.append(f"@synsets {len(synsets)}")
    for p, _off, names in synsets:
        lines.append(p + " " + " ".join(b36(lemma_id[n.lower()]) + ("" if n == n.lower() else "^") for n in names))
    for p in POS:
        exc = wn._exception_map[p]
        lines.append(f"@exceptions {p} {len(exc)}")
        for form, bases in exc.items():
            assert " " not in form and all(" " not in b for b in bases)
            lines.append(" ".join([form] + bases))
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "wb") as fp:
        with gzip.GzipFile(filename="", mode="wb", fileobj=fp, compresslevel=9, mtime=0) as gz:
            gz.write(text.encode("utf-8"))
    print(f"{out}: {len(lemmas)} lemmas, {len(synsets)} synsets, {pairs} (lemma, pos) index entries, "
          f"{sum(len(wn._exception_map[p]) for p in POS)} exceptions; {len(text.encode())} bytes of text, {os.path.getsize(out)} bytes gzipped")


if __name__ == "__main__":
    main()
