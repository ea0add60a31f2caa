/**
 * Krippendorff's alpha of every USR Topical-Chat quality on the imported study (`reflect-eval import generic
 * tc_usr_data.json --mapping …`, docs/importing.md), at the nominal, ordinal and interval level through core's
 * `krippendorffAlpha`, against the `krippendorff` package's values on the release itself
 * (scripts/parity/usr_alpha_reference.py; test/fixtures/usr-tc/usr-alpha-reference.json). Units are the study's
 * candidates (one per response record), coders its annotators; a rating is the annotation's value under the
 * quality's name. Prints a Markdown table and the largest |Δ|; exits 1 above 1e-9 or when the unit count differs.
 *
 *     npx tsx scripts/parity/usr_alpha_compare.ts usr-tc.dialogues.jsonl [reference.json]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { krippendorffAlpha, type MeasurementLevel } from '../../src/core/agreement/krippendorffAlpha';
import { documentItems } from '../../src/core/format/jsonl';
import { readDialogueFile } from '../../src/core/format/files';

const file = process.argv[2];
if (!file) {
  console.error('usage: npx tsx scripts/parity/usr_alpha_compare.ts <usr-tc.dialogues.jsonl> [reference.json]');
  process.exit(2);
}
const refPath = process.argv[3] ?? join(__dirname, '..', '..', 'test', 'fixtures', 'usr-tc', 'usr-alpha-reference.json');
const ref = JSON.parse(readFileSync(refPath, 'utf8')) as { units: number; coders: string[]; alpha: Record<string, Record<MeasurementLevel, number>> };
const items = documentItems(readDialogueFile(file));
const candidates = items.flatMap((it) => it.candidates);
const coders = ref.coders;
const levels: MeasurementLevel[] = ['nominal', 'ordinal', 'interval'];
let worst = 0;
let failed = candidates.length !== ref.units;
if (failed) console.error(`units: ${candidates.length} candidates in the study, ${ref.units} responses in the release`);
console.log('| quality | α nominal | α ordinal | α interval | max |Δ| against krippendorff |');
console.log('|---|---:|---:|---:|---:|');
for (const [quality, want] of Object.entries(ref.alpha)) {
  const data = candidates.map((c) => coders.map((coder) => {
    const a = c.annotations.find((x) => x.annotator === coder);
    const v = a?.[quality];
    return typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : null;
  }));
  const got = levels.map((level) => krippendorffAlpha(data, { level }).alpha);
  const d = Math.max(...levels.map((level, i) => Math.abs((got[i] ?? NaN) - want[level])));
  worst = Math.max(worst, d);
  if (!(d <= 1e-9)) failed = true;
  console.log(`| ${quality} | ${got.map((v) => (v === null ? '–' : v.toFixed(4))).join(' | ')} | ${d.toExponential(2)} |`);
}
console.log(`\nmax |Δ| over ${Object.keys(ref.alpha).length} qualities × 3 levels: ${worst.toExponential(2)}`);
process.exit(failed ? 1 : 0);
