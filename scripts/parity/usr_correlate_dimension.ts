/**
 * USR Topical-Chat through `reflect-eval correlate --dimension`, one run per quality: the correlation table of
 * BLEU-4, METEOR, ROUGE-L and the nlg-eval variants (pycocoevalcap BLEU-1…4, ROUGE-L β = 1.2) against the mean
 * rating of each quality, and the largest |Δ| between the CLI's cells and the independent NLTK/scipy reference cells
 * of test/fixtures/usr-tc/usr-tc-reference.json (usr_correlation_reference.py) for the response set ReflectEval
 * scores: every response but the reference itself ("notReferenceText", n = 299; the "responses" cells score the one
 * response equal to its reference against itself, which ReflectEval never does).
 *
 *     reflect-eval import generic tc_usr_data.json --guess > usr-tc.mapping.json
 *     reflect-eval import generic tc_usr_data.json --mapping usr-tc.mapping.json -o usr-tc.dialogues.jsonl
 *     reflect-eval score usr-tc.dialogues.jsonl --metric bleu4 rougeL meteor cocoBleu cocoRougeL
 *     npm run build && npx tsx scripts/parity/usr_correlate_dimension.ts usr-tc.dialogues.jsonl
 *
 * Prints the Overall column beside the values the USR paper publishes (Table 5).
 *
 * Runs dist/cli.js (`correlate <file> --dimension <quality> --human-score mean --by none --method spearman|pearson
 * --p-value independent --json`), prints the Spearman table (Markdown) and the max |Δ| of rho, its p, r and its p;
 * exits 1 when a reference cell is missing or a difference exceeds 1e-9.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Cell { set: string; metric: 'bleu4' | 'meteor' | 'rougeL'; quality: string; n: number; spearman: number; spearmanP: number; pearson: number; pearsonP: number }
interface TableJson { rows: { evaluatorId: string; displayName: string; cells: { column: string; n: number; statistic: number | null; pValue: number | null }[] }[]; dimension?: { name: string; rule: string } }

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx scripts/parity/usr_correlate_dimension.ts <usr-tc.dialogues.jsonl, imported and scored>');
  process.exit(2);
}
const root = join(__dirname, '..', '..');
const ref = JSON.parse(readFileSync(join(root, 'test', 'fixtures', 'usr-tc', 'usr-tc-reference.json'), 'utf8')) as { cells: Cell[] };
const QUALITIES = ['Understandable', 'Natural', 'Maintains Context', 'Engaging', 'Uses Knowledge', 'Overall'];
const ROWS: [string, string][] = [
  ['BLEU-4 (NLTK)', 'metric:bleu4.score@'],
  ['METEOR (NLTK)', 'metric:meteor.score@'],
  ['ROUGE-L F (rouge-score)', 'metric:rougeL.f@'],
  ['BLEU-1 (nlg-eval)', 'metric:cocoBleu.bleu1@'],
  ['BLEU-2 (nlg-eval)', 'metric:cocoBleu.bleu2@'],
  ['BLEU-3 (nlg-eval)', 'metric:cocoBleu.bleu3@'],
  ['BLEU-4 (nlg-eval)', 'metric:cocoBleu.bleu4@'],
  ['ROUGE-L (nlg-eval, β = 1.2)', 'metric:cocoRougeL.f@'],
];
const REF_METRIC: Record<string, string> = { bleu4: 'metric:bleu4.score@', meteor: 'metric:meteor.score@', rougeL: 'metric:rougeL.f@' };

function correlate(quality: string, method: 'spearman' | 'pearson'): TableJson {
  const r = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'correlate', file, '--dimension', quality, '--human-score', 'mean', '--by', 'none', '--method', method, '--p-value', 'independent', '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`correlate --dimension ${quality}: ${r.stderr}`);
  return JSON.parse(r.stdout) as TableJson;
}

const tables = new Map<string, { spearman: TableJson; pearson: TableJson }>();
for (const q of QUALITIES) tables.set(q, { spearman: correlate(q, 'spearman'), pearson: correlate(q, 'pearson') });
const cellOf = (t: TableJson, prefix: string) => t.rows.find((r) => r.evaluatorId.startsWith(prefix))?.cells.find((c) => c.column === 'all');

const fmt = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(3));
console.log(`Spearman's rho with the mean rating of each quality (USR Topical-Chat, n = ${cellOf(tables.get('Overall')!.spearman, ROWS[0][1])?.n} responses, every response but the reference itself)\n`);
console.log(`| Metric | ${QUALITIES.join(' | ')} |`);
console.log(`|---|${QUALITIES.map(() => '---:').join('|')}|`);
for (const [name, prefix] of ROWS) console.log(`| ${name} | ${QUALITIES.map((q) => fmt(cellOf(tables.get(q)!.spearman, prefix)?.statistic)).join(' | ')} |`);

let failed = false;
const worst: Record<string, number> = { spearman: 0, spearmanP: 0, pearson: 0, pearsonP: 0, n: 0 };
let compared = 0;
for (const c of ref.cells.filter((x) => x.set === 'notReferenceText')) {
  const t = tables.get(c.quality);
  const s = t && cellOf(t.spearman, REF_METRIC[c.metric]);
  const p = t && cellOf(t.pearson, REF_METRIC[c.metric]);
  if (!s || !p) {
    console.error(`missing: ${c.metric} × ${c.quality}`);
    failed = true;
    continue;
  }
  compared++;
  const pairs: [string, number | null, number][] = [['spearman', s.statistic, c.spearman], ['spearmanP', s.pValue, c.spearmanP], ['pearson', p.statistic, c.pearson], ['pearsonP', p.pValue, c.pearsonP], ['n', s.n, c.n]];
  for (const [k, got, want] of pairs) {
    const d = got === null ? Infinity : Math.abs(got - want);
    worst[k] = Math.max(worst[k], d);
    if (!(d <= 1e-9)) failed = true;
  }
}
// Mehri & Eskenazi (ACL 2020), Table 5: turn-level correlations with Overall Quality on Topical-Chat, the
// annotations of the original ground truth not used. The paper computed them with nlg-eval (Java METEOR 1.5);
// the rows here are the closest ReflectEval metric of each.
const PUBLISHED: [string, string, number, number][] = [
  ['BLEU-1', 'metric:cocoBleu.bleu1@', 0.2728, 0.2876],
  ['BLEU-2', 'metric:cocoBleu.bleu2@', 0.2862, 0.3012],
  ['BLEU-3', 'metric:cocoBleu.bleu3@', 0.2569, 0.3006],
  ['BLEU-4', 'metric:cocoBleu.bleu4@', 0.216, 0.2956],
  ['METEOR', 'metric:meteor.score@', 0.3365, 0.3908],
  ['ROUGE-L', 'metric:cocoRougeL.f@', 0.2745, 0.287],
];
const overall = tables.get('Overall')!;
console.log('\nBeside the paper (USR, Table 5: Topical-Chat, Overall Quality; ReflectEval: nlg-eval variants, NLTK METEOR)\n');
console.log('| Metric | ρ published | ρ ReflectEval | r published | r ReflectEval |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, prefix, rho, r] of PUBLISHED) console.log(`| ${name} | ${rho.toFixed(4)} | ${fmt(cellOf(overall.spearman, prefix)?.statistic)} | ${r.toFixed(4)} | ${fmt(cellOf(overall.pearson, prefix)?.statistic)} |`);

console.log(`\n${compared} reference cells (3 metrics × 6 qualities, n = 299) compared; max |Δ|: ${Object.entries(worst).map(([k, v]) => `${k} ${v === 0 ? '0' : v.toExponential(2)}`).join(', ')}`);
process.exit(failed ? 1 : 0);
