/**
 * A generated pool for the alt-test's trivial-evaluator problem (issue 40): 15 dialogue contexts × 10 candidates,
 * each labelled coherent/incoherent by 3 of 9 experts who call about 80 % of the responses coherent and barely agree
 * (Fleiss' κ near 0.05), scored by
 * - `metric:bleuLike.score@generated` — a BLEU-like metric that is 0 for most responses (85 %), so its match-rate cut
 *   (score ≥ 0) calls every response coherent;
 * - `judge:generated:instructions×rating@0` — a judge's 1–5 rating that follows the latent quality;
 * - `metric:alwaysCoherent.score@generated` — 1 for every response.
 *
 *   npx tsx scripts/coverage/altTestPool.ts out.dialogues.jsonl [seed]
 *   node dist/cli.js alt-test out.dialogues.jsonl --evaluator bleuLike judge alwaysCoherent --group experts
 */
import { writeFileSync } from 'node:fs';
import { generateStudy, humanThresholds, type StudyDesign } from './generate';
import { PANEL } from './scenarios';

const out = process.argv[2] ?? 'alt-test-pool.dialogues.jsonl';
const seed = process.argv[3] ?? 'alt-test-pool-5';

const design: StudyDesign = {
  contexts: 15,
  candidates: 10,
  contextSd: 0.6,
  humanNoise: 3,
  panel: PANEL,
  perCandidate: 3,
  labels: 'binary',
  balance: 0.8,
  evaluator: { signal: 1, contextSd: 0.4, noiseSd: 1.2, shape: 'zero-mass', zeroShare: 0.85 },
};
humanThresholds(design);
const study = generateStudy(design, seed);
const judge = generateStudy({ ...design, evaluator: { signal: 1, contextSd: 0.3, noiseSd: 0.5, shape: 'rating', ratingShares: [0.05, 0.1, 0.2, 0.35, 0.3] } }, seed);
const lines: string[] = [];
for (let c = 0; c < design.contexts; c++) {
  const candidates = [];
  for (let j = 0; j < design.candidates; j++) {
    const i = c * design.candidates + j;
    candidates.push({
      id: `c${j}`,
      text: `generated response ${j + 1} to context ${c + 1}`,
      origin: { kind: 'model', source: 'generated' },
      annotations: Array.from({ length: design.perCandidate }, (_, r) => ({ annotator: `Expert-${study.annotators[i * 3 + r] + 1}`, coherent: study.values[i * 3 + r] === 1 })),
      scores: {
        'metric:bleuLike.score@generated': { value: Number(study.a[i].toFixed(6)), status: 'ok' },
        'judge:generated:instructions×rating@0': { value: judge.a[i], status: 'ok' },
        'metric:alwaysCoherent.score@generated': { value: 1, status: 'ok' },
      },
    });
  }
  lines.push(JSON.stringify({ id: `context-${c + 1}`, context: [{ speaker: 'client', text: `context ${c + 1}` }], candidates }));
}
writeFileSync(out, lines.join('\n') + '\n');
process.stderr.write(`wrote ${out}: ${design.contexts * design.candidates} responses\n`);
