/**
 * Compares USR Topical-Chat as ReflectEval imports and scores it with the independent reference numbers of
 * usr_correlation_reference.py (test/fixtures/usr-tc/usr-tc-reference.json): every response's BLEU-4, METEOR and
 * ROUGE-L, and every cell's Spearman and Pearson statistic and p-value, the human score being the rubric's mean
 * rating (rubric/labelValues.ts humanScore) and the correlation stats/correlation.ts's.
 *
 *     reflect-eval import generic tc_usr_data.json --guess > usr-tc.mapping.json
 *     reflect-eval import generic tc_usr_data.json --mapping usr-tc.mapping.json -o usr-tc.dialogues.jsonl
 *     reflect-eval score usr-tc.dialogues.jsonl
 *     npx tsx scripts/parity/usr_compare_import.ts usr-tc.dialogues.jsonl
 *
 * Prints the number of responses and cells compared and the largest absolute difference of each kind; exits 1
 * when a response or a score is missing, or a difference exceeds 1e-9.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentItems, parseDocument } from '../../src/core/format/jsonl';
import { humanScore, type ScaleDimension } from '../../src/core/rubric/labelValues';
import { dimensionNamed } from '../../src/core/rubric/rubric';
import { loadRubric } from '../../src/core/rubric/rubricFile';
import { pearsonR, spearmanRho } from '../../src/core/stats/correlation';

interface Reference {
  responses: { itemId: string; candidateId: string; equalsReference: boolean; bleu4: number; meteor: number; rougeL: number }[];
  cells: { set: 'responses' | 'notReferenceText'; metric: 'bleu4' | 'meteor' | 'rougeL'; quality: string; n: number; spearman: number; spearmanP: number; pearson: number; pearsonP: number }[];
}

const SCORE_PREFIX = { bleu4: 'metric:bleu4.score@', meteor: 'metric:meteor.score@', rougeL: 'metric:rougeL.f@' } as const;

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx scripts/parity/usr_compare_import.ts <usr-tc.dialogues.jsonl, imported and scored>');
  process.exit(2);
}
const ref = JSON.parse(readFileSync(join(__dirname, '..', '..', 'test', 'fixtures', 'usr-tc', 'usr-tc-reference.json'), 'utf8')) as Reference;
const items = documentItems(parseDocument(readFileSync(file, 'utf8'), file));
const { rubric } = loadRubric(file);
const byId = new Map(items.flatMap((it) => it.candidates.map((c) => [`${it.id}\u0000${c.id}`, { it, c }] as const)));
const value = (c: { scores: Record<string, unknown> }, metric: keyof typeof SCORE_PREFIX): number => {
  const key = Object.keys(c.scores).find((k) => k.startsWith(SCORE_PREFIX[metric]));
  const v = key ? (c.scores[key] as { value?: unknown }).value : undefined;
  if (typeof v !== 'number') throw new Error(`no ${metric} score (run reflect-eval score first)`);
  return v;
};

let failed = false;
const worst: Record<string, number> = {};
const note = (kind: string, a: number, b: number) => {
  const d = Math.abs(a - b);
  worst[kind] = Math.max(worst[kind] ?? 0, d);
  if (!(d <= 1e-9)) failed = true;
};
for (const r of ref.responses) {
  const hit = byId.get(`${r.itemId}\u0000${r.candidateId}`);
  if (!hit) {
    console.error(`missing: ${r.itemId} ${r.candidateId}`);
    failed = true;
    continue;
  }
  for (const m of ['bleu4', 'meteor', 'rougeL'] as const) note(m, value(hit.c, m), r[m]);
}
for (const cell of ref.cells) {
  const d = dimensionNamed(rubric, cell.quality) as ScaleDimension | undefined;
  if (!d) throw new Error(`${file}: the rubric has no dimension ${JSON.stringify(cell.quality)}`);
  const x: number[] = [];
  const y: number[] = [];
  for (const r of ref.responses) {
    if (cell.set === 'notReferenceText' && r.equalsReference) continue;
    const hit = byId.get(`${r.itemId}\u0000${r.candidateId}`);
    if (!hit) continue;
    x.push(value(hit.c, cell.metric));
    y.push(humanScore(hit.c, d, rubric, 'mean') as number);
  }
  if (x.length !== cell.n) {
    console.error(`${cell.set} ${cell.metric} ${cell.quality}: n = ${x.length}, reference ${cell.n}`);
    failed = true;
  }
  const s = spearmanRho(x, y);
  const p = pearsonR(x, y);
  note('spearman', s.statistic as number, cell.spearman);
  note('spearmanP', s.pValue as number, cell.spearmanP);
  note('pearson', p.statistic as number, cell.pearson);
  note('pearsonP', p.pValue as number, cell.pearsonP);
}
console.log(`${ref.responses.length} responses, ${ref.cells.length} cells; max |Δ|: ${Object.entries(worst).map(([k, v]) => `${k} ${v.toExponential(2)}`).join(', ')}`);
process.exit(failed ? 1 : 0);
