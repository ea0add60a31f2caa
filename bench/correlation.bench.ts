/**
 * `npm run bench -- correlation [copies]`: how long the correlation panel's computations take on a study of a few
 * thousand responses — the committed synthetic study (15 items, 244 responses) copied `copies` times (default 13,
 * ≈ 3,200 responses) — the table alone (what the panel recomputes on every edit), and with 1,000 bootstrap
 * resamples (what it computes debounced, cooperatively). Prints milliseconds and the ratio to the table alone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareEvaluators } from '../src/core/analysis/compareEvaluators';
import { correlationTable, type CorrelationMethod } from '../src/core/analysis/correlationTable';
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
    // Kendall's tau-b costs a sort per resample and cell: measured with B = 100 and scaled to 1,000.
    const B = method === 'kendall' ? 100 : 1000;
    const boot = time(() => correlationTable(items, { method, bootstrap: { resamples: B, seed: 1 } }));
    const ms = (boot.ms * 1000) / B;
    console.log(`${method.padEnd(8)} table                        ${plain.ms.toFixed(1).padStart(9)} ms`);
    console.log(`${method.padEnd(8)} table + B = 1000 bootstrap   ${ms.toFixed(1).padStart(9)} ms  (${(ms / plain.ms).toFixed(0)}× the table${B !== 1000 ? `; measured with B = ${B}` : ''})`);
  }
  const ids = Object.keys(items[0].candidates[1].scores).filter((id) => id.startsWith('judge:'));
  const cmp = time(() => compareEvaluators(items, ids[0], ids[1], { bootstrap: { resamples: 1000, seed: 1 } }));
  console.log(`compare two judges, B = 1000           ${cmp.ms.toFixed(1).padStart(9)} ms`);
}
