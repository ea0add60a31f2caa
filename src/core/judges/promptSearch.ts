/**
 * The pure parts of the judge prompt search (docs/prompt-search.md): a grouped, seeded development/held-out split
 * of labelled items by dialogue context; the search space of task bodies built from ICMI 2023's parts A–D (§2.4,
 * Appendix A Table 6: which parts, in which order) × assessment requests × few-shot examples drawn from development
 * items only; the human target (the share of a group's annotators who say coherent, ICMI 2023 §2.1: the experts'
 * coherence score divided by their number, the same ranks); and the choice of a variant on development items by
 * Spearman's rho. The job that runs judges over these lives in src/core/jobs/searchPrompts.ts.
 */
import { createHash } from 'node:crypto';
import seedrandom from 'seedrandom';
import { speakerDisplayName } from '../dialogue/speakers';
import type { Candidate, DialogueItem } from '../dialogue/types';
import { percentileInterval, type BootstrapInterval } from '../stats/bootstrap';
import { shuffleInPlace } from '../stats/shuffle';
import { clusterResamples, pick } from '../stats/clusterBootstrap';
import { spearmanRho } from '../stats/correlation';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import type { PromptLibrary, PromptVariant } from '../templates/judgePrompt';

/** How items are grouped before splitting: by identical dialogue context, or by source transcript. */
export type SplitGrouping = 'context' | 'transcript';

/** A development/held-out split. */
export interface PromptSearchSplit {
  /** Item ids in the development part (variants are chosen here, few-shot examples drawn from here). */
  dev: Set<string>;
  /** Item ids in the held-out part (only the chosen variant and the baselines are judged here). */
  test: Set<string>;
  /** Group key of every item id (the context hash, or the transcript). */
  groupOf: Map<string, string>;
  devGroups: number;
  testGroups: number;
}

/** The key of an item's dialogue context: 16 hex digits of SHA-256 over its turns' speakers and texts. */
export function contextKey(item: Pick<DialogueItem, 'context'>): string {
  return createHash('sha256').update(JSON.stringify(item.context.map((t) => [t.speaker, t.text]))).digest('hex').slice(0, 16);
}

/**
 * Splits items into development and held-out parts by group, so that no dialogue context (or transcript) is in both:
 * the distinct groups, sorted by key, are shuffled with seedrandom's Alea seeded by `seed` (Fisher–Yates), and the
 * first round(devFraction × groups) groups (at least 1, at most groups − 1) are development. The same items and seed
 * give the same split on every machine; adding items can move other groups (re-split, do not patch).
 *
 * @param devFraction - share of groups in development, in (0, 1) (default 0.5)
 * @throws RangeError with fewer than 2 groups, or a fraction outside (0, 1)
 */
export function splitByContext(items: readonly DialogueItem[], options: { devFraction?: number; seed?: string | number; groupBy?: SplitGrouping } = {}): PromptSearchSplit {
  const fraction = options.devFraction ?? 0.5;
  if (!(fraction > 0 && fraction < 1)) throw new RangeError(`the development fraction must be in (0, 1), got ${fraction}`);
  const groupOf = new Map<string, string>();
  for (const it of items) {
    const t = it.provenance?.transcriptId;
    groupOf.set(it.id, options.groupBy === 'transcript' && t !== undefined ? `transcript:${t}` : `context:${contextKey(it)}`);
  }
  const groups = [...new Set(groupOf.values())].sort();
  if (groups.length < 2) throw new RangeError(`a split needs at least 2 dialogue ${options.groupBy === 'transcript' ? 'transcripts' : 'contexts'}; the items have ${groups.length}`);
  const rng = seedrandom.alea(`prompt-search-split\u0000${options.seed ?? 0}`);
  shuffleInPlace(groups, rng);
  const nDev = Math.min(groups.length - 1, Math.max(1, Math.round(fraction * groups.length)));
  const devGroups = new Set(groups.slice(0, nDev));
  const dev = new Set<string>();
  const test = new Set<string>();
  for (const [id, g] of groupOf) (devGroups.has(g) ? dev : test).add(id);
  return { dev, test, groupOf, devGroups: nDev, testGroups: groups.length - nDev };
}

