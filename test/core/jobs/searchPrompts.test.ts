/**
 * The prompt search against a loopback stub judge whose answers follow the expert labels only when the prompt has
 * Part B (the error explanations): the search must choose a Part-B body on development items; changing the
 * held-out items' labels must change the reported held-out rho but not the choice. Plus the split (no context on
 * both sides, seeded), few-shot examples from development items only, the budget and resuming from the cache.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import type { JobHost } from '../../../src/core/jobs/host';
import { buildSearchSpace, validateSearchPromptsPlan, type SearchPromptsPlan } from '../../../src/core/jobs/searchPrompts';
import type { SearchResult } from '../../../src/core/judges/searchReport';
import { contextKey, pickFewShot, splitByContext } from '../../../src/core/judges/promptSearch';
import { startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';
import { testJobHost } from '../../helpers/jobHost';
import { labelledItems } from '../../helpers/labelledItems';

const root = resolve(__dirname, '../../..');

function host(baseDir: string, log: string[] = []): JobHost {
  return testJobHost(baseDir, { log: (m) => log.push(m) });
}

/** 12 contexts × 5 candidates; candidate j of item i has (7i + 3j) mod 4 of 3 experts saying coherent (0–3). */
function makeItems(): DialogueItem[] {
  return labelledItems({ contexts: 12, candidates: 5, yes: (i, j) => (i * 7 + j * 3) % 4 });
}

/** The stub's knowledge: each response's expert yes count at the start (the judge does not see later edits). */
const truth = new Map(makeItems().flatMap((it) => it.candidates.map((c) => [c.text, c.annotations.filter((a) => a.coherent).length] as const)));
const noise = (text: string, salt: string) => createHash('sha256').update(salt + text).digest()[0] % 5;

function answer(prompt: string): string {
  const last = [...prompt.matchAll(/Response Candidate\nTherapist: (resp-\d+-\d+)/g)].pop()?.[1] ?? '';
  const yes = truth.get(last) ?? 0;
  if (prompt.includes('Incoherence and Inconsistency')) return String(1 + yes); // Part B: follows the experts
  if (prompt.includes('Task overview')) return String(1 + ((yes + noise(last, 'a')) % 4)); // Part A alone: weak
  return String(1 + noise(last, 'n')); // neither: noise
}

function writeItems(file: string, items: DialogueItem[]): void {
  writeFileSync(file, items.map((it) => JSON.stringify(it)).join('\n') + '\n');
}

