#!/usr/bin/env python3
"""PyTorch reference values for ReflectEval's BERTScore and sentence embeddings on the tiny encoder fixture.

    /usr/bin/python3 scripts/parity/bertscore_reference.py     # Debian python3-torch 1.13, python3-onnx 1.12

The encoder's weights are read from the fixture's ONNX file itself (fixtures/models/reflect-roberta-tiny/onnx/
model.onnx initializers) into tiny_roberta.TinyRoberta (Hugging Face RobertaModel in plain PyTorch) and run in
float64, so the values are those of the exact weights ReflectEval runs, without float32 rounding.

BERTScore follows Tiiiger/bert_score 0.3.13 (commit 19e7f551fe4fa43fdd07b8129ae947015b902b2d, bert_score/utils.py
and score.py), re-implemented here because neither bert_score nor transformers is installable on this machine:
- sent_encode: strip (Python str.strip); "" → [<s>, </s>]; else RobertaTokenizer.encode(add_special_tokens=True,
  add_prefix_space=True, truncation to model_max_length);
- layer L = hidden_states[L] (bert_score truncates the model to L layers and takes its last hidden state, which
  for a post-LayerNorm encoder such as RoBERTa is the same tensor);
- idf=False: every token weight 1, <s> and </s> 0; idf=True: get_idf_dict over the references *as passed*
  (repeats count): idf(t) = ln((M + 1) / (df(t) + 1)), unseen tokens ln(M + 1);
- greedy_cos_idf: cosine similarity of every candidate token with every reference token (special tokens
  included in the max, weighted 0 in the sums), P = Σ_cand w·max / Σ w, R likewise over reference tokens,
  F = 2PR / (P + R); a sentence of only special tokens (empty after strip) sets P = R = 0; F = nan → 0;
- rescale: (s − b) / (1 − b) for P, R and F each, b from the baseline file's row `layer` (LAYER,P,R,F).
Every pair is matched alone (`pairwise`). bert_score itself pads a batch of 64 pairs and takes the max over padded
reference/candidate positions too, whose similarity is 0 after masking: a token whose cosine with every real token
of the other sentence is negative then gets 0 instead of its (negative) best. Each result's `bertScoreBatched` records how far the package's batched arithmetic (batches of 64 pairs) is from
the pairwise values: on pairs where some token's best cosine is negative (`negativeBestPairs`; a tiny random-ish
encoder has them, roberta-large's anisotropic embeddings practically never do) and on all the others.

Also writes fixtures/models/reflect-roberta-tiny/rescale_baseline.csv, a baseline file in bert_score's format
computed as bert_score's get_rescale_baseline does (mean P/R/F of 2,000 random unrelated sentence pairs, here from
AnnoMI, per layer), and sentence embeddings (mean pooling over the attention mask, L2 normalisation:
sentence-transformers' Pooling(mean) + Normalize) of some sentences, alone and in padded batches.

Output: test/core/metrics/fixtures/bertscore-reference.json.
"""
import csv
import json
import math
import os
import random
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "fixtures"))
from tiny_roberta import RobertaBPE, TinyRoberta  # noqa: E402

FIXTURE = os.path.join(ROOT, "fixtures", "models", "reflect-roberta-tiny")
OUT = os.path.join(ROOT, "test", "core", "metrics", "fixtures", "bertscore-reference.json")
BERT_SCORE = {"package": "bert_score", "version": "0.3.13", "commit": "19e7f551fe4fa43fdd07b8129ae947015b902b2d"}

torch.set_num_threads(1)


def load():
    cfg = json.load(open(os.path.join(FIXTURE, "config.json")))
    tcfg = json.load(open(os.path.join(FIXTURE, "tokenizer_config.json")))
    vocab = json.load(open(os.path.join(FIXTURE, "vocab.json"), encoding="utf-8"))
    merges = [tuple(l.split(" ")) for l in open(os.path.join(FIXTURE, "merges.txt"), encoding="utf-8").read().split("\n")[1:] if l]
    tok = RobertaBPE(vocab, merges, tcfg["model_max_length"])
    model = TinyRoberta(cfg["vocab_size"], cfg["hidden_size"], cfg["num_hidden_layers"], cfg["num_attention_heads"],
                        cfg["intermediate_size"], cfg["max_position_embeddings"], cfg["pad_token_id"], eps=cfg["layer_norm_eps"])
    init = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in onnx.load(os.path.join(FIXTURE, "onnx", "model.onnx")).graph.initializer}
    sd = model.state_dict()
    missing = [k for k in sd if k not in init]
    assert not missing, f"parameters not found in the ONNX initializers: {missing}"
    model.load_state_dict({k: init[k] for k in sd})
    model = model.double().eval()
    return tok, model, cfg


