#!/usr/bin/python3
"""Builds the (reference, candidate) pairs of the text-metric parity test:
test/core/metrics/fixtures/text-metric-pairs.json. Run once when building fixtures (needs /work/shared); the
output is committed so the test runs without it.

Sources, all seeded (random.Random(20240501)):
- annomi-*: AnnoMI (Wu et al., ICASSP 2022; public domain) from AnnoMI-full.csv. References are therapist
  reflections; candidates are the next therapist utterance, another therapist utterance of the same transcript,
  the client utterance before the reflection (parroting), a reflection of another transcript, and the reference
  itself.
- generated: candidates the bundled model generated for AnnoMI reflection contexts
  (`reflect-eval import annomi AnnoMI-full.csv --quality all --sample 200 --seed 11 --no-one-per-dialogue
  --no-reference-candidate`, then `reflect-eval generate --max-new-tokens 40`), against their references.
- paraphrase: references with words replaced by a WordNet 3.0 synonym (NLTK's wordnet.synsets) or inflected
  (+s, +ed, +ing, +ly), shuffled or truncated, so METEOR's stem and synonym stages and BLEU's smoothing have work.
- edge: hand-written cases: empty strings, whitespace only, punctuation only, non-ASCII text (accents, Greek final
  sigma, Turkish dotted I, German sharp s, CJK, emoji, Kelvin sign, ligatures), Python-only whitespace
  (U+001C-U+001F, U+0085) and JavaScript-only whitespace (U+FEFF), HTML entities and <skipped> (13a), numbers
  with separators, hyphenated line breaks, underscores, repetitions and a long text.

Usage: /usr/bin/python3 scripts/parity/build_text_metric_pairs.py AnnoMI-full.csv generated.dialogues.jsonl [out]
"""
import csv
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "wordnet"))
from nltk_wordnet import nltk_wordnet  # noqa: E402

EDGE = [
    ("", ""),
    ("", "I hear you."),
    ("I hear you.", ""),
    ("   ", "   "),
    (" \t\n ", "You feel stuck."),
    ("...", "..."),
    ("?!", "?!"),
    ("- - -", "—"),
    ("...", "So you're worried."),
    ("So you're worried.", "!!!"),
    ("(laughs)", "[laughs]"),
    ("&amp; &lt; &gt; &quot;", "& < > \""),
    ("&amp;lt;", "&lt;"),
    ("<skipped> you want to stop", "you want to stop <skipped>"),
    ("well-\nbeing matters to you", "wellbeing matters to you"),
    ("It costs $3.50, or 1,000 dollars a year -5", "It costs 3.50 or 1 000 dollars a year - 5"),
    ("1990-1995 was hard.", "From 1990 - 1995, it was hard."),
    ("You said: \"I can't\".", "You said \"I cannot.\""),
    ("don't won't can't you're I'm", "do not will not cannot you are I am"),
    ("ice_cream helps you cope", "ice cream helps you cope"),
    ("a_cappella singing relaxes you", "singing a cappella relaxes you"),
    ("Café au lait, naïve façade, résumé", "cafe au lait naive facade resume"),
    ("ΟΔΥΣΣΕΥΣ ΣΟΦΟΣ", "οδυσσευς σοφος"),
    ("İstanbul'da yaşıyorsun", "istanbul'da yasiyorsun"),
    ("Die Straße ist STRASSE", "die strasse ist straße"),
    ("我很难过。 你觉得很累。", "你 觉得 很 累 。"),
    ("😀 you feel happy 😀", "you feel happy 😀😀"),
    ("𝔘𝔫𝔦𝔠𝔬𝔡𝔢 letters feel odd", "unicode letters feel odd"),
    ("The \u212a score", "the k score"),
    ("ﬁne ﬂow", "fine flow"),
    ("you\u00a0feel\u2009tired\u3000today", "you feel tired today"),
    ("you\x1cfeel\x1dtired\x1etoday\x1fnow", "you feel tired today now"),
    ("you\x85feel\u2028tired\u2029now", "you feel tired now"),
    ("you\ufefffeel tired", "you feel tired"),
    ("zero\u200bwidth space", "zero width space"),
    ("The the THE the", "the the the the the"),
    ("the the the the the the the", "the cat is on the mat"),
    ("so so so so so so so so so so so so so so so", "so"),
    ("I", "I"),
    ("Yes", "Yes."),
    ("You feel", "You feel"),
    ("You feel bad", "You feel bad"),
    ("skies dying lying tying news innings", "sky die lie tie news inning"),
    ("agreed feed hopping hoping filing failing", "agree feed hop hope file fail"),
    ("generalization relational conditional", "general relate condition"),
    ("You're struggling with drinking, and it's affecting your relationships.", "You are struggling with your drinking and it is affecting the relationships you have."),
    ("You've been running and biking more.", "You ran and you biked."),
    ("So you're feeling happier and healthier.", "You feel happy and healthy."),
    ("It sounds like you're worried about your son's grades.", "You're concerned about your boy's marks."),
    ("You want to quit smoking.", "You are not sure you want to quit."),
    ("You want to quit smoking.", "You want to stop smoking."),
    ("You want to quit smoking.", "You wish to give up smoking."),
    ("She is a better cook than the best chefs", "she is a good cook than the good chef"),
    ("Geese and mice and women", "goose and mouse and woman"),
    ("eseseseseses", "eseseseseses"),
    ("ba*ded x*ded", "bad xd"),
    ("a " * 120, "a " * 100),
    ("\u00c0 la carte", "à la carte"),
]