describe('prompt search', function () {
  this.timeout(120_000);
  let stub: StubServer | undefined;
  after(async () => stub?.close());

  it('chooses the Part-B body on development items; changing held-out labels changes the held-out rho, not the choice', async () => {
    stub = await startStubOpenAI((req) => ({ reply: answer((req.body.messages as { content: string }[])[0].content) }));
    const dir = mkdtempSync(join(tmpdir(), 'search-'));
    const file = join(dir, 's.dialogues.jsonl');
    writeItems(file, makeItems());
    const plan: SearchPromptsPlan & { job: 'search-prompts' } = {
      job: 'search-prompts',
      judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'stub-judge' }],
      parts: { optional: ['A', 'B'] },
      requests: ['rating'],
      split: { seed: 7 },
      bootstrap: { resamples: 200 },
    };
    const log: string[] = [];
    const first = await runPlanOnFile(plan, file, host(dir, log));
    const r1 = first.data as unknown as SearchResult;
    const w1 = r1.entries[r1.winner];
    assert.equal(w1.body, 'parts-BD', first.lines.join('\n'));
    assert.equal(w1.dev!.rho, 1);
    // The estimate came before any call: (4 variants + the paper's 6) × 30 development + (winner + 6) × 30 held-out.
    assert.match(log[0], /prompt search: 6 development items \(30 candidates, 6 contexts\), 6 held-out \(30 candidates, 6 contexts\); 4 variants \+ 6 baselines × 1 judge\(s\); 510 judgements/);
    const dev = new Set(r1.split.devItems);
    const heldOutPrompts = stub.requests.filter((q) => {
      const m = /Therapist: resp-(\d+)-/.exec([...(q.body.messages as { content: string }[])[0].content.matchAll(/Response Candidate\nTherapist: resp-\d+-\d+/g)].pop()![0]);
      return !dev.has(`item${m![1]}`);
    });
    // Held-out items were judged only by the winner and the 6 baselines, never by the other variants.
    assert.equal(heldOutPrompts.length, 30 * 7);
    assert.equal(w1.heldOut!.rho, 1);
    assert.ok(w1.heldOut!.ci && w1.heldOut!.ci.lower !== null);
    assert.equal(r1.optimismGap, 0);
    const calls = stub.requests.length;
    assert.ok(existsSync(join(dir, 's.prompt-search.json')));

    // Flip the held-out items' labels: every expert now says the opposite.
    const items: DialogueItem[] = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const it of items) if (!dev.has(it.id)) for (const c of it.candidates) for (const a of c.annotations) a.coherent = !a.coherent;
    writeItems(file, items);
    const second = await runPlanOnFile(plan, file, host(dir));
    const r2 = second.data as unknown as SearchResult;
    const w2 = r2.entries[r2.winner];
    assert.equal(stub.requests.length, calls, 'everything came from the cache');
    assert.equal(r2.calls, 0);
    assert.deepEqual(r2.split, r1.split);
    assert.equal(w2.body, w1.body, 'same choice');
    assert.equal(w2.dev!.rho, w1.dev!.rho);
    assert.equal(w2.heldOut!.rho, -1, 'the held-out number follows the held-out labels');
    assert.equal(r2.optimismGap, 2);
  });

  it('k-fold cross-fitting: each fold chooses the Part-B body without its own items; flipping a fold\'s labels changes its held-out rho, not its choice', async () => {
    const s = stub ?? (stub = await startStubOpenAI((req) => ({ reply: answer((req.body.messages as { content: string }[])[0].content) })));
    const dir = mkdtempSync(join(tmpdir(), 'search-kfold-'));
    const file = join(dir, 's.dialogues.jsonl');
    writeItems(file, makeItems());
    const plan: SearchPromptsPlan & { job: 'search-prompts' } = {
      job: 'search-prompts',
      judges: [{ backend: 'openai-chat', baseURL: s.baseURL, model: 'stub-judge' }],
      parts: { optional: ['A', 'B'] },
      requests: ['rating'],
      split: { kind: 'kfold', k: 3, seed: 7 },
      bootstrap: { resamples: 200 },
    };
    const before = s.requests.length;
    const first = await runPlanOnFile(plan, file, host(dir));
    const r1 = first.data as unknown as SearchResult;
    assert.equal(r1.folds!.length, 3);
    // The folds' held-out parts partition the items, 4 contexts each.
    const held = r1.folds!.flatMap((f) => f.testItems);
    assert.deepEqual([...held].sort(), makeItems().map((it) => it.id).sort());
    assert.ok(r1.folds!.every((f) => f.testGroups === 4 && f.devGroups === 8));
    for (const f of r1.folds!) assert.equal(r1.entries[f.winner].body, 'parts-BD', first.lines.join('\n'));
    assert.equal(r1.entries[r1.winner].body, 'parts-BD', 'every fold chose the same variant');
    assert.equal(r1.crossFit!.rho, 1);
    assert.equal(r1.crossFit!.n, 60);
    assert.ok(r1.crossFit!.ci && r1.crossFit!.ci.lower !== null);
    // A prompt asked in several folds reaches the backend once: (4 variants + 6 baselines) × 60 candidates, less the
    // 2 × 60 prompts two paper variants share with search variants (the holdout test above sees the same overlap).
    const asked = s.requests.slice(before).map((q) => (q.body.messages as { content: string }[])[0].content);
    assert.equal(new Set(asked).size, asked.length);
    assert.equal(asked.length, 8 * 60);
    assert.match(first.lines[0], /^cross-fitted over 3 folds .*held-out Spearman rho 1\.000/);

    // Flip fold 1's held-out labels: fold 1 chose without them, so its choice stays; its held-out rho follows the labels.
    const fold1 = new Set(r1.folds![0].testItems);
    const items: DialogueItem[] = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const it of items) if (fold1.has(it.id)) for (const c of it.candidates) for (const a of c.annotations) a.coherent = !a.coherent;
    writeItems(file, items);
    const second = await runPlanOnFile(plan, file, host(dir));
    const r2 = second.data as unknown as SearchResult;
    assert.equal(r2.calls, 0, 'everything came from the cache');
    assert.deepEqual(r2.folds![0].testItems, r1.folds![0].testItems);
    assert.equal(r2.entries[r2.folds![0].winner].body, 'parts-BD', 'same choice in fold 1');
    assert.deepEqual(r2.folds![0].dev, r1.folds![0].dev, 'fold 1 development numbers do not see fold 1 labels');
    assert.equal(r2.folds![0].heldOut!.rho, -1);
    assert.notEqual(r2.crossFit!.rho, r1.crossFit!.rho);
  });

  it('checks the k-fold fields of a plan', () => {
    assert.throws(() => validateSearchPromptsPlan({ judges: [{ backend: 'local' }], split: { kind: 'kfold', devFraction: 0.5 } }, 'search.json'), /search\.json: split\.devFraction: is for a holdout split/);
    assert.throws(() => validateSearchPromptsPlan({ judges: [{ backend: 'local' }], split: { k: 5 } }, 'search.json'), /search\.json: split\.k: is for a k-fold split/);
    assert.throws(() => validateSearchPromptsPlan({ judges: [{ backend: 'local' }], split: { kind: 'kfold', k: 1 } }, 'search.json'), /split\.k: must be an integer from 2 to 20/);
    assert.throws(() => buildSearchSpace({ judges: [{ backend: 'local' }], split: { kind: 'kfold', k: 13 } }, makeItems(), [join(root, 'prompts')]), /13 folds need at least 13 dialogue contexts; the items have 12/);
    const space = buildSearchSpace({ judges: [{ backend: 'local' }], split: { kind: 'kfold', k: 4, seed: 2 } }, makeItems(), [join(root, 'prompts')], 2);
    assert.equal(space.folds, 4);
    assert.equal(space.test.length, 3);
    assert.ok(space.test.every((it) => !space.dev.some((d) => contextKey(d) === contextKey(it))));
  });

  it('splits by context: no context on both sides, the same seed gives the same split, another seed another', () => {
    const items = makeItems();
    // Two more items that share item0's and item1's contexts.
    const twins = [0, 1].map((i) => ({ ...items[i], id: `twin${i}` }));
    const all = [...items, ...twins];
    for (const seed of [0, 1, 'x', 42]) {
      const s = splitByContext(all, { seed });
      assert.equal(s.dev.size + s.test.size, all.length);
      const devContexts = new Set(all.filter((it) => s.dev.has(it.id)).map(contextKey));
      const testContexts = new Set(all.filter((it) => s.test.has(it.id)).map(contextKey));
      assert.ok([...devContexts].every((k) => !testContexts.has(k)), `seed ${seed}: a context on both sides`);
      assert.equal(s.dev.has('twin0'), s.dev.has('item0'));
      assert.equal(s.dev.has('twin1'), s.dev.has('item1'));
      assert.equal(s.devGroups + s.testGroups, 12);
      assert.deepEqual([...splitByContext([...all].reverse(), { seed }).dev].sort(), [...s.dev].sort(), 'order of items does not matter');
    }
    const splits = [0, 1, 2, 3].map((seed) => [...splitByContext(all, { seed }).dev].sort().join());
    assert.ok(new Set(splits).size > 1, 'different seeds give different splits');
    assert.equal(splitByContext(all, { seed: 3, devFraction: 0.25 }).devGroups, 3);
    const byTranscript = items.map((it, i) => ({ ...it, provenance: { dataset: 'x', transcriptId: String(i % 3) } }));
    const t = splitByContext(byTranscript, { groupBy: 'transcript', seed: 1 });
    assert.equal(t.devGroups + t.testGroups, 3);
    assert.throws(() => splitByContext([items[0], twins[0]]), /at least 2 dialogue contexts; the items have 1/);
  });

  it('draws few-shot examples from development items only, with answers on the request scale', () => {
    const items = makeItems();
    const plan = validateSearchPromptsPlan({ judges: [{ backend: 'local' }], parts: { optional: ['A'] }, requests: ['rating', 'binary'], fewShot: { counts: [0, 3], selection: 'random' }, split: { seed: 5 } }, 'search.json');
    const space = buildSearchSpace(plan, items, [join(root, 'prompts')]);
    const withExamples = space.variants.filter((v) => v.examples);
    assert.equal(space.variants.length, 2 * 2 + 2 * 2);
    assert.equal(withExamples.length, 4);
    for (const v of withExamples) {
      assert.equal(v.examples!.length, 3);
      for (const e of v.examples!) assert.ok(space.split.dev.has(e.itemId), `${e.itemId} is held-out`);
      const text = space.lib.bodies[v.body].source;
      assert.match(text, /^(\{\{> A-task-overview\}\}\n\n)?\{\{> examples-[0-9a-f]{8}\}\}\n\n\{\{> D-dialogue-and-response\}\}\n$/);
    }
    const ex = space.lib.parts[/examples-[0-9a-f]{8}/.exec(space.lib.bodies['parts-AD-fs3-binary'].source)![0]].source;
    assert.match(ex, /Answer \(Yes\/No\): (Yes|No)\n/);
    const pool = [0, 0.2, 0.4, 0.6, 0.8, 1].map((h, i) => ({ itemId: `i${i}`, candidateId: 'c', human: h }));
    assert.deepEqual(pickFewShot(pool, 3, 'spread', 0).map((e) => e.human), [0, 0.6, 1]);
    assert.deepEqual(pickFewShot(pool, 2, 'random', 9), pickFewShot(pool, 2, 'random', 9));
  });

  it('stays within the budget: held-out calls are reserved, variants past it are skipped and reported', async () => {
    const s = stub ?? (stub = await startStubOpenAI((req) => ({ reply: answer((req.body.messages as { content: string }[])[0].content) })));
    const dir = mkdtempSync(join(tmpdir(), 'search-budget-'));
    const file = join(dir, 's.dialogues.jsonl');
    writeItems(file, makeItems());
    const before = s.requests.length;
    // 30 held-out calls reserved for the winner (no baselines), room for 2 of the 4 variants on 30 development candidates.
    const report = await runPlanOnFile(
      { job: 'search-prompts', judges: [{ backend: 'openai-chat', baseURL: s.baseURL, model: 'stub-judge' }], parts: { optional: ['A', 'B'] }, requests: ['rating'], split: { seed: 7 }, baselines: false, budget: 90, cache: false, bootstrap: { resamples: 50 } },
      file,
      host(dir),
    );
    const r = report.data as unknown as SearchResult;
    assert.equal(s.requests.length - before, 90);
    assert.deepEqual(r.entries.map((e) => e.body + (e.skipped ? ' skipped' : '')), ['parts-D', 'parts-AD', 'parts-BD skipped', 'parts-ABD skipped']);
    assert.equal(r.entries[r.winner].body, 'parts-AD');
    assert.match(r.entries[2].skipped!, /^budget: 30 uncached calls would pass 90 \(60 spent, 30 reserved for held-out\)/);
  });

  it('names the file and field of a mistake in the plan', () => {
    assert.throws(() => validateSearchPromptsPlan({ judges: [{ backend: 'local' }], split: { devFraction: 1 } }, 'search.json'), /search\.json: split\.devFraction: must be a number in \(0, 1\)/);
    assert.throws(() => validateSearchPromptsPlan({ judges: [{ backend: 'local', apiKey: 'x' }] }, 'search.json'), /search\.json: judges\[0\]\.apiKey/);
    assert.throws(() => validateSearchPromptsPlan({ judges: [{ backend: 'local' }], fewShot: { counts: [-1] } }, 'search.json'), /search\.json: fewShot\.counts/);
    assert.throws(() => buildSearchSpace({ judges: [{ backend: 'local' }], parts: { optional: ['Z'] } }, makeItems(), [join(root, 'prompts')]), /parts\.optional: no task-body part "Z"/);
  });
});
