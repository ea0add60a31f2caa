/**
 * Generated pools for measuring the estimators (docs/estimation.md §5), all seeded:
 *
 * - {@link resampledPool}: N candidates whose expert and lay labels are drawn, with replacement, from the 150
 *   reflections of the EvalReflections GPT-2 stage (each candidate takes one real reflection's three expert and
 *   three lay annotations): the same lay–expert relation as the real pool, at any size;
 * - {@link gemGridPool}: the first study's grid (GEM 2022 §3.4, Figure 3: GPT-2 and BART × greedy, 5-beam (all 5),
 *   nucleus p ∈ {0.4, 0.6, 0.8, 0.95} × 5, and the ground truth) over C contexts, each candidate with three expert
 *   and three lay labels from a latent quality: strategy rates set near the first study's Figure 3 (GPT-2 falls with
 *   p, BART rises; ground truth highest), lay labels noisier than expert ones, a context effect, and the merged error
 *   categories with GPT-2 mostly hallucinatory and BART mostly parroting (Figure 4);
 * - {@link addScores}: evaluator scores on every candidate — `metric:noise` (uniform noise, predicts nothing) and
 *   `judge:informed` (the share of three more expert-like labels plus noise: an informative judge).
 */
import seedrandom from 'seedrandom';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importAnnotationTable } from '../../src/core/datasets/annotationImport';
import type { Annotation, Candidate, DialogueItem, ErrorCategory } from '../../src/core/dialogue/types';

const root = join(__dirname, '..', '..');

/** The EvalReflections GPT-2 stage as dialogue items (no reference: the human reflections are candidates). */
export function evalReflections(): DialogueItem[] {
  return importAnnotationTable(readFileSync(join(root, 'data', 'evalreflections', 'annotations-gpt2-stage.csv'), 'utf8')).items;
}

/** N candidates resampled from EvalReflections' reflections (labels copied from one drawn at random), in items of 20. */
export function resampledPool(n: number, seed: string): DialogueItem[] {
  const real = evalReflections().flatMap((it) => it.candidates);
  const rng = seedrandom.alea(seed);
  const items: DialogueItem[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 20 === 0) items.push({ id: `resampled-${i / 20}`, context: [{ speaker: 'client', text: `context ${i / 20}` }], candidates: [] });
    const from = real[Math.floor(rng() * real.length)];
    const c: Candidate = { id: `c${i}`, text: from.text, origin: { ...from.origin }, annotations: from.annotations.map((a) => ({ ...a })), scores: {} };
    items[items.length - 1].candidates.push(c);
  }
  return items;
}

/** Coherence probability (on the latent scale's mean) of each strategy of the grid: close to the first study's Figure 3. */
export const GEM_GRID_RATES: Readonly<Record<string, number>> = {
  'ground truth': 0.87,
  'GPT-2 greedy': 0.47,
  'GPT-2 beam k=5': 0.5,
  'GPT-2 nucleus p=0.4': 0.59,
  'GPT-2 nucleus p=0.6': 0.52,
  'GPT-2 nucleus p=0.8': 0.43,
  'GPT-2 nucleus p=0.95': 0.33,
  'BART greedy': 0.3,
  'BART beam k=5': 0.27,
  'BART nucleus p=0.4': 0.31,
  'BART nucleus p=0.6': 0.35,
  'BART nucleus p=0.8': 0.4,
  'BART nucleus p=0.95': 0.44,
};

