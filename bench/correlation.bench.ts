/**
 * `npm run bench -- correlation [copies]`: how long the correlation panel's computations take on a study of a few
 * thousand responses — the committed synthetic study (15 items, 244 responses) copied `copies` times (default 13,
 * ≈ 3,200 responses) — the table alone (what the panel recomputes on every edit), and with 1,000 bootstrap
 * resamples (what it computes debounced, cooperatively). Prints milliseconds and the ratio to the table alone; then
 * one Kendall cell against the implementations it replaced (ratios measured in this process).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareEvaluators } from '../src/core/correlation/compareEvaluators';
import { cellInterval, cellPairs, correlationData, correlationTable, resamplePairs, type CorrelationMethod } from '../src/core/correlation/correlationTable';
import { bootstrapIndices } from '../src/core/stats/bootstrap';
import { kendallTauB, kendallTauBStatistic, kendallTauBWeighted } from '../src/core/stats/correlation';
import { documentItems, parseDocument } from '../src/core/format/jsonl';
import type { DialogueItem } from '../src/core/dialogue/types';

function time<T>(fn: () => T, repeat = 1): { ms: number; value: T } {
  const runs: number[] = [];
  let value: T | undefined;
  for (let i = 0; i < repeat; i++) {
    const t0 = performance.now();
    value = fn();
    runs.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  return { ms: runs[Math.floor(runs.length / 2)], value: value as T };
}

export async function run(args: string[]): Promise<void> {
  const copies = Number(args[0] ?? 13);
  const text = readFileSync(join(__dirname, '../test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), 'utf8');
  const base = documentItems(parseDocument(text, 'x.jsonl'));
  const items: DialogueItem[] = [];
  for (let k = 0; k < copies; k++) for (const it of base) items.push({ ...structuredClone(it), id: `${it.id}-copy${k}` });
  const bigText = items.map((it) => JSON.stringify(it)).join('\n') + '\n';
  const responses = items.reduce((n, it) => n + it.candidates.length, 0);
  console.log(`${items.length} items, ${responses} responses, ${Object.keys(items[0].candidates[1].scores).length} evaluators`);
  const parse = time(() => documentItems(parseDocument(bigText, 'big.jsonl')), 5);
  console.log(`parse the file                         ${parse.ms.toFixed(1).padStart(9)} ms`);
  for (const method of ['spearman', 'pearson', 'kendall'] as CorrelationMethod[]) {
    const plain = time(() => correlationTable(items, { method }), 5);
    const B = 1000;
    const boot = time(() => correlationTable(items, { method, bootstrap: { resamples: B, seed: 1 } }));
    console.log(`${method.padEnd(8)} table                        ${plain.ms.toFixed(1).padStart(9)} ms`);
    console.log(`${method.padEnd(8)} table + B = 1000 bootstrap   ${boot.ms.toFixed(1).padStart(9)} ms  (${(boot.ms / plain.ms).toFixed(0)}× the table)`);
  }
  kendallCell(items);
  const ids = Object.keys(items[0].candidates[1].scores).filter((id) => id.startsWith('judge:'));
  const cmp = time(() => compareEvaluators(items, ids[0], ids[1], { bootstrap: { resamples: 1000, seed: 1 } }));
  console.log(`compare two judges, B = 1000           ${cmp.ms.toFixed(1).padStart(9)} ms`);
}

/** The O(n²) pair loop kendallTauB used before Knight's counts: the reference for the point estimate. */
function kendallPairLoop(x: readonly number[], y: readonly number[]): number {
  let con = 0;
  let dis = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const s = Math.sign(x[i] - x[j]) * Math.sign(y[i] - y[j]);
      if (s > 0) con++;
      else if (s < 0) dis++;
    }
  }
  return con - dis;
}

/**
 * One cell of the table (the first judge vs the human score over all responses), Kendall's tau-b: the point
 * estimate (Knight's O(n log n) counts vs the O(n²) pair loop it replaced), and B = 1,000 item bootstrap
 * resamples (pairs weighted by item draws, kendallTauBWeighted, vs building each concatenated resample and
 * running Knight on it, the path it replaced; the same numbers, checked here).
 */
function kendallCell(items: DialogueItem[]): void {
  const data = correlationData(items, {});
  const judge = data.evaluatorIds.find((id) => id.startsWith('judge:')) as string;
  const pairs = cellPairs(data, judge, 'all');
  const flat = resamplePairs(pairs, Array.from(pairs.x.keys()));
  const n = flat.x.length;
  const knight = time(() => kendallTauB(flat.x, flat.y), 5);
  const loop = time(() => kendallPairLoop(flat.x, flat.y), 3);
  console.log(`kendall  one cell (n = ${n}) tau-b + p          ${knight.ms.toFixed(1).padStart(9)} ms  (O(n²) pair loop ${loop.ms.toFixed(1)} ms: ${(loop.ms / knight.ms).toFixed(0)}×)`);
  const resamples = bootstrapIndices(pairs.x.length, 1000, 1);
  const weighted = time(() => cellInterval('kendall', pairs, resamples), 3);
  const concatenated = time(() => resamples.map((idx) => { const r = resamplePairs(pairs, idx); return kendallTauBStatistic(r.x, r.y); }));
  const check = kendallTauBWeighted(flat.x, flat.y);
  const item = pairs.x.flatMap((px, k) => px.map(() => k));
  const same = resamples.every((idx, b) => {
    const counts = new Int32Array(pairs.x.length);
    for (const k of idx) counts[k]++;
    return check(Int32Array.from(item, (k) => counts[k])) === concatenated.value[b];
  });
  console.log(`kendall  one cell, B = 1000 bootstrap        ${weighted.ms.toFixed(1).padStart(9)} ms  (concatenate + Knight per resample ${concatenated.ms.toFixed(1)} ms: ${(concatenated.ms / weighted.ms).toFixed(1)}×; identical values: ${same})`);
}
