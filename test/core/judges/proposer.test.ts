/**
 * Proposer rewrites in the prompt search, against two loopback stubs (the proposer and the judge): the proposer sees
 * only the part's text (no item, no label); a rewrite the judge follows well is chosen on development items; the
 * rewrite enters prompts as literal text; a rerun takes the rewrites from the cache; the plan's mistakes are named.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/core/config';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import type { JobHost } from '../../../src/core/jobs/host';
import { validateSearchPromptsPlan, type SearchPromptsPlan } from '../../../src/core/jobs/searchPrompts';
import type { SearchResult } from '../../../src/core/judges/searchReport';
import { rewritePartName } from '../../../src/core/judges/proposer';
import { testJobHost } from '../../helpers/jobHost';
import { startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';
import { labelledItems } from '../../helpers/labelledItems';


function host(baseDir: string): JobHost {
  return testJobHost(baseDir);
}

/** 12 contexts × 5 candidates; candidate j of item i has (7i + 3j) mod 4 of 3 experts saying coherent. */
function makeItems(): DialogueItem[] {
  return labelledItems({ contexts: 12, candidates: 5, yes: (i, j) => (i * 7 + j * 3) % 4, context: (i) => [{ speaker: 'client', text: `Week ${i} was hard.` }] });
}
const yesOf = new Map(makeItems().flatMap((it) => it.candidates.map((c) => [c.text, c.annotations.filter((a) => a.coherent).length] as const)));

/** Rewrite 1 (seed 0) is the one a judge follows; rewrite 2 (seed 1) says little; both carry a `{{` that must stay text. */
const REWRITES = ['SHARP INSTRUCTIONS: rate how coherent the {{response}} is.', 'Vague words.'];

describe('prompt search with proposer rewrites (loopback proposer and judge)', function () {
  this.timeout(120_000);
  let proposer: StubServer | undefined;
  let judge: StubServer | undefined;
  after(async () => {
    await proposer?.close();
    await judge?.close();
  });

  it('asks the proposer with the part text only, chooses the rewrite the judge follows on development items, embeds it literally, and caches it', async () => {
    proposer = await startStubOpenAI((req) => ({ reply: REWRITES[(req.body.seed as number) % 2] }));
    judge = await startStubOpenAI((req) => {
      const prompt = (req.body.messages as { content: string }[])[0].content;
      const response = [...prompt.matchAll(/Therapist: (resp-\d+-\d+)/g)].pop()?.[1] ?? '';
      const yes = yesOf.get(response) ?? 0;
      if (prompt.includes('SHARP INSTRUCTIONS')) return { reply: String(1 + yes) };
      return { reply: String(1 + (createHash('sha256').update(prompt.slice(0, 40) + response).digest()[0] % 5)) }; // unrelated to the labels
    });
    const dir = mkdtempSync(join(tmpdir(), 'proposer-'));
    const file = join(dir, 's.dialogues.jsonl');
    writeFileSync(file, makeItems().map((it) => JSON.stringify(it)).join('\n') + '\n');
    const plan: SearchPromptsPlan & { job: 'search-prompts' } = {
      job: 'search-prompts',
      ...validateSearchPromptsPlan(
        {
          judges: [{ backend: 'openai-chat', baseURL: judge.baseURL, model: 'stub-judge' }],
          parts: { optional: ['A'] },
          requests: ['rating'],
          split: { seed: 7 },
          bootstrap: { resamples: 100 },
          baselines: false,
          proposer: { baseURL: proposer.baseURL, model: 'stub-proposer', rewrites: 2 },
        },
        'search.json',
      ),
    };
    const first = await runPlanOnFile(plan, file, host(dir));
    const r = first.data as unknown as SearchResult;
    // The proposer got the part's text and nothing of the study.
    assert.equal(proposer.requests.length, 2);
    for (const q of proposer.requests) {
      const text = JSON.stringify(q.body.messages);
      assert.match(text, /Task overview: evaluate the quality of a Response Candidate/);
      assert.doesNotMatch(text, /resp-\d|Week \d|Expert/);
    }
    assert.deepEqual(proposer.requests.map((q) => q.body.seed), [0, 1]);
    assert.deepEqual(r.proposals?.map((p) => p.name), [rewritePartName('A-task-overview', 0, REWRITES[0]), rewritePartName('A-task-overview', 1, REWRITES[1])]);
    assert.ok(first.lines.some((l) => /proposer stub-proposer: 2 rewrite\(s\) of A-task-overview \(2 call\(s\), 0 from cache\)/.test(l)), first.lines.join('\n'));
    // Variants: D alone, A+D, and each rewrite in A's place.
    assert.deepEqual(r.entries.map((e) => e.body).sort(), ['parts-AD', 'parts-Ar1D', 'parts-Ar2D', 'parts-D']);
    const w = r.entries[r.winner];
    assert.equal(w.body, 'parts-Ar1D');
    assert.equal(w.dev!.rho, 1);
    assert.equal(w.heldOut!.rho, 1);
    // The rewrite's "{{response}}" reached the judge as text, not as a template tag.
    assert.ok(judge.requests.some((q) => JSON.stringify(q.body.messages).includes('SHARP INSTRUCTIONS: rate how coherent the {{response}} is.')));

    // Rerun: the rewrites come from the cache.
    const again = await runPlanOnFile(plan, file, host(dir));
    assert.equal(proposer.requests.length, 2, 'no new proposer call');
    assert.ok(again.lines.some((l) => /\(0 call\(s\), 2 from cache\)/.test(l)), again.lines.join('\n'));
    assert.equal((again.data as unknown as SearchResult).entries[(again.data as unknown as SearchResult).winner].body, 'parts-Ar1D');
  });

  it('names the field of a mistake in the proposer', () => {
    const base = { judges: [{ backend: 'openai-chat', baseURL: 'http://127.0.0.1:1/v1', model: 'j' }] };
    assert.throws(() => validateSearchPromptsPlan({ ...base, proposer: { baseURL: 'http://127.0.0.1:1/v1', model: 'p', rewrites: 40 } }, 'search.json'), (e: unknown) => e instanceof ConfigError && /search\.json.*proposer\.rewrites.*1 to 10/s.test((e as Error).message));
    assert.throws(() => validateSearchPromptsPlan({ ...base, proposer: { model: 'p', rewrites: 2 } }, 'search.json'), (e: unknown) => e instanceof ConfigError && /proposer\.baseURL/.test((e as Error).message));
    assert.throws(() => validateSearchPromptsPlan({ ...base, proposer: { baseURL: 'http://x/v1', model: 'p', rewrites: 2, prompt: 'x' } }, 'search.json'), (e: unknown) => e instanceof ConfigError && /proposer\.prompt.*unknown field/s.test((e as Error).message));
  });
});