function normal(rng: () => number): number {
  let u = 0;
  while (u === 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** Φ⁻¹ by bisection (generation only). */
function probit(p: number): number {
  let lo = -8;
  let hi = 8;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    const cdf = 0.5 * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (mid + 0.044715 * mid ** 3)));
    if (cdf < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * The GEM 2022 grid over `contexts` contexts: 52 model candidates and the ground truth per context, three expert and
 * three lay annotations each (coherence; errors and the most evident error when incoherent; empathy when coherent).
 */
export function gemGridPool(contexts: number, seed: string): DialogueItem[] {
  const rng = seedrandom.alea(seed);
  const items: DialogueItem[] = [];
  // latent z = β_s + u_c + ε, ε ~ N(0, 1), u ~ N(0, 0.5²); an annotator says coherent when z + e > 0, e ~ N(0, σ²)
  // (experts σ = 0.6, laypeople σ = 1.1). β_s so that P(coherent) for an expert is the strategy's rate.
  const sdExpert = Math.sqrt(1 + 0.25 + 0.36);
  const beta = (rate: number) => probit(rate) * sdExpert;
  const grid: { model: string; decoding?: { strategy: string; numBeams?: number; topP?: number; beamRank?: number; sampleIndex?: number }; label: string }[] = [];
  for (const model of ['GPT-2', 'BART']) {
    grid.push({ model, decoding: { strategy: 'greedy' }, label: `${model} greedy` });
    for (let r = 0; r < 5; r++) grid.push({ model, decoding: { strategy: 'beamSearch', numBeams: 5, beamRank: r }, label: `${model} beam k=5` });
    for (const p of [0.4, 0.6, 0.8, 0.95]) for (let s = 0; s < 5; s++) grid.push({ model, decoding: { strategy: 'nucleusSampling', topP: p, sampleIndex: s }, label: `${model} nucleus p=${p}` });
  }
  for (let c = 0; c < contexts; c++) {
    const u = 0.5 * normal(rng);
    const item: DialogueItem = { id: `gem-${c}`, context: [{ speaker: 'client', text: `generated context ${c}` }], candidates: [] };
    const add = (id: string, label: string, origin: Candidate['origin']) => {
      const z = beta(GEM_GRID_RATES[label]) + u + normal(rng);
      const gpt = label.startsWith('GPT-2');
      const errorOf = (): ErrorCategory => {
        const r = rng();
        if (gpt) return r < 0.6 ? (['dialogueContradicting', 'offTopic', 'onTopicButUnverifiable'] as const)[Math.floor(rng() * 3)] : r < 0.75 ? 'parroting' : r < 0.9 ? 'malformed' : 'other';
        if (label === 'ground truth') return r < 0.5 ? 'malformed' : 'onTopicButUnverifiable';
        return r < 0.6 ? 'parroting' : r < 0.8 ? 'malformed' : r < 0.95 ? 'offTopic' : 'other';
      };
      const candidateError = errorOf();
      const annotations: Annotation[] = [];
      for (const [group, sd, prefix] of [['expert', 0.6, 'Expert'], ['layperson', 1.1, 'Layperson']] as const) {
        for (let a = 1; a <= 3; a++) {
          const coherent = z + sd * normal(rng) > 0;
          const ann: Annotation = { annotator: `${prefix} ${a}`, group, coherent };
          if (coherent) ann.empathy = Math.max(1, Math.min(5, Math.round(3 + 0.8 * z + 0.9 * normal(rng)))) as 1 | 2 | 3 | 4 | 5;
          else {
            const e = rng() < (group === 'expert' ? 0.8 : 0.6) ? candidateError : errorOf();
            ann.errors = [e];
            ann.mostEvidentError = e;
          }
          annotations.push(ann);
        }
      }
      item.candidates.push({ id, text: `${label} response ${c}-${id}`, origin, annotations, scores: {} });
    };
    add('ref', 'ground truth', { kind: 'human', source: 'ground truth' });
    grid.forEach((g, j) => add(`g${j}`, g.label, { kind: 'model', model: g.model, decoding: g.decoding }));
    items.push(item);
  }
  return items;
}

/**
 * Adds evaluator scores to every candidate: `metric:noise` (uniform on (0, 1), independent of everything) and
 * `judge:informed` (the share of three more simulated expert-like votes, from the candidate's expert majority with
 * 15 % of votes flipped, plus N(0, 0.1²)).
 */
export function addScores(items: DialogueItem[], seed: string): DialogueItem[] {
  const rng = seedrandom.alea(seed);
  for (const it of items) {
    for (const c of it.candidates) {
      const experts = c.annotations.filter((a) => a.group === 'expert' && typeof a.coherent === 'boolean');
      const majority = experts.filter((a) => a.coherent).length * 2 > experts.length ? 1 : 0;
      let votes = 0;
      for (let k = 0; k < 3; k++) votes += rng() < 0.15 ? 1 - majority : majority;
      c.scores['metric:noise'] = { value: rng(), status: 'ok' };
      c.scores['judge:informed'] = { value: votes / 3 + 0.1 * normal(rng), status: 'ok' };
    }
  }
  return items;
}

/** Writes items as JSONL. */
export function toJsonl(items: readonly DialogueItem[]): string {
  return items.map((it) => JSON.stringify(it)).join('\n') + '\n';
}

if (require.main === module) {
  const [what, out, arg] = process.argv.slice(2);
  const { writeFileSync } = require('node:fs') as typeof import('node:fs');
  const items = what === 'resampled' ? addScores(resampledPool(Number(arg ?? 2000), 'resampled'), 'scores') : what === 'gem' ? addScores(gemGridPool(Number(arg ?? 15), 'gem-grid'), 'scores') : what === 'evalreflections' ? addScores(evalReflections(), 'scores') : null;
  if (!items || !out) {
    console.error('usage: npx tsx scripts/estimation/generatedPools.ts resampled|gem|evalreflections <out.dialogues.jsonl> [size]');
    process.exit(2);
  }
  writeFileSync(out, toJsonl(items));
  console.error(`wrote ${items.reduce((a, it) => a + it.candidates.length, 0)} candidates in ${items.length} items to ${out}`);
}
