/**
 * Adds two evaluators of equal quality to a dialogue file, for testing the planner's decision rule: each is the
 * experts' coherence score of the candidate plus independent Gaussian noise of the same standard deviation.
 * Usage: npx tsx scripts/planning/addNoisyCopies.ts <in.dialogues.jsonl> <out.dialogues.jsonl> [noise=1] [seed=1]
 * Evaluator ids: metric:noisyCopyA.score@noise:<σ>|seed:<seed> and metric:noisyCopyB.score@… .
 */
import { readFileSync, writeFileSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { formatItems, documentItems, parseDocument } from '../../src/core/format/jsonl';
import { coherenceScore } from '../../src/core/labels/annotate';
import { inGroup } from '../../src/core/labels/groups';

const [input, output, noiseArg = '1', seed = '1'] = process.argv.slice(2);
if (!input || !output) throw new Error('usage: addNoisyCopies.ts <in> <out> [noise] [seed]');
const noise = Number(noiseArg);
const items = documentItems(parseDocument(readFileSync(input, 'utf8'), input));
const rng = seedrandom.alea(`noisy-copies:${seed}`);
const gaussian = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
const experts = inGroup('experts');
let n = 0;
for (const it of items) {
  for (const c of it.candidates) {
    const y = coherenceScore(c, experts);
    if (y === null) continue;
    c.scores = c.scores ?? {};
    for (const name of ['A', 'B']) c.scores[`metric:noisyCopy${name}.score@noise:${noise}|seed:${seed}`] = { value: y + noise * gaussian(), status: 'ok', signature: `noise:${noise}|seed:${seed}` };
    n++;
  }
}
writeFileSync(output, formatItems(items));
console.error(`added two noisy copies (σ = ${noise}) of the experts' coherence score to ${n} candidates: ${output}`);