/**
 * Splits items into k folds by group for cross-fitting: the distinct groups (contexts, or transcripts), sorted by key,
 * are shuffled with seedrandom's Alea seeded by `seed` (Fisher–Yates), and group i goes to fold i mod k. Fold f's
 * split has fold f as its held-out part and the other k − 1 folds as development, so every item is held out exactly
 * once and no group is ever on both sides of a fold. Seeded and order-independent like {@link splitByContext}.
 *
 * @param k - number of folds, an integer from 2 to the number of groups
 * @throws RangeError when k is not an integer ≥ 2 or exceeds the number of groups
 */
export function kFoldSplits(items: readonly DialogueItem[], options: { k: number; seed?: string | number; groupBy?: SplitGrouping }): PromptSearchSplit[] {
  const { k } = options;
  if (!(Number.isInteger(k) && k >= 2)) throw new RangeError(`the number of folds must be an integer ≥ 2, got ${k}`);
  const groupOf = new Map<string, string>();
  for (const it of items) {
    const t = it.provenance?.transcriptId;
    groupOf.set(it.id, options.groupBy === 'transcript' && t !== undefined ? `transcript:${t}` : `context:${contextKey(it)}`);
  }
  const groups = [...new Set(groupOf.values())].sort();
  if (groups.length < k) throw new RangeError(`${k} folds need at least ${k} dialogue ${options.groupBy === 'transcript' ? 'transcripts' : 'contexts'}; the items have ${groups.length}`);
  const rng = seedrandom.alea(`prompt-search-kfold\u0000${options.seed ?? 0}`);
  shuffleInPlace(groups, rng);
  const foldOf = new Map(groups.map((g, i) => [g, i % k]));
  return Array.from({ length: k }, (_, f) => {
    const dev = new Set<string>();
    const test = new Set<string>();
    for (const [id, g] of groupOf) (foldOf.get(g) === f ? test : dev).add(id);
    const testGroups = groups.filter((g) => foldOf.get(g) === f).length;
    return { dev, test, groupOf, devGroups: groups.length - testGroups, testGroups };
  });
}

/** One fold's held-out pairs: the judge's scores, the human targets, and each pair's group (context). */
export interface FoldPairs {
  x: readonly number[];
  y: readonly number[];
  clusters: readonly string[];
}

/**
 * The cross-fitted held-out correlation of a k-fold search: each fold's Spearman rho between the scores of the
 * variant chosen without that fold and the human target, averaged with weights n_f (the fold's usable pairs) — the
 * "average of fold estimates" form of cross-fitting (Chernozhukov et al. 2018, Double/debiased machine learning,
 * Econometrics Journal 21(1), §3 DML1). Rhos are not pooled over one ranking because the folds' chosen variants may
 * answer on different scales (1–5, 0–100, Yes/No). Folds with fewer than 3 pairs or an undefined rho are left out.
 *
 * Interval: a percentile bootstrap stratified by fold — within every fold its groups (contexts) are resampled with
 * replacement, each fold's rho recomputed and the weighted mean taken. The folds' choices are held fixed, so the
 * interval covers the sampling of held-out contexts, not the variability of the choice itself (Bates, Hastie &
 * Tibshirani 2023, "Cross-validation: what does it estimate and how well does it do it?", JASA: naive intervals
 * around cross-validated estimates can undercover).
 *
 * @returns rho in [−1, 1] or null when no fold has a rho; n = Σ n_f over the folds used
 */
