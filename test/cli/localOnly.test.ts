/**
 * Private by construction: a study run with only local generators and judges makes no network request. The CLI runs
 * in child processes where every outgoing connection is refused and every DNS lookup fails
 * (test/helpers/refuseNetwork.cjs), and each attempt is logged: import, generation with local models (a chat model
 * and the bundled GPT-2), a judge matrix with local judges (a chat judge and the bundled one), perplexity, and the
 * agreement report must all succeed with nothing in the log. A control run of an API judge shows the guard works.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliAsync } from '../helpers/cli';

const root = resolve(__dirname, '../..');

describe('a local-only run makes no network request (every outgoing connection refused)', function () {
  this.timeout(600_000);
  const dir = mkdtempSync(join(tmpdir(), 'local-only-'));
  const log = join(dir, 'network.log');
  const env = { NODE_OPTIONS: `--require ${join(root, 'test/helpers/refuseNetwork.cjs')}`, REFLECT_EVAL_NETWORK_LOG: log, HF_HUB_OFFLINE: '', REFLECT_EVAL_API_KEY: '' };
  // Connections and DNS lookups (a local IPC socket is logged as "ipc" and is not the network).
  const attempts = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter((l) => l && JSON.parse(l).kind !== 'ipc') : []);
  const file = join(dir, 'study.dialogues.jsonl');

  it('imports, generates with local models, judges with local judges and computes perplexity without one connection', async () => {
    const steps: string[][] = [['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '--seed', '3', '-o', file]];
    const gen = join(dir, 'gen.json');
    writeFileSync(gen, JSON.stringify({ generators: [{ backend: 'local', model: 'bundled:reflect-qwen3-tiny' }, { backend: 'local' }], settings: [{ strategy: 'greedy' }, { strategy: 'nucleusSampling', topP: 0.9, numReturnSequences: 2 }], maxNewTokens: 6, seed: 1 }));
    steps.push(['generate', file, '--config', gen]);
    const judge = join(dir, 'judge.json');
    writeFileSync(judge, JSON.stringify({ judges: [{ backend: 'local', model: 'bundled:reflect-qwen3-tiny' }, { backend: 'local' }], bodies: ['instructions'], requests: ['rating', 'binary', 'error-categories'] }));
    steps.push(['judge', file, '--config', judge]);
    steps.push(['perplexity', file, '--model', 'bundled:reflect-qwen3-tiny', 'bundled:reflect-gpt2-tiny']);
    for (const args of steps) {
      const r = await cliAsync(args, env);
      assert.equal(r.code, 0, `${args[0]}: ${r.stderr}`);
      assert.deepEqual(attempts(), [], `${args[0]} tried to connect`);
    }
    const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { candidates: { origin: { model?: string; decoding?: { promptFormat?: string } }; scores: Record<string, { status: string }> }[] });
    const chatCandidates = items.flatMap((i) => i.candidates).filter((c) => c.origin.model === 'bundled:reflect-qwen3-tiny');
    assert.ok(chatCandidates.length > 0 && chatCandidates.every((c) => /^chat-template@[0-9a-f]{12}\+model-chat@[0-9a-f]{12}$/.test(String(c.origin.decoding?.promptFormat))));
    const scores = items.flatMap((i) => i.candidates).flatMap((c) => Object.entries(c.scores));
    assert.ok(scores.some(([id, s]) => id.startsWith('judge:local:bundled:reflect-qwen3-tiny:instructions×error-categories') && s.status === 'ok'));
  });

  it('the guard refuses a connection and logs it (control: an API judge)', async () => {
    const r = await cliAsync(['judge', file, '--backend', 'openai', '--model', 'm', '--base-url', 'http://127.0.0.1:18080/v1', '--no-cache'], { ...env, REFLECT_EVAL_API_KEY: 'k' });
    assert.ok(attempts().length > 0, `no attempt logged (exit ${r.code}): ${r.stderr.slice(-400)}`);
  });
});
