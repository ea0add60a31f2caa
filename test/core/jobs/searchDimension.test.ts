/**
 * Issue 39 item 4, prompt search on a rubric dimension: `dimension: "Overall"` on the rubric study
 * (test/core/agreement/fixtures/rubric-study, Overall ordinal 1–5, raters r1–r4) asks the judge for an Overall
 * rating written from the rubric, and scores every variant against the mean Overall rating — the human score
 * correlate takes for an ordinal dimension. A loopback stub judge answers the rounded mean Overall rating when the
 * prompt has Part B and a seeded number otherwise: the search must choose a Part-B body, and the development rho it
 * reports must be Spearman's rho of those answers against the mean rating, recomputed here from the file.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import { buildSearchSpace, validateSearchPromptsPlan, type SearchPromptsPlan } from '../../../src/core/jobs/searchPrompts';
import type { SearchResult } from '../../../src/core/judges/searchReport';
import { humanScore, type ScaleDimension } from '../../../src/core/rubric/labelValues';
import { spearmanRho } from '../../../src/core/stats/correlation';
import { testJobHost } from '../../helpers/jobHost';
import { rubric } from '../../helpers/rubricStudy';
import { startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';

const root = resolve(__dirname, '../../..');
const fixtures = join(root, 'test/core/agreement/fixtures');
const overall = rubric.dimensions.find((d) => d.name === 'Overall') as ScaleDimension;

function study(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'search-dim-'));
  const file = join(dir, 'study.dialogues.jsonl');
  copyFileSync(join(fixtures, 'rubric-study.dialogues.jsonl'), file);
  copyFileSync(join(fixtures, 'rubric-study.rubric.json'), join(dir, 'study.rubric.json'));
  return { dir, file };
}

const items = documentItems(parseDocument(readFileSync(join(fixtures, 'rubric-study.dialogues.jsonl')), 'rubric-study.dialogues.jsonl'));
/** The mean Overall rating of every response text (all raters). */
const meanOverall = new Map(items.flatMap((it) => it.candidates.map((c) => [c.text, humanScore(c, overall, rubric, 'mean')] as const)));
const noise = (text: string) => 1 + (createHash('sha256').update(text).digest()[0] % 5);

function answer(prompt: string): string {
  const last = [...prompt.matchAll(/Response Candidate\nTherapist: (response \d+ to context \d+)/g)].pop()?.[1] ?? '';
  if (!/Overall \(1-5\):$/.test(prompt)) return 'no';
  const m = meanOverall.get(last);
  if (prompt.includes('Incoherence and Inconsistency') && m !== null && m !== undefined) return String(Math.round(m));
  return String(noise(last));
}

describe('prompt search on a rubric dimension (issue 39 item 4)', function () {
  this.timeout(120_000);
  let stub: StubServer | undefined;
  after(async () => stub?.close());

  it('asks for the Overall rating from the rubric and chooses on the mean Overall rating', async () => {
    stub = await startStubOpenAI((req) => ({ reply: answer((req.body.messages as { content: string }[])[0].content) }));
    const { dir, file } = study();
    const plan: SearchPromptsPlan & { job: 'search-prompts' } = {
      job: 'search-prompts',
      judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'stub-judge' }],
      parts: { optional: ['A', 'B'] },
      dimension: 'Overall',
      human: 'all',
      baselines: false,
      split: { seed: 3 },
      bootstrap: { resamples: 50 },
    };
    const report = await runPlanOnFile(plan, file, testJobHost(dir));
    const r = report.data as unknown as SearchResult;
    assert.deepEqual(r.target, { dimension: 'Overall', humanScore: 'mean', phrase: 'mean rating of Overall' });
    assert.match(report.lines.join('\n'), /target: the mean rating of Overall \(dimension "Overall", human score mean, all\)/);
    assert.deepEqual([...new Set(r.entries.map((e) => e.request))], ['dimension:Overall']);
    const w = r.entries[r.winner];
    assert.match(w.body, /B/, report.lines.join('\n'));
    // Recompute the winner's development rho: the stub's answers (rounded mean Overall) against the mean Overall rating.
    const dev = new Set(r.split.devItems);
    // (ctx-16's c3 has no Overall rating: it has no target and is not searched on.)
    const rated = items.filter((it) => dev.has(it.id)).flatMap((it) => it.candidates.flatMap((c) => (meanOverall.get(c.text) === null ? [] : [meanOverall.get(c.text)!])));
    const pairs = rated.map((m) => [Math.round(m), m] as const);
    assert.equal(w.dev!.n, pairs.length);
    assert.ok(Math.abs((w.dev!.rho as number) - (spearmanRho(pairs.map((p) => p[0]), pairs.map((p) => p[1])).statistic as number)) < 1e-12);
    const prompt = String((stub.requests[0].body.messages as { content: string }[])[0].content);
    assert.match(prompt, /\nOverall\nRate the Response Candidate on a discrete scale from 1 to 5, where:\n1\n2\n3\n4\n5\nOverall \(1-5\):$/);
  });

  it('checks the dimension against the rubric and refuses bundled requests beside it', () => {
    const { file } = study();
    const plan = validateSearchPromptsPlan({ judges: [{ backend: 'local' }], dimension: 'Problem', human: 'all' }, 'search.json');
    const study_ = { rubric, file };
    assert.throws(() => buildSearchSpace(plan, items, [join(root, 'prompts')], 0, { rubric: study_ }), /dimension "Problem" is categorical: it has no score to correlate/);
    assert.throws(() => buildSearchSpace({ ...plan, dimension: 'Overall', requests: ['rating'] }, items, [join(root, 'prompts')], 0, { rubric: study_ }), /requests: the request for dimension "Overall" is built from the rubric/);
    assert.throws(() => validateSearchPromptsPlan({ judges: [{ backend: 'local' }], humanScore: 'mean' }, 'search.json'), /search\.json: humanScore: applies with a "dimension"/);
    // Sensible (binary) by the count of yes, as correlate counts it; the few-shot answers are the share who said yes.
    const space = buildSearchSpace({ ...plan, dimension: 'Sensible', fewShot: { counts: [2] } }, items, [join(root, 'prompts')], 0, { rubric: study_ });
    const c = space.items[0].candidates[0];
    assert.equal(space.human.get(`${space.items[0].id}\u0000${c.id}`), c.annotations.filter((a) => a.Sensible === true).length);
    assert.equal(space.target?.humanScore, 'count');
  });
});