export function crossFitRho(folds: readonly FoldPairs[], bootstrap?: { resamples: number; seed: string | number; level: number }): { rho: number | null; n: number; ci?: BootstrapInterval } {
  const mean = (rs: (number | null)[], ns: number[]): number | null => {
    let num = 0;
    let den = 0;
    rs.forEach((r, f) => {
      if (r !== null && Number.isFinite(r)) {
        num += ns[f] * r;
        den += ns[f];
      }
    });
    return den > 0 ? num / den : null;
  };
  const rhoOf = (x: readonly number[], y: readonly number[]) => (x.length >= 3 ? spearmanRho(x, y).statistic : null);
  const rhos = folds.map((f) => rhoOf(f.x, f.y));
  const ns = folds.map((f) => f.x.length);
  const rho = mean(rhos, ns);
  const n = folds.reduce((s, f, i) => s + (rhos[i] !== null ? f.x.length : 0), 0);
  if (!bootstrap || rho === null) return { rho, n };
  const draws = folds.map((f, i) => (f.x.length ? clusterResamples(f.x.length, { resamples: bootstrap.resamples, seed: `${bootstrap.seed}\u0000fold${i}`, clusters: f.clusters }) : []));
  const stats: (number | null)[] = [];
  for (let b = 0; b < bootstrap.resamples; b++) {
    stats.push(mean(folds.map((f, i) => (draws[i].length ? rhoOf(pick(f.x, draws[i][b]), pick(f.y, draws[i][b])) : null)), ns));
  }
  return { rho, n, ci: percentileInterval(stats, bootstrap.level) };
}

/**
 * The human coherence target of a candidate: the share of the group's annotators who said coherent, in [0, 1]
 * (ICMI 2023 §2.1 sums the experts' yes votes; with a fixed number of annotators the ranks are the same), or null
 * when none of them answered.
 */
export function humanCoherence(c: Pick<Candidate, 'annotations'>, group: HumanGroup = 'experts', rules: GroupRules = DEFAULT_GROUP_RULES): number | null {
  const keep = inGroup(group, rules);
  const votes = c.annotations.filter((a) => typeof a.coherent === 'boolean' && keep(a)).map((a) => (a.coherent ? 1 : 0));
  return votes.length ? votes.reduce((s: number, v) => s + v, 0) / votes.length : null;
}

/** One few-shot example: a development candidate with its human target. */
export interface FewShotExample {
  itemId: string;
  candidateId: string;
  human: number;
}

/**
 * Picks k few-shot examples among development candidates with a human target.
 * - `random`: a seeded shuffle (Alea over `seed`), the first k;
 * - `spread`: sorted by human target (ties by item then candidate id), k evenly spaced ranks from the lowest to the
 *   highest, so the examples cover the scale.
 *
 * @param pool - development candidates only (the caller guarantees it: held-out items never become examples)
 */
export function pickFewShot(pool: readonly FewShotExample[], k: number, selection: 'random' | 'spread', seed: string | number): FewShotExample[] {
  if (k <= 0 || pool.length === 0) return [];
  const sorted = [...pool].sort((a, b) => a.human - b.human || a.itemId.localeCompare(b.itemId) || a.candidateId.localeCompare(b.candidateId));
  if (k >= sorted.length) return sorted;
  if (selection === 'spread') {
    if (k === 1) return [sorted[Math.floor((sorted.length - 1) / 2)]];
    return Array.from({ length: k }, (_, i) => sorted[Math.round((i * (sorted.length - 1)) / (k - 1))]);
  }
  const rng = seedrandom.alea(`prompt-search-fewshot\u0000${seed}`);
  const order = [...sorted];
  shuffleInPlace(order, rng);
  return order.slice(0, k);
}

/** A body of the search: which parts, in which order, and how many few-shot examples. */
export interface BodyShape {
  /** Part names in prompt order; the dialogue part is last. */
  parts: string[];
  fewShot: number;
}

/** The part a name denotes: an exact part name, or the part whose name starts with `<name>-` (`A` → `A-task-overview`). */
export function resolvePart(lib: PromptLibrary, name: string): string | undefined {
  if (lib.parts[name]) return name;
  const matches = Object.keys(lib.parts).filter((p) => p.startsWith(`${name}-`));
  return matches.length === 1 ? matches[0] : undefined;
}

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

/**
 * The body shapes of a search: every subset of the optional parts (in their given order, or in every order with
 * `orders`), each followed by the dialogue part, × each few-shot count. The empty subset is included (the dialogue
 * and the request alone). Order: by subset size, then as listed.
 */
