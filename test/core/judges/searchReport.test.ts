/**
 * Reading a prompt search report back for the leaderboard: rows in the order the panel shows them, the exact prompt
 * of a synthesized (few-shot) variant rebuilt from the report equals the prompt the judge was sent, and a broken
 * report is refused naming the file and the field.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import type { JobHost } from '../../../src/core/jobs/host';
import { leaderboardRows, parseSearchReport, readSearchReport, searchReportFile, searchVariantLibrary } from '../../../src/core/judges/searchReport';
import { assemblePrompt, loadPromptLibrary } from '../../../src/core/templates/judgePrompt';
import { startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';
import { testJobHost } from '../../helpers/jobHost';
import { labelledItems } from '../../helpers/labelledItems';

const root = resolve(__dirname, '../../..');

function host(baseDir: string): JobHost {
  return testJobHost(baseDir);
}

/** 8 contexts × 4 candidates with 0–3 of 3 experts saying coherent. */
function items(): DialogueItem[] {
  return labelledItems({ contexts: 8, candidates: 4, yes: (i, j) => (i + j * 3) % 4, context: (i) => [{ speaker: 'client', text: `Day ${i} was long.` }], text: (i, j, yes) => `resp-${i}-${j}-${yes}` });
}

describe('prompt search leaderboard', function () {
  this.timeout(120_000);
  let stub: StubServer | undefined;
  after(async () => stub?.close());

  it('rows: the chosen variant first, then by development rho, then the baselines; a few-shot prompt is rebuilt exactly', async () => {
    // Follows the experts only when Part B is in the prompt; otherwise a constant-ish guess.
    stub = await startStubOpenAI((req) => {
      const p = (req.body.messages as { content: string }[])[0].content;
      const yes = Number([...p.matchAll(/Therapist: resp-\d+-\d+-(\d)/g)].pop()?.[1] ?? 0);
      return { reply: String(p.includes('Incoherence and Inconsistency') ? 1 + yes : 1 + ((yes * 5 + p.length) % 3)) };
    });
    const dir = mkdtempSync(join(tmpdir(), 'leaderboard-'));
    const file = join(dir, 'l.dialogues.jsonl');
    writeFileSync(file, items().map((it) => JSON.stringify(it)).join('\n') + '\n');
    await runPlanOnFile(
      { job: 'search-prompts', judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'stub' }], parts: { optional: ['B'] }, requests: ['rating'], fewShot: { counts: [0, 1] }, split: { seed: 3 }, bootstrap: { resamples: 50 } },
      file,
      host(dir),
    );
    const report = readSearchReport(searchReportFile(file));
    const rows = leaderboardRows(report);
    assert.equal(rows[0].index, report.winner);
    assert.ok(rows[0].chosen && !rows[0].baseline);
    assert.match(rows[0].body, /^parts-BD/);
    assert.ok(rows[0].heldOut && rows[0].heldOut.rho !== null && rows[0].heldOut.ci);
    assert.equal(rows[0].gap, rows[0].dev!.rho! - rows[0].heldOut!.rho!);
    const search = rows.filter((r) => !r.baseline);
    for (let i = 2; i < search.length; i++) assert.ok((search[i - 1].dev?.rho ?? -Infinity) >= (search[i].dev?.rho ?? -Infinity));
    assert.deepEqual(rows.filter((r) => r.baseline).map((r) => `${r.body}×${r.request}`).slice(0, 2), ['instructions×rating', 'instructions×scoring']);
    assert.ok(rows.every((r) => r.calls !== null && r.calls + (r.cacheHits ?? 0) > 0));
    assert.equal(rows.reduce((n, r) => n + (r.calls ?? 0), 0), report.calls);

    // A few-shot body exists only in the report: rebuilt, it gives the very prompt the judge got.
    const fs1 = report.entries.find((e) => e.fewShot === 1 && e.parts?.some((p) => p.startsWith('B-')))!;
    assert.ok(report.templates?.[fs1.body], 'the report carries the synthesized templates');
    const { lib, hashMatches } = searchVariantLibrary(loadPromptLibrary(join(root, 'prompts')), report, fs1);
    assert.ok(hashMatches);
    const it = items().find((x) => report.split.devItems.includes(x.id))!;
    const prompt = assemblePrompt(lib, fs1, it.context, it.candidates[0].text).text;
    assert.ok(stub.requests.some((q) => (q.body.messages as { content: string }[])[0].content === prompt));
    // Another part text since the search: the hash says so.
    const changed = loadPromptLibrary(join(root, 'prompts'));
    const b = Object.keys(changed.parts).find((p) => p.startsWith('B-'))!;
    changed.parts[b] = { ...changed.parts[b], source: changed.parts[b].source + 'edited\n' };
    assert.equal(searchVariantLibrary(changed, report, fs1).hashMatches, false);
  });

  it('refuses a broken report naming the file and the field', () => {
    assert.throws(() => parseSearchReport('{', 'x.prompt-search.json'), /x\.prompt-search\.json: not JSON/);
    assert.throws(() => parseSearchReport('{"entries": [{"judge": "j"}], "winner": 0, "split": {}}', 'x.prompt-search.json'), /x\.prompt-search\.json: entries\[0\]\.body: must be a string/);
    assert.throws(() => readSearchReport('/nonexistent/y.prompt-search.json'), /y\.prompt-search\.json: no prompt search report/);
    assert.equal(searchReportFile('/a/b.dialogues.jsonl'), '/a/b.prompt-search.json');
  });
});
