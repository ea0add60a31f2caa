/**
 * BERTScore (Zhang et al., ICLR 2020): precision, recall and F1 of the greedy matching of contextual token
 * embeddings between a candidate and its reference, computed through `@huggingface/transformers` on any ONNX
 * encoder. ICMI 2023 §2.2/§3.1 use it with roberta-large (the paper's default) and DeBERTa-XLarge-MNLI.
 *
 * Reproduces Tiiiger/bert_score 0.3.13 (commit 19e7f551fe4fa43fdd07b8129ae947015b902b2d; `bert_score/utils.py`
 * `sent_encode`, `get_idf_dict`, `greedy_cos_idf`, and `score.py`):
 * - tokenization ({@link bertScoreTokenIds}): the sentence is stripped (Python's `str.strip`); an empty sentence is
 *   only the special tokens; GPT-2 and RoBERTa tokenizers get a prefix space; the content is truncated so the whole
 *   fits in `model_max_length`;
 * - embeddings: the hidden states of layer L (0 = embedding output), as bert_score's model truncated to L layers;
 * - weights: without idf every token 1 and the tokenizer's `cls_token` and `sep_token` 0; with idf,
 *   `ln((M + 1) / (df + 1))` over the M reference sentences (repeats count; tokens seen in no reference: `ln(M + 1)`);
 * - greedy matching ({@link greedyCosineMatch}): cosine of every candidate token with every reference token,
 *   special tokens included in the maxima; P = Σ w·max / Σ w over candidate tokens, R likewise over reference
 *   tokens, F = 2PR / (P + R); when either sentence has exactly 2 tokens (empty after stripping) P = R = 0; a NaN F
 *   becomes 0 (a NaN P, all candidate weights 0 under idf, stays NaN and is reported as null);
 * - rescaling: `(s − b) / (1 − b)` for P, R and F each, b from a baseline file in bert_score's format
 *   (`LAYER,P,R,F`, one row per layer, read at row `layer`).
 * One deliberate difference: bert_score pads a batch of 64 pairs and its maxima also see the padded positions,
 * whose similarity is 0, so a token whose best cosine is negative scores 0 there. Here every pair is matched on its
 * own tokens only (the paper's definition; values do not depend on batching). With large pretrained encoders,
 * whose token cosines are positive (bert_score's roberta-large layer-17 baseline is 0.83), the two agree.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pythonStrip, type EncoderModel, type TokenEmbeddings } from '../models/encoder';
import { LoadCache } from '../models/loadCache';
import { cwdLocator, isModelDtype, loadEncoder, MODEL_DTYPES, modelKey, type ModelDtype, type ModelLocator } from '../models/registry';
import { MetricConfigError, type Metric, type MetricInput, type MetricRunOptions, type MetricValues } from './metric';
import { buildSignature } from '../evaluators/signature';

export { pythonStrip };

/** The bert_score release whose algorithm is reproduced. */
export const BERT_SCORE_REFERENCE = { version: '0.3.13', commit: '19e7f551fe4fa43fdd07b8129ae947015b902b2d' } as const;

/**
 * bert_score's default layer per model (`model2layers` in bert_score/utils.py 0.3.13: the layer that correlated
 * best with WMT16 human judgements), for the models most used with it. Hub ids with or without their owner.
 */
export const BERT_SCORE_DEFAULT_LAYERS: Readonly<Record<string, number>> = {
  'roberta-large': 17,
  'FacebookAI/roberta-large': 17,
  'roberta-base': 10,
  'FacebookAI/roberta-base': 10,
  'roberta-large-mnli': 19,
  'FacebookAI/roberta-large-mnli': 19,
  'bert-base-uncased': 9,
  'google-bert/bert-base-uncased': 9,
  'bert-large-uncased': 18,
  'google-bert/bert-large-uncased': 18,
  'distilbert-base-uncased': 5,
  'distilbert/distilbert-base-uncased': 5,
  'microsoft/deberta-large-mnli': 18,
  'microsoft/deberta-xlarge-mnli': 40,
  'microsoft/mpnet-base': 8,
};

