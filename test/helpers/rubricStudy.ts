/**
 * A study with its own rubric for the --dimension tests: test/core/agreement/fixtures/rubric-study (30 contexts × 4
 * responses; Sensible binary, Overall ordinal 1–5 (primary), Specificity numeric, Problem categorical; raters r1–r4,
 * none an expert) with two evaluators: a judge near the mean Overall rating, and seeded noise under a BLEU-4 id.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import type { DialogueItem } from '../../src/core/dialogue/types';
import { documentItems, parseDocument } from '../../src/core/format/jsonl';
import { humanScore, type ScaleDimension } from '../../src/core/rubric/labelValues';
import { parseRubric } from '../../src/core/rubric/rubricFile';

const fixtures = join(__dirname, '..', 'core', 'agreement', 'fixtures');
export const rubric = parseRubric(readFileSync(join(fixtures, 'rubric-study.rubric.json'), 'utf8'), 'rubric-study.rubric.json');
export const JUDGE = 'judge:local:stub:instructions×rating@000000000000';
export const METRIC = 'metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0';

/** The fixture with two evaluators: a judge near the mean Overall rating, and noise. */
export function scoredRubricStudy(): DialogueItem[] {
  const items = documentItems(parseDocument(readFileSync(join(fixtures, 'rubric-study.dialogues.jsonl')), 'rubric-study.dialogues.jsonl'));
  const rng = seedrandom('dimension-test');
  const overall = rubric.dimensions.find((d) => d.name === 'Overall') as ScaleDimension;
  for (const it of items) {
    for (const c of it.candidates) {
      const m = humanScore(c, overall, rubric, 'mean');
      c.scores[JUDGE] = { value: (m ?? 3) + rng() * 1.5, status: 'ok' };
      c.scores[METRIC] = { value: rng(), status: 'ok' };
    }
  }
  return items;
}