def sent_encode(tok, sent):
    sent = sent.strip()
    if sent == "":
        return [tok.cls_id, tok.sep_id]
    return tok.encode(sent, add_prefix_space=True)


@torch.no_grad()
def hidden_states(model, id_lists, pad_id):
    """All layers' hidden states of sentences encoded in one right-padded batch: list of [layers+1, len, d]."""
    L = max(len(x) for x in id_lists)
    ids = torch.full((len(id_lists), L), pad_id, dtype=torch.long)
    mask = torch.zeros((len(id_lists), L), dtype=torch.long)
    for i, x in enumerate(id_lists):
        ids[i, : len(x)] = torch.tensor(x)
        mask[i, : len(x)] = 1
    out = model(ids, mask)
    hs = torch.stack(out[1:], dim=1)  # [B, layers+1, L, d]
    return [hs[i, :, : len(x)] for i, x in enumerate(id_lists)]


def idf_dict(tok, refs):
    m = len(refs)
    df = {}
    for r in refs:
        for t in set(sent_encode(tok, r)):
            df[t] = df.get(t, 0) + 1
    return {t: math.log((m + 1) / (c + 1)) for t, c in df.items()}, math.log(m + 1)


def weights(tok, ids, idf):
    if idf is None:
        return [0.0 if t in (tok.cls_id, tok.sep_id) else 1.0 for t in ids]
    table, default = idf
    return [table.get(t, default) for t in ids]


def greedy(hyp_emb, hyp_w, ref_emb, ref_w):
    """One pair, bert_score's greedy_cos_idf without batch padding. Returns (P, R, F) as floats (nan possible)."""
    h = hyp_emb / hyp_emb.norm(dim=-1, keepdim=True)
    r = ref_emb / ref_emb.norm(dim=-1, keepdim=True)
    sim = h @ r.t()
    hw, rw = torch.tensor(hyp_w, dtype=torch.float64), torch.tensor(ref_w, dtype=torch.float64)
    best_p, best_r = sim.max(dim=1)[0], sim.max(dim=0)[0]
    negative = bool((best_p < 0).any() or (best_r < 0).any())
    P = float((best_p * (hw / hw.sum())).sum())
    R = float((best_r * (rw / rw.sum())).sum())
    F = 2 * P * R / (P + R) if (P + R) != 0 else float("nan")
    if len(hyp_w) == 2 or len(ref_w) == 2:  # bert_score: masks.sum(dim=1).eq(2) → P, R = 0
        P, R = 0.0, 0.0
    if math.isnan(F):
        F = 0.0
    return (P, R, F), negative


def greedy_batched(pairs):
    """bert_score's batched greedy_cos_idf on one batch: embeddings padded with 2.0, similarities of padded
    positions masked to 0 and included in the max."""
    def pad(embs, ws):
        L = max(e.shape[0] for e in embs)
        d = embs[0].shape[1]
        E = torch.full((len(embs), L, d), 2.0, dtype=torch.float64)
        W = torch.zeros((len(embs), L), dtype=torch.float64)
        M = torch.zeros((len(embs), L), dtype=torch.float64)
        for i, (e, w) in enumerate(zip(embs, ws)):
            E[i, : e.shape[0]] = e
            W[i, : len(w)] = torch.tensor(w, dtype=torch.float64)
            M[i, : e.shape[0]] = 1
        return E, W, M
    HE, HW, HM = pad([p[0] for p in pairs], [p[1] for p in pairs])
    RE, RW, RM = pad([p[2] for p in pairs], [p[3] for p in pairs])
    HE = HE / HE.norm(dim=-1, keepdim=True)
    RE = RE / RE.norm(dim=-1, keepdim=True)
    sim = torch.bmm(HE, RE.transpose(1, 2)) * torch.bmm(HM.unsqueeze(2), RM.unsqueeze(1))
    HW = HW / HW.sum(dim=1, keepdim=True)
    RW = RW / RW.sum(dim=1, keepdim=True)
    P = (sim.max(dim=2)[0] * HW).sum(dim=1)
    R = (sim.max(dim=1)[0] * RW).sum(dim=1)
    F = 2 * P * R / (P + R)
    P = P.masked_fill(HM.sum(dim=1).eq(2) | RM.sum(dim=1).eq(2), 0.0)
    R = R.masked_fill(HM.sum(dim=1).eq(2) | RM.sum(dim=1).eq(2), 0.0)
    F = F.masked_fill(torch.isnan(F), 0.0)
    return [(float(p), float(r), float(f)) for p, r, f in zip(P, R, F)]