/** Configuration of {@link bertscore}. */
export interface BertScoreConfig {
  /** Encoder: hub id or local folder in the Hugging Face/Optimum ONNX layout (default `roberta-large`). */
  model: string;
  /** Layer whose hidden states are matched (0 = embeddings); null: bert_score's default for `model`. */
  layer: number | null;
  /** Inverse document frequency weighting (bert_score `idf=True`). */
  idf: boolean;
  /**
   * The reference sentences idf is computed from (bert_score: the `refs` passed to `score`, repeats counting).
   * Explicit so that values do not depend on how candidates are batched. Filled from `idfReferencesFile` when given.
   */
  idfReferences: string[] | null;
  /** A file of idf reference sentences: a dialogue `.jsonl` (each candidate's item reference) or a text file (one per line). */
  idfReferencesFile: string | null;
  /** Rescale P, R and F with a baseline (bert_score `rescale_with_baseline=True`). */
  rescaleWithBaseline: boolean;
  /** Baseline file in bert_score's format (`LAYER,P,R,F`), e.g. bert_score's `rescale_baseline/en/roberta-large.tsv`. */
  baselineFile: string | null;
  /** Prefix a space before tokenizing: `auto` = bert_score's rule (GPT-2 and RoBERTa tokenizers). */
  addPrefixSpace: 'auto' | boolean;
  /** ONNX weights (transformers.js dtype): `onnx/model.onnx` (fp32), `model_fp16.onnx` (fp16), `model_quantized.onnx` (q8), `model_q4.onnx` (q4), … */
  dtype: ModelDtype;
  /** Sentences per forward pass. */
  batchSize: number;
}

/** Precision, recall and F1 of one pair (NaN where bert_score gives NaN). */
export interface BertScoreResult {
  precision: number;
  recall: number;
  f1: number;
}

/** Idf weights: per token id, and the weight of tokens no reference contains. */
export interface IdfWeights {
  table: Map<number, number>;
  unseen: number;
}

/** Whether bert_score adds a prefix space for this tokenizer (`GPT2Tokenizer` / `RobertaTokenizer`). */
export function usesPrefixSpace(tokenizerClass: string): boolean {
  return ['GPT2Tokenizer', 'RobertaTokenizer'].includes(tokenizerClass.replace(/Fast$/, ''));
}

/**
 * Token ids of a sentence as bert_score's `sent_encode`: stripped; empty → the special tokens alone; else encoded
 * with special tokens (with a leading space when `addPrefixSpace`), content truncated to fit `model_max_length`.
 */
export function bertScoreTokenIds(encoder: Pick<EncoderModel, 'encode'>, sentence: string, addPrefixSpace: boolean): number[] {
  const s = pythonStrip(sentence);
  return encoder.encode(s === '' ? '' : addPrefixSpace ? ` ${s}` : s);
}

/** bert_score's `get_idf_dict`: `ln((M + 1) / (df(t) + 1))` over the M token-id lists; unseen tokens `ln(M + 1)`. */
export function idfWeights(referenceIds: readonly number[][]): IdfWeights {
  const df = new Map<number, number>();
  for (const ids of referenceIds) for (const t of new Set(ids)) df.set(t, (df.get(t) ?? 0) + 1);
  const m = referenceIds.length;
  const table = new Map<number, number>();
  for (const [t, c] of df) table.set(t, Math.log((m + 1) / (c + 1)));
  return { table, unseen: Math.log(m + 1) };
}

/** Token weights: idf, or 1 with `cls`/`sep` ids 0 (bert_score's `idf=False`). */
export function tokenWeights(ids: readonly number[], idf: IdfWeights | null, special: { cls?: number; sep?: number }): number[] {
  if (idf) return ids.map((t) => idf.table.get(t) ?? idf.unseen);
  return ids.map((t) => (t === special.cls || t === special.sep ? 0 : 1));
}

function unitRows(e: TokenEmbeddings): Float64Array {
  const { data, length, hiddenSize: d } = e;
  const out = new Float64Array(length * d);
  for (let i = 0; i < length; i++) {
    let n = 0;
    for (let k = 0; k < d; k++) n += data[i * d + k] * data[i * d + k];
    n = Math.sqrt(n);
    for (let k = 0; k < d; k++) out[i * d + k] = data[i * d + k] / n;
  }
  return out;
}

/**
 * Greedy cosine matching of one pair (bert_score `greedy_cos_idf`, without batch padding), in float64.
 *
 * @param candidate - candidate token embeddings, special tokens included
 * @param candidateWeights - one weight per candidate token
 * @returns P, R, F1 in [-1, 1] (NaN P or R when all weights of that side are 0)
 */
