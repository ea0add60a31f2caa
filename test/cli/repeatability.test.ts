/**
 * Judge repeatability end to end: `judge --repeats K` against a loopback judge that answers at random with a known
 * spread, then `repeatability`: the reported alpha and flip rate must match the stub's parameters within their
 * intervals; re-running asks nothing again; the mean of K is an evaluator of its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { cliAsync } from '../helpers/cli';
import { startStubOpenAI, type StubServer } from '../helpers/stubOpenAI';

const N = 150; // candidates, one per item
const K = 8; // repeats
const Q = 0.3; // chance that a reply is off by one (either way) from the candidate's true rating

/** True rating of candidate i: 2, 3 or 4, so that ±1 stays on the 1–5 scale. */
const truth = (i: number) => 2 + (i % 3);

describe('reflect-eval judge --repeats and repeatability (stub judge with a known spread)', function () {
  this.timeout(300_000);
  let stub: StubServer | undefined;
  after(async () => stub?.close());

  it('alpha and flip rate cover the stub\'s values; a re-run asks nothing; the mean of K is stored', async () => {
    const rng = seedrandom('stub-noise');
    stub = await startStubOpenAI((req) => {
      const prompt = (req.body.messages as { content: string }[])[0].content;
      const i = Number(/candidate number (\d+)\./.exec(prompt)?.[1]);
      const u = rng();
      const reply = u < Q / 2 ? truth(i) - 1 : u < Q ? truth(i) + 1 : truth(i);
      return { reply: String(reply) };
    });
    const dir = mkdtempSync(join(tmpdir(), 'repeats-'));
    const file = join(dir, 'r.dialogues.jsonl');
    const lines = Array.from({ length: N }, (_, i) =>
      JSON.stringify({
        id: `it${i}`,
        context: [{ speaker: 'client', text: `I keep thinking about item ${i}.` }],
        candidates: [{ id: 'c', text: `This is candidate number ${i}.`, origin: { kind: 'model' }, annotations: [], scores: {} }],
      }),
    );
    writeFileSync(file, lines.join('\n') + '\n');
    const run = { judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'noisy', apiKeyEnv: 'K', temperature: 1 }], bodies: ['instructions'], requests: ['rating'], concurrency: 8 };
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    const first = await cliAsync(['judge', file, '--config', join(dir, 'run.json'), '--repeats', String(K)], { K: 'k' });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(stub.requests.length, N * K);
    const again = await cliAsync(['judge', file, '--config', join(dir, 'run.json'), '--repeats', String(K)], { K: 'k' });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(stub.requests.length, N * K, 'every reply is cached under its repeat');

    const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const ids = Object.keys(items[0].candidates[0].scores);
    assert.equal(ids.length, 2, ids.join(', '));
    const meanId = ids.find((id) => id.endsWith(`/mean-of-${K}`));
    const mainId = ids.find((id) => !id.endsWith(`/mean-of-${K}`))!;
    assert.ok(meanId, 'the mean of K is an evaluator');
    for (const it of items) {
      const s = it.candidates[0].scores[mainId];
      assert.equal(s.repeats.length, K);
      assert.equal(s.value, s.repeats[0].value, 'the score is reply 0');
      const mean = s.repeats.reduce((a: number, r: { value: number }) => a + r.value, 0) / K;
      assert.ok(Math.abs(it.candidates[0].scores[meanId!].value - mean) < 1e-12);
    }

    const rep = await cliAsync(['repeatability', file, '--threshold', '3', '--bootstrap', '500', '--json']);
    assert.equal(rep.code, 0, rep.stderr);
    const row = JSON.parse(rep.stdout).rows.find((r: { evaluatorId: string }) => r.evaluatorId === mainId);
    // Interval alpha with repeats as coders: 1 − within-candidate variance / total variance = 1 − Q / (2/3 + Q).
    const alpha = 1 - Q / (2 / 3 + Q);
    // Flip rate at "≥ 3": true 2 and 3 flip with p = Q/2 (2(p)(1−p)); true 4 never does.
    const flip = (2 / 3) * 2 * (Q / 2) * (1 - Q / 2);
    const within = (ci: { lower: number; upper: number }, v: number) => ci.lower <= v && v <= ci.upper;
    assert.ok(within(row.result.ci.alpha, alpha), `alpha ${row.result.alpha.alpha} [${row.result.ci.alpha.lower}, ${row.result.ci.alpha.upper}] vs ${alpha}`);
    assert.ok(within(row.result.ci.flipRate, flip), `flip rate ${row.result.flipRate} [${row.result.ci.flipRate.lower}, ${row.result.ci.flipRate.upper}] vs ${flip}`);
    // A judge whose replies never change would be far outside: the intervals are not just wide.
    assert.ok(row.result.ci.alpha.upper < 0.9 && row.result.ci.flipRate.lower > 0.05);
    console.log(`      alpha ${row.result.alpha.alpha.toFixed(3)} [${row.result.ci.alpha.lower.toFixed(3)}, ${row.result.ci.alpha.upper.toFixed(3)}] (stub: ${alpha.toFixed(3)}); flip rate ${row.result.flipRate.toFixed(3)} [${row.result.ci.flipRate.lower.toFixed(3)}, ${row.result.ci.flipRate.upper.toFixed(3)}] (stub: ${flip.toFixed(3)})`);
    const text = await cliAsync(["repeatability", file, "--threshold", "3"]);
    assert.match(text.stdout, /Judge repeatability/);
  });
});
