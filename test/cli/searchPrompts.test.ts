/**
 * `reflect-eval search-prompts` and `reflect-eval agreement --errors-vs` end to end through the CLI, against a
 * loopback stub judge.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliAsync as cli } from '../helpers/cli';
import { startStubOpenAI, type StubServer } from '../helpers/stubOpenAI';

function items(): string {
  const lines: string[] = [];
  for (let i = 0; i < 8; i++) {
    const candidates = [0, 1, 2].map((j) => {
      const yes = (i + j) % 4;
      return {
        id: `c${j}`,
        text: `resp-${i}-${j}`,
        origin: { kind: 'model' },
        annotations: [1, 2, 3].map((e) => (e <= yes ? { annotator: `Expert ${e}`, coherent: true } : { annotator: `Expert ${e}`, coherent: false, errors: [j === 0 ? 'malformed' : 'parroting'] })),
        scores: {},
      };
    });
    lines.push(JSON.stringify({ id: `item${i}`, context: [{ speaker: 'client', text: `context ${i}` }], candidates }));
  }
  return lines.join('\n') + '\n';
}

describe('reflect-eval search-prompts and agreement --errors-vs', function () {
  this.timeout(180_000);
  let stub: StubServer | undefined;
  after(async () => stub?.close());

  it('prints the estimate, chooses on development items, writes the leaderboard and the winner, leaves the file alone', async () => {
    stub = await startStubOpenAI((req) => {
      const prompt = (req.body.messages as { content: string }[])[0].content;
      const [, i, j] = [...prompt.matchAll(/Response Candidate\nTherapist: resp-(\d+)-(\d+)/g)].pop() ?? [];
      if (prompt.includes('Error categories')) return { reply: JSON.stringify({ categories: j === '0' ? ['Malformed'] : [], mostEvidentError: j === '0' ? 'Malformed' : null, rationale: `"resp-${i}-${j}"` }) };
      const yes = (Number(i) + Number(j)) % 4;
      return { reply: prompt.includes('Incoherence and Inconsistency') ? String(1 + yes) : String(1 + ((Number(i) * 5 + Number(j) * 3) % 5)) };
    });
    const dir = mkdtempSync(join(tmpdir(), 'search-cli-'));
    const file = join(dir, 'x.dialogues.jsonl');
    writeFileSync(file, items());
    const before = readFileSync(file, 'utf8');
    writeFileSync(join(dir, 'search.json'), JSON.stringify({ judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'stub-judge', apiKeyEnv: 'STUB_KEY' }], parts: { optional: ['A', 'B'] }, requests: ['rating'], baselines: false, bootstrap: { resamples: 100 } }));
    const dry = await cli(['search-prompts', file, '--config', join(dir, 'search.json'), '--dry-run'], { STUB_KEY: 'k' });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /split: 4 development items \(12 labelled candidates, 4 contexts\), 4 held-out items \(12 candidates, 4 contexts\)/);
    assert.match(dry.stdout, /60 judgements: \(4 variants \+ 0 baselines\) × 1 judge\(s\) × 12 development candidates \+ \(1 winner \+ 0 baselines × 1 judge\(s\)\) × 12 held-out candidates/);
    assert.equal(stub.requests.length, 0, 'a dry run makes no call');

    const run = await cli(['search-prompts', file, '--config', join(dir, 'search.json'), '--write-winner', join(dir, 'prompts')], { STUB_KEY: 'k' });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(stub.requests.length, 60);
    assert.match(run.stderr, /chosen on development items: openai-chat: stub-judge @ .* · parts-BD × rating/);
    assert.match(run.stderr, /held-out Spearman rho 1\.000 \[/);
    assert.ok(existsSync(join(dir, 'x.prompt-search.json')));
    assert.equal(readFileSync(join(dir, 'prompts/bodies/parts-BD.mustache'), 'utf8'), '{{> B-error-explanations}}\n\n{{> D-dialogue-and-response}}\n');
    assert.equal(readFileSync(file, 'utf8'), before, 'the dialogue file is not changed');

    writeFileSync(join(dir, 'err.json'), JSON.stringify({ judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'stub-judge', apiKeyEnv: 'STUB_KEY' }], bodies: ['instructions-error-explanations'], requests: ['error-categories'] }));
    const judged = await cli(['judge', file, '--config', join(dir, 'err.json')], { STUB_KEY: 'k' });
    assert.equal(judged.code, 0, judged.stderr);
    const agreement = await cli(['agreement', file, '--errors-vs', 'judge:api:stub-judge:instructions-error-explanations×error-categories', '--format', 'csv']);
    assert.equal(agreement.code, 0, agreement.stderr);
    // Malformed: the judge flags candidate 0 of all 8 items; the majority flags it where i mod 4 < 2 (4 items), nothing
    // else: TP 4, FP 4, FN 0, TN 16; p_o = 20/24, p_e = (4/24)(8/24) + (20/24)(16/24) = 11/18 → κ = 4/7; P 0.5, R 1, F1 2/3.
    assert.match(agreement.stdout, /,Malformed,24,4,8,4,0\.5714\d*,0\.5,1,0\.6666\d*\n/);
  });
});