export function greedyCosineMatch(candidate: TokenEmbeddings, candidateWeights: readonly number[], reference: TokenEmbeddings, referenceWeights: readonly number[]): BertScoreResult {
  const d = candidate.hiddenSize;
  const c = unitRows(candidate);
  const r = unitRows(reference);
  const nc = candidate.length;
  const nr = reference.length;
  const bestC = new Float64Array(nc).fill(-Infinity);
  const bestR = new Float64Array(nr).fill(-Infinity);
  for (let i = 0; i < nc; i++) {
    for (let j = 0; j < nr; j++) {
      let s = 0;
      for (let k = 0; k < d; k++) s += c[i * d + k] * r[j * d + k];
      if (s > bestC[i]) bestC[i] = s;
      if (s > bestR[j]) bestR[j] = s;
    }
  }
  const weighted = (best: Float64Array, w: readonly number[]): number => {
    let sw = 0;
    for (const x of w) sw += x;
    let s = 0;
    for (let i = 0; i < best.length; i++) s += best[i] * (w[i] / sw);
    return s;
  };
  let precision = weighted(bestC, candidateWeights);
  let recall = weighted(bestR, referenceWeights);
  let f1 = (2 * precision * recall) / (precision + recall);
  if (nc === 2 || nr === 2) {
    precision = 0;
    recall = 0;
  }
  if (Number.isNaN(f1)) f1 = 0;
  return { precision, recall, f1 };
}

/** `(s − b) / (1 − b)` per component. */
export function rescale(v: BertScoreResult, baseline: readonly [number, number, number]): BertScoreResult {
  const [bp, br, bf] = baseline;
  return { precision: (v.precision - bp) / (1 - bp), recall: (v.recall - br) / (1 - br), f1: (v.f1 - bf) / (1 - bf) };
}

/**
 * The baselines of `layer` from a bert_score baseline file (CSV with header `LAYER,P,R,F`, row i = layer i).
 *
 * @throws Error naming the file and line when it is malformed or has no row for `layer`
 */
export function readBaseline(path: string, layer: number): [number, number, number] {
  const lines = readFileSync(path, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines[0]?.split(',').map((h) => h.trim());
  if (!header || header.join(',') !== 'LAYER,P,R,F') throw new Error(`${path}:1: expected the header LAYER,P,R,F (bert_score's baseline format)`);
  // bert_score reads row `layer` by position (pandas iloc); rows are written in layer order.
  const row = lines[1 + layer];
  if (row === undefined) throw new Error(`${path}: no row for layer ${layer} (the file has layers 0–${lines.length - 2})`);
  const cells = row.split(',').map(Number);
  if (cells.length !== 4 || cells.some((x) => !Number.isFinite(x)) || cells[0] !== layer) throw new Error(`${path}:${2 + layer}: expected "${layer},P,R,F", got "${row}"`);
  return [cells[1], cells[2], cells[3]];
}

/** Options of {@link computeBertScore}. */
export interface BertScoreOptions {
  layer: number;
  /** Idf reference sentences; null for uniform weights. */
  idfReferences?: readonly string[] | null;
  baseline?: readonly [number, number, number] | null;
  addPrefixSpace?: boolean;
  batchSize?: number;
  signal?: AbortSignal;
}

/**
 * BERTScore of each (candidate, reference) pair with a loaded encoder.
 *
 * @returns one result per pair, in order; values in [-1, 1] before rescaling (NaN where bert_score gives NaN)
 * @throws LayerUnavailableError when the encoder's export lacks `options.layer`
 */
export async function computeBertScore(encoder: EncoderModel, pairs: readonly { candidate: string; reference: string }[], options: BertScoreOptions): Promise<BertScoreResult[]> {
  const prefix = options.addPrefixSpace ?? usesPrefixSpace(encoder.tokenizerClass);
  const idsOf = new Map<string, number[]>();
  for (const p of pairs) for (const s of [p.candidate, p.reference]) if (!idsOf.has(s)) idsOf.set(s, bertScoreTokenIds(encoder, s, prefix));
  const idf = options.idfReferences ? idfWeights(options.idfReferences.map((s) => bertScoreTokenIds(encoder, s, prefix))) : null;
  const sentences = [...idsOf.keys()];
  const states = await encoder.hiddenStates(
    sentences.map((s) => idsOf.get(s)!),
    options.layer,
    { batchSize: options.batchSize, signal: options.signal },
  );
  const emb = new Map(sentences.map((s, i) => [s, states[i]]));
  return pairs.map((p) => {
    const ci = idsOf.get(p.candidate)!;
    const ri = idsOf.get(p.reference)!;
    const v = greedyCosineMatch(emb.get(p.candidate)!, tokenWeights(ci, idf, encoder.specialIds), emb.get(p.reference)!, tokenWeights(ri, idf, encoder.specialIds));
    return options.baseline ? rescale(v, options.baseline) : v;
  });
}

/** Reference sentences for idf from a file: a dialogue JSONL (each candidate's item reference) or one sentence per line. */
export function readIdfReferences(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  if (!/\.jsonl$/i.test(path)) return text.split(/\r?\n/).filter((l) => l !== '');
  const out: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let item: { reference?: { text?: unknown }; candidates?: unknown[] };
    try {
      item = JSON.parse(line) as typeof item;
    } catch (err) {
      throw new Error(`${path}:${i + 1}: not JSON (${(err as Error).message})`);
    }
    const ref = item.reference?.text;
    if (typeof ref === 'string') for (let k = 0; k < (item.candidates?.length ?? 0); k++) out.push(ref);
  });
  return out;
}