def num(x):
    return None if isinstance(x, float) and math.isnan(x) else x


def main():
    tok, model, cfg = load()
    n_layers = cfg["num_hidden_layers"]
    rows = list(csv.DictReader(open(os.path.join(ROOT, "data", "annomi", "AnnoMI-sample.csv"), newline="", encoding="utf-8")))
    utts = []
    seen = set()
    for r in rows:
        t = r["utterance_text"]
        if t not in seen:
            seen.add(t)
            utts.append((r["transcript_id"], r["interlocutor"], r["main_therapist_behaviour"], t))
    rnd = random.Random(20261122)
    reflections = [u for u in utts if u[2] == "reflection"]
    therapist = [u for u in utts if u[1] == "therapist"]
    long_text = " ".join(u[3] for u in reflections[:12])  # well over model_max_length tokens
    pairs = []
    for ref in rnd.sample(reflections, 40):
        same = [u for u in therapist if u[0] == ref[0] and u[3] != ref[3]]
        for c in rnd.sample(same, min(4, len(same))):
            pairs.append({"candidate": c[3], "reference": ref[3], "kind": "annomi"})
    edge = [
        ("", "So you feel stuck between two choices."),
        ("So you feel stuck between two choices.", ""),
        ("", ""),
        ("   \t\n ", "You want to cut down."),
        ("  You want to cut down.  ", "You want to cut down."),
        ("You want to cut down.", "You want to cut down."),
        ("...", "?!"),
        ("¿Qué tal? Café, naïve, 東京, 😊", "You feel at home in two languages."),
        ("\u00a0You're worried about your son.\u3000", "You are worried about your son."),
        (long_text, reflections[0][3]),
        (reflections[1][3], long_text),
        ("ok", "Okay."),
    ]
    for c, r in edge:
        pairs.append({"candidate": c, "reference": r, "kind": "edge"})
    # A group whose references all contain "." so that a candidate "." has idf weight 0 on its only token:
    # bert_score then divides 0 by 0 and reports P = nan (F = nan → 0).
    dot_refs = ["You drink a lot.", "Right.", "It is hard."]
    dot_group = [{"candidate": ".", "reference": dot_refs[0], "kind": "idf-nan"}] + [
        {"candidate": "You do drink.", "reference": r, "kind": "idf-nan"} for r in dot_refs[1:]]

    cache = {}

    def encode_all(texts):
        uniq = sorted(set(texts), key=lambda s: len(s.split(" ")), reverse=True)
        ids = {t: sent_encode(tok, t) for t in uniq}
        todo = [t for t in uniq if t not in cache]
        for i in range(0, len(todo), 64):  # bert_score's embedding batches (sorted, 64 sentences, padded)
            batch = todo[i: i + 64]
            for t, h in zip(batch, hidden_states(model, [ids[t] for t in batch], tok.pad_id)):
                cache[t] = h
        return ids, cache

    def run(group, layer, idf, baseline=None):
        refs = [p["reference"] for p in group]
        ids, embs = encode_all([p["candidate"] for p in group] + refs)
        idf_t = idf_dict(tok, refs) if idf else None
        out, stack, flags = [], [], []
        for p in group:
            c, r = p["candidate"], p["reference"]
            hw, rw = weights(tok, ids[c], idf_t), weights(tok, ids[r], idf_t)
            vals, negative = greedy(embs[c][layer], hw, embs[r][layer], rw)
            flags.append(negative)
            stack.append((embs[c][layer], hw, embs[r][layer], rw))
            if baseline is not None:
                vals = tuple((v - b) / (1 - b) for v, b in zip(vals, baseline[layer]))
            out.append(vals)
        batched = []
        for i in range(0, len(stack), 64):
            batched += greedy_batched(stack[i: i + 64])
        if baseline is not None:
            batched = [tuple((v - b) / (1 - b) for v, b in zip(vals, baseline[layer])) for vals in batched]
        def maxdiff(keep):
            return max([abs(a - b) for x, y, f in zip(out, batched, flags) if keep(f) for a, b in zip(x, y)
                        if not (math.isnan(a) or math.isnan(b))], default=0.0)
        return out, {"negativeBestPairs": sum(flags), "maxAbsDiffOthers": maxdiff(lambda f: not f), "maxAbsDiffNegative": maxdiff(lambda f: f)}

    # Baseline file, as bert_score's get_rescale_baseline.py: mean scores of random pairs of unrelated sentences.
    pool = [u[3] for u in utts if len(u[3].split()) >= 3]
    brnd = random.Random(7)
    base_pairs = [{"candidate": a, "reference": b, "kind": "baseline"} for a, b in (brnd.sample(pool, 2) for _ in range(2000))]
    baseline = {}
    for layer in range(n_layers + 1):
        vals, _ = run(base_pairs, layer, False)  # pairwise values
        baseline[layer] = tuple(float(np.mean([v[k] for v in vals])) for k in range(3))
    with open(os.path.join(FIXTURE, "rescale_baseline.csv"), "w") as f:
        f.write("LAYER,P,R,F\n")
        for layer in range(n_layers + 1):
            f.write(f"{layer}," + ",".join(f"{b:.8f}" for b in baseline[layer]) + "\n")
    # Read it back as bert_score would (the file's rounded numbers are the baseline).
    baseline = {int(r["LAYER"]): (float(r["P"]), float(r["R"]), float(r["F"])) for r in csv.DictReader(open(os.path.join(FIXTURE, "rescale_baseline.csv")))}

    configs = [
        {"name": f"layer{n_layers}", "layer": n_layers, "idf": False, "rescale": False},
        {"name": "layer2", "layer": 2, "idf": False, "rescale": False},
        {"name": "layer0", "layer": 0, "idf": False, "rescale": False},
        {"name": "layer2-idf", "layer": 2, "idf": True, "rescale": False},
        {"name": "layer2-rescale", "layer": 2, "idf": False, "rescale": True},
        {"name": f"layer{n_layers}-idf-rescale", "layer": n_layers, "idf": True, "rescale": True},
    ]
    results = []
    for c in configs:
        vals, diff = run(pairs, c["layer"], c["idf"], baseline if c["rescale"] else None)
        results.append({**c, "group": "pairs", "values": [[num(v) for v in x] for x in vals], "bertScoreBatched": diff})
        print(c["name"], diff)
    vals, _ = run(dot_group, 2, True)
    results.append({"name": "layer2-idf-nan", "layer": 2, "idf": True, "rescale": False, "group": "dotGroup", "values": [[num(v) for v in x] for x in vals]})

    # Token ids as bert_score's sent_encode gives them (tokenizer parity).
    token_ids = {p: sent_encode(tok, p) for p in sorted({x for q in pairs for x in (q["candidate"], q["reference"])})[:60]}

    # Sentence embeddings: mean pooling over the attention mask, L2 normalisation; alone and in one padded batch.
    sents = [u[3] for u in reflections[:24]] + ["", "Okay.", long_text]
    st_ids = [tok.encode(s, add_prefix_space=False) for s in sents]  # sentence-transformers: no prefix space, truncation
    alone_all = [hidden_states(model, [x], tok.pad_id)[0] for x in st_ids]
    alone = [h[n_layers] for h in alone_all]
    batched = hidden_states(model, st_ids, tok.pad_id)
    def pool_norm(h):
        v = h.mean(dim=0)
        return v / max(float(v.norm()), 1e-12)
    emb = [pool_norm(h) for h in alone]
    emb_b = [pool_norm(h[n_layers]) for h in batched]
    batch_diff = max(float((a - b).abs().max()) for a, b in zip(emb, emb_b))
    layer_means = [[[float(x) for x in h[l].mean(dim=0)] for l in range(n_layers + 1)] for h in alone_all[:3]]

    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    json.dump({
        "generatedBy": "scripts/parity/bertscore_reference.py", "torch": torch.__version__, "dtype": "float64",
        "bertScore": BERT_SCORE, "model": "fixtures/models/reflect-roberta-tiny", "numLayers": n_layers,
        "baseline": {str(k): list(v) for k, v in baseline.items()},
        "pairs": pairs, "dotGroup": dot_group, "results": results, "tokenIds": token_ids,
        "sentences": sents, "sentenceEmbeddings": [[float(x) for x in v] for v in emb], "sentenceEmbeddingBatchMaxAbsDiff": batch_diff,
        "layerMeans": {"sentences": sents[:3], "values": layer_means},
    }, open(OUT, "w", encoding="utf-8"), ensure_ascii=False)
    print(f"{len(pairs)} pairs, {len(configs)} configurations; "
          f"sentence embeddings batched vs alone {batch_diff:.3g}; wrote {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
