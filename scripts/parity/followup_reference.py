#!/usr/bin/env python3
"""PyTorch reference values for ReflectEval's follow-up likelihood on the BART fixtures.

    /usr/bin/python3 scripts/parity/followup_reference.py     # Debian python3-torch 1.13, python3-onnx 1.12

Fixtures: fixtures/models/reflect-bart-tiny (trained briefly on AnnoMI; Optimum merged decoder) and
fixtures/models/layouts/bart-split (split decoder files). Each fixture's weights are read from its ONNX files into gen-fixtures' TinyBart (scripts/fixtures/build_bart_fixture.py,
Hugging Face BART semantics) and run in float64. Inputs are built as FULL 0.0.3 builds them (github.com/maximedb/full,
full/eval.py at c66eba64cca6c434ebb6ddefca5cd518bb2090d4): encoder text "\\t" + "\\t".join(last 50 turns + [response]),
tokenized with add_prefix_space=True (a leading space) and the tokenizer's special tokens (BART: <s> … </s>),
truncated to the tokenizer's model_max_length (512 here) — on the left (ReflectEval's default) or on the right
(FULL's); labels = tokenizer(" " + follow-up) = <s> … </s>; the decoder reads decoder_start_token_id then the labels
shifted right (transformers' shift_tokens_right); value = mean over label tokens of log_softmax(logits)[label]
(= −HF's cross-entropy loss), natural log.

Cases: contexts of AnnoMI reflections from the committed sample (data/annomi/AnnoMI-sample.csv), each with the
therapist's real reflection and another utterance as responses, scored for every follow-up of
data/followups/fed-followups.json; one long context scored with both truncation sides.

Output: test/core/metrics/fixtures/followup-reference.json (one entry per fixture).
"""
import csv
import json
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "fixtures"))
from fixture_common import FolderTokenizer  # noqa: E402
from reference_outputs import BART_MERGED, BART_SPLIT, load_bart  # noqa: E402

FIXTURES = {"reflect-bart-tiny": BART_MERGED, "layouts/bart-split": BART_SPLIT}
OUT = os.path.join(ROOT, "test", "core", "metrics", "fixtures", "followup-reference.json")
torch.set_num_threads(1)


def reference(name):
    folder = os.path.join(ROOT, "fixtures", "models", name)
    spec = load_bart(folder, FIXTURES[name])
    model = spec["adapter"].model.double().eval()
    start = spec["decoderStart"]
    tcfg = json.load(open(os.path.join(folder, "tokenizer_config.json")))
    max_len = min(tcfg["model_max_length"], json.load(open(os.path.join(folder, "config.json")))["max_position_embeddings"])
    tok = FolderTokenizer(folder, ["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bos, eos = tok.vocab["<s>"], tok.vocab["</s>"]

    def encode(text, side="right"):
        if not text.startswith(" "):
            text = " " + text  # add_prefix_space=True
        ids = tok.encode(text)
        keep = max_len - 2
        if len(ids) > keep:
            ids = ids[:keep] if side == "right" else ids[len(ids) - keep:]
        return [bos] + ids + [eos]

    followups = json.load(open(os.path.join(ROOT, "data", "followups", "fed-followups.json"), encoding="utf-8"))["followUps"]
    labels = [encode(f["text"]) for f in followups]

    @torch.no_grad()
    def score(prompt):
        ids = torch.tensor([prompt])
        mask = torch.ones_like(ids)
        enc = model.encode(ids, mask)
        cross = model.cross_kv(enc)
        out = []
        for lab in labels:
            dec = torch.tensor([[start] + lab[:-1]])
            logits = model.decode(dec, mask, cross, None)[0][0]
            lp = torch.log_softmax(logits, dim=-1)
            out.append(float(sum(lp[t, y] for t, y in enumerate(lab)) / len(lab)))
        return out

    rows = list(csv.DictReader(open(os.path.join(ROOT, "data", "annomi", "AnnoMI-sample.csv"), newline="", encoding="utf-8")))
    by_t = {}
    for r in rows:
        by_t.setdefault(r["transcript_id"], []).append(r)
    cases = []
    for tid in sorted(by_t):
        if len(cases) >= 12:
            break
        turns = sorted(by_t[tid], key=lambda r: int(r["utterance_id"]))
        idx = next((i for i, r in enumerate(turns) if r["main_therapist_behaviour"] == "reflection" and i >= 3), None)
        if idx is None:
            continue
        context = [{"speaker": r["interlocutor"], "text": r["utterance_text"]} for r in turns[:idx]][-8:]
        for response in (turns[idx]["utterance_text"], turns[idx - 2]["utterance_text"]):
            text = "\t" + "\t".join([t["text"] for t in context[-50:]] + [response])
            prompt = encode(text, "left")
            cases.append({"context": context, "response": response, "truncationSide": "left", "promptLength": len(prompt), "values": score(prompt)})
    # A long history: 60 turns (lookback keeps 50), over 512 tokens, scored with both truncation sides.
    long_t = max(by_t, key=lambda t: len(by_t[t]))
    turns = sorted(by_t[long_t], key=lambda r: int(r["utterance_id"]))
    context = [{"speaker": r["interlocutor"], "text": r["utterance_text"]} for r in turns[:60]]
    response = turns[60]["utterance_text"]
    text = "\t" + "\t".join([t["text"] for t in context[-50:]] + [response])
    for side in ("left", "right"):
        prompt = encode(text, side)
        cases.append({"context": context, "response": response, "truncationSide": side, "promptLength": len(prompt),
                      "untruncatedLength": len(tok.encode(" " + text)) + 2, "values": score(prompt)})
    print(f"{name}: {len(cases)} cases × {len(followups)} follow-ups; long case {cases[-1]['untruncatedLength']} tokens")
    return {"model": f"fixtures/models/{name}", "maxLength": max_len, "followUpIds": [f["id"] for f in followups], "cases": cases}


def main():
    models = {name: reference(name) for name in FIXTURES}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    json.dump({"generatedBy": "scripts/parity/followup_reference.py", "torch": torch.__version__, "dtype": "float64",
               "full": {"version": "0.0.3", "commit": "c66eba64cca6c434ebb6ddefca5cd518bb2090d4"}, "lookback": 50, "models": models},
              open(OUT, "w", encoding="utf-8"), ensure_ascii=False)
    print(f"→ {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