function shortHash(parts: readonly string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\u0000');
  return h.digest('hex').slice(0, 8);
}

const encoders = new LoadCache<EncoderModel>();

/**
 * The encoder for `model` (loaded once per process, model and dtype) through the model registry.
 *
 * @param locator - where `bundled:` and relative references resolve (default: the working directory, no bundled models)
 */
export function bertScoreEncoder(model: string, dtype: ModelDtype = 'fp32', locator: ModelLocator = cwdLocator()): Promise<EncoderModel> {
  return encoders.get(`${modelKey(model, locator)}|${dtype}`, () => loadEncoder(model, locator, { dtype }));
}

/** Releases every encoder BERTScore loaded. */
export function releaseBertScoreEncoders(): Promise<void> {
  return encoders.clear();
}

const DEFAULTS: BertScoreConfig = {
  model: 'roberta-large',
  layer: null,
  idf: false,
  idfReferences: null,
  idfReferencesFile: null,
  rescaleWithBaseline: false,
  baselineFile: null,
  addPrefixSpace: 'auto',
  dtype: 'fp32',
  batchSize: 16,
};

/** The BERTScore metric (registry name `bertscore`; outputs `f1`, `precision`, `recall`). */
export const bertscore: Metric<BertScoreConfig> = {
  name: 'bertscore',
  card: {
    title: 'BERTScore',
    description:
      'Token-level similarity of candidate and reference: each token is matched to its most similar token of the other sentence by the cosine of ' +
      'contextual embeddings from one layer of a transformer encoder; precision averages over candidate tokens, recall over reference tokens, F1 is ' +
      'their harmonic mean. Optional idf weighting and baseline rescaling. Computed through @huggingface/transformers on an ONNX export of the encoder.',
    citation:
      'Tianyi Zhang, Varsha Kishore, Felix Wu, Kilian Q. Weinberger and Yoav Artzi. 2020. BERTScore: Evaluating Text Generation with BERT. In ICLR 2020. https://openreview.net/forum?id=SkeHuCVFDr',
    reference: `bert_score ${BERT_SCORE_REFERENCE.version} (github.com/Tiiiger/bert_score @ ${BERT_SCORE_REFERENCE.commit.slice(0, 7)}), except batch padding (see docs/metrics-neural.md)`,
    inputs: 'candidate and reference strings; the encoder (hub id or local ONNX folder) and layer in the configuration',
  },
  outputs: [
    { name: 'f1', description: 'harmonic mean of precision and recall', range: [-1, 1], higherIsBetter: true },
    { name: 'precision', description: 'mean over candidate tokens of the best cosine with a reference token (idf-weighted when idf is on)', range: [-1, 1], higherIsBetter: true },
    { name: 'recall', description: 'mean over reference tokens of the best cosine with a candidate token (idf-weighted when idf is on)', range: [-1, 1], higherIsBetter: true },
  ],
  requiresReference: true,
  defaultConfig: DEFAULTS,
  configure(partial = {}) {
    const c: BertScoreConfig = { ...DEFAULTS, ...partial };
    const bad = (field: string, msg: string) => new MetricConfigError('bertscore', field, msg);
    if (typeof c.model !== 'string' || c.model.trim() === '') throw bad('model', 'a hub id or a local folder is required');
    if (c.layer === null || c.layer === undefined) {
      const d = BERT_SCORE_DEFAULT_LAYERS[c.model];
      if (d === undefined) throw bad('layer', `no default layer for model ${c.model}; set one (bert_score's defaults: ${Object.entries(BERT_SCORE_DEFAULT_LAYERS).map(([m, l]) => `${m} ${l}`).join(', ')})`);
      c.layer = d;
    }
    if (!Number.isInteger(c.layer) || c.layer < 0) throw bad('layer', `must be an integer ≥ 0 (0 = embedding output), got ${String(c.layer)}`);
    if (!isModelDtype(c.dtype)) throw bad('dtype', `must be one of ${Object.keys(MODEL_DTYPES).join(', ')}, got ${String(c.dtype)}`);
    if (!Number.isInteger(c.batchSize) || c.batchSize < 1) throw bad('batchSize', 'must be a positive integer');
    if (c.addPrefixSpace !== 'auto' && typeof c.addPrefixSpace !== 'boolean') throw bad('addPrefixSpace', 'must be "auto", true or false');
    if (c.idf) {
      if (c.idfReferencesFile) {
        if (!existsSync(c.idfReferencesFile)) throw bad('idfReferencesFile', `${c.idfReferencesFile} does not exist`);
        c.idfReferences = readIdfReferences(c.idfReferencesFile);
      }
      if (!Array.isArray(c.idfReferences) || c.idfReferences.some((s) => typeof s !== 'string')) {
        throw bad('idfReferences', 'idf needs the reference sentences it is computed from (idfReferences, or idfReferencesFile: a dialogue .jsonl or a text file)');
      }
    } else {
      c.idfReferences = null;
      c.idfReferencesFile = null;
    }
    if (c.rescaleWithBaseline) {
      if (!c.baselineFile) throw bad('baselineFile', `rescaling needs a baseline file in bert_score's format (LAYER,P,R,F), e.g. bert_score's rescale_baseline/en/${c.model}.tsv`);
      try {
        readBaseline(c.baselineFile, c.layer);
      } catch (err) {
        throw bad('baselineFile', (err as Error).message);
      }
    } else c.baselineFile = null;
    return c;
  },
  signature(c) {
    const idf = c.idf && c.idfReferences ? `refs${c.idfReferences.length}-${shortHash(c.idfReferences)}` : 'no';
    const rs = c.rescaleWithBaseline && c.baselineFile ? `${basename(c.baselineFile)}-${shortHash([readFileSync(c.baselineFile, 'utf8')])}` : 'no';
    return buildSignature([
      ['impl', `bert_score-${BERT_SCORE_REFERENCE.version}`],
      ['model', c.model],
      ['layer', String(c.layer)],
      ['idf', idf],
      ['rescale', rs],
      ['prefix', c.addPrefixSpace],
      ['dtype', c.dtype],
    ]);
  },
  async score(inputs: readonly MetricInput[], c: BertScoreConfig, options: MetricRunOptions = {}): Promise<MetricValues[]> {
    const encoder = await bertScoreEncoder(c.model, c.dtype, options.models);
    const out: MetricValues[] = inputs.map(() => ({ f1: null, precision: null, recall: null }));
    const idx = inputs.map((x, i) => (typeof x.reference === 'string' ? i : -1)).filter((i) => i >= 0);
    const results = await computeBertScore(
      encoder,
      idx.map((i) => ({ candidate: inputs[i].candidate, reference: inputs[i].reference! })),
      {
        layer: c.layer!,
        idfReferences: c.idf ? c.idfReferences : null,
        baseline: c.rescaleWithBaseline && c.baselineFile ? readBaseline(c.baselineFile, c.layer!) : null,
        addPrefixSpace: c.addPrefixSpace === 'auto' ? undefined : c.addPrefixSpace,
        batchSize: c.batchSize,
        signal: options.signal,
      },
    );
    const num = (x: number) => (Number.isFinite(x) ? x : null);
    idx.forEach((i, k) => {
      out[i] = { f1: num(results[k].f1), precision: num(results[k].precision), recall: num(results[k].recall) };
    });
    options.onProgress?.(inputs.length, inputs.length);
    return out;
  },
};