export function bodyShapes(optional: readonly string[], dialogue: string, options: { orders?: boolean; fewShot?: readonly number[] } = {}): BodyShape[] {
  const subsets: string[][] = [];
  for (let mask = 0; mask < 1 << optional.length; mask++) subsets.push(optional.filter((_, i) => mask & (1 << i)));
  subsets.sort((a, b) => a.length - b.length);
  const ordered = options.orders ? subsets.flatMap((s) => permutations(s)) : subsets;
  const counts = options.fewShot?.length ? options.fewShot : [0];
  return counts.flatMap((fewShot) => ordered.map((s) => ({ parts: [...s, dialogue], fewShot })));
}

/** Short readable name of a shape: the parts' letters (`A-task-overview` → `A`) and the few-shot count, e.g. `ABD`, `BAD-fs2`. */
export function shapeName(shape: BodyShape): string {
  const letters = shape.parts.map((p) => /^([A-Za-z0-9]+)-/.exec(p)?.[1] ?? p).join('');
  return `parts-${letters}${shape.fewShot > 0 ? `-fs${shape.fewShot}` : ''}`;
}

/** Mustache text of literal example text: wrapped in a delimiter change so `{{` in the examples stays text. */
function literal(text: string): string | null {
  if (text.includes('<%') || text.includes('%>')) return null;
  return `{{=<% %>=}}${text}<%={{ }}=%>`;
}

/**
 * The few-shot block of a body: each example's dialogue and response as Part D writes them, then the request's
 * answer cue (its last line, e.g. `Rating (1-5):`) and the answer on the request's scale: min + h × (max − min) for
 * the human target h in [0, 1] (rounded for whole-number requests; for word answers, the word whose value is
 * nearest; for a scale that lists its `values`, the nearest of them). Returns null when an example's text cannot be embedded literally.
 */
export function fewShotBlock(examples: readonly { item: DialogueItem; candidate: Candidate; human: number }[], request: { source: string; spec: PromptLibrary['requests'][string]['spec'] }): string | null {
  const cue = request.source.trimEnd().split('\n').pop()!.trim();
  const lines = ['Examples'];
  examples.forEach((ex, i) => {
    const { spec } = request;
    let answer: string;
    const v = spec.min + ex.human * (spec.max - spec.min);
    if (spec.answers) {
      const words = Object.entries(spec.answers).sort((a, b) => Math.abs(a[1] - v) - Math.abs(b[1] - v));
      answer = words[0][0];
    } else if (spec.values) answer = String([...spec.values].sort((a, b) => Math.abs(a - v) - Math.abs(b - v) || a - b)[0]);
    else answer = String(spec.integer ? Math.round(v) : Math.round(v * 10) / 10);
    lines.push(`Example ${i + 1}`, 'Dialogue', ...ex.item.context.map((t) => `${speakerDisplayName(t.speaker)}: ${t.text}`), 'Response Candidate', `Therapist: ${ex.candidate.text}`, `${cue} ${answer}`);
  });
  return literal(lines.join('\n'));
}

/** A scored variant on one part of the split. */
export interface VariantFit {
  rho: number | null;
  n: number;
}

/**
 * The index of the variant to choose: the highest development Spearman rho (signed: the judge should rank coherent
 * responses higher); null rhos (constant scores, fewer than 3 pairs) are never chosen; ties go to the earlier
 * variant (the search order). Returns −1 when no variant has a rho.
 */
export function chooseVariant(dev: readonly VariantFit[]): number {
  let best = -1;
  for (let i = 0; i < dev.length; i++) {
    const r = dev[i].rho;
    if (r === null) continue;
    if (best < 0 || r > (dev[best].rho as number)) best = i;
  }
  return best;
}

/** The paper's six variants (ICMI 2023 §2.4): the three bundled task bodies × Rating and Scoring, when present. */
export function paperVariants(lib: PromptLibrary): PromptVariant[] {
  const bodies = ['instructions', 'instructions-error-explanations', 'instructions-tutorial'].filter((b) => lib.bodies[b]);
  const requests = ['rating', 'scoring'].filter((r) => lib.requests[r]);
  return bodies.flatMap((body) => requests.map((request) => ({ body, request })));
}