def annomi_pairs(csv_path, rng, n_refs):
    rows = list(csv.DictReader(open(csv_path, encoding="utf-8")))
    by_transcript = {}
    for r in rows:
        by_transcript.setdefault(r["transcript_id"], []).append(r)
    reflections = [(t, i) for t, rs in by_transcript.items() for i, r in enumerate(rs) if r["interlocutor"] == "therapist" and r["main_therapist_behaviour"] == "reflection"]
    rng.shuffle(reflections)
    pairs = []
    for t, i in reflections[:n_refs]:
        rs = by_transcript[t]
        ref = rs[i]["utterance_text"]
        therapist = [r["utterance_text"] for r in rs if r["interlocutor"] == "therapist" and r["utterance_text"] != ref]
        nxt = next((r["utterance_text"] for r in rs[i + 1 :] if r["interlocutor"] == "therapist"), None)
        prev_client = next((r["utterance_text"] for r in reversed(rs[:i]) if r["interlocutor"] == "client"), None)
        kind = rng.randrange(5)
        if kind == 0 and nxt:
            pairs.append(("annomi-next", ref, nxt))
        elif kind == 1 and therapist:
            pairs.append(("annomi-same-transcript", ref, rng.choice(therapist)))
        elif kind == 2 and prev_client:
            pairs.append(("annomi-client", ref, prev_client))
        elif kind == 3:
            ot, oi = rng.choice(reflections)
            pairs.append(("annomi-other-reflection", ref, by_transcript[ot][oi]["utterance_text"]))
        else:
            pairs.append(("annomi-self", ref, ref))
    return pairs, [by_transcript[t][i]["utterance_text"] for t, i in reflections]


def generated_pairs(path):
    pairs = []
    for line in open(path, encoding="utf-8"):
        item = json.loads(line)
        for c in item["candidates"]:
            pairs.append(("generated", item["reference"]["text"], c["text"]))
    return pairs


def paraphrase(text, rng, wn):
    words = text.split()
    out = []
    for w in words:
        core = re.sub(r"[^A-Za-z]", "", w)
        roll = rng.random()
        if len(core) > 3 and roll < 0.35:
            syns = sorted({l.name() for s in wn.synsets(core.lower()) for l in s.lemmas() if "_" not in l.name() and l.name().lower() != core.lower()})
            out.append(w.replace(core, rng.choice(syns)) if syns else w)
        elif len(core) > 3 and roll < 0.5:
            out.append(w.replace(core, core + rng.choice(["s", "ed", "ing", "ly", "er"])))
        elif roll < 0.55:
            continue
        else:
            out.append(w)
    if rng.random() < 0.2:
        rng.shuffle(out)
    if rng.random() < 0.2:
        out = out[: max(1, len(out) // 2)]
    return " ".join(out)


def main():
    csv_path, gen_path = sys.argv[1], sys.argv[2]
    out = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(__file__), "..", "..", "test", "core", "metrics", "fixtures", "text-metric-pairs.json")
    rng = random.Random(20240501)
    wn = nltk_wordnet()
    pairs, reflections = annomi_pairs(csv_path, rng, 650)
    pairs += generated_pairs(gen_path)
    for ref in rng.sample(reflections, 300):
        pairs.append(("paraphrase", ref, paraphrase(ref, rng, wn)))
    pairs += [("edge", r, c) for r, c in EDGE]
    doc = {
        "generatedBy": "scripts/parity/build_text_metric_pairs.py",
        "sources": {
            "annomi": "AnnoMI-full.csv (Wu et al., ICASSP 2022; public domain), therapist reflections as references",
            "generated": "bundled model bundled:reflect-gpt2-tiny, greedy, 40 new tokens, on 200 AnnoMI reflection contexts (seed 11)",
            "paraphrase": "AnnoMI reflections with WordNet 3.0 synonym substitutions and inflections (seeded)",
            "edge": "hand-written edge cases",
        },
        "count": len(pairs),
        "pairs": [{"source": s, "reference": r, "candidate": c} for s, r, c in pairs],
    }
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as fp:
        json.dump(doc, fp, ensure_ascii=False, indent=0)
        fp.write("\n")
    from collections import Counter

    print(out, len(pairs), dict(Counter(s.split("-")[0] for s, _, _ in pairs)))


if __name__ == "__main__":
    main()
