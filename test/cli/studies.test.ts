/**
 * `reflect-eval studies`: the studies of a folder as the side bar lists them — after the CLI made them, with the
 * runs and the report under their study.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliAsync, repoRoot } from '../helpers/cli';

describe('reflect-eval studies', function () {
  this.timeout(180_000);

  it('lists each study with its progress, generation and judge runs and report; --json is the index', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'studies-cli-'));
    mkdirSync(join(dir, 'runs'));
    const file = join(dir, 'runs', 'demo.dialogues.jsonl');
    const steps: string[][] = [
      ['import', 'annomi', join(repoRoot, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '-o', file],
      ['generate', file, '--max-new-tokens', '4'],
      ['judge', file, '--config', JSON.stringify({ judges: [{ backend: 'local' }], bodies: ['instructions'], requests: ['rating'] })],
      ['report', file, '--bootstrap', '0'],
    ];
    for (const args of steps) {
      const r = await cliAsync(args);
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    }
    const text = await cliAsync(['studies', dir, '--annotator', 'me']);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trim().split('\n');
    assert.equal(lines[0], 'runs/demo.dialogues.jsonl: 0/4 labelled by you');
    assert.match(text.stdout, /\n {2}generation: greedy · local: bundled:reflect-gpt2-tiny · 2\/2 contexts, 2 new · \d{4}-\d\d-\d\d \d\d:\d\d\n/);
    assert.match(text.stdout, /\n {2}judge run: local:bundled:reflect-gpt2-tiny · 1 variant · 4 judgements, 4 calls, 0 cached · no price set · .* \(runs\/demo\.judge-manifest\.json\)\n/);
    assert.match(text.stdout, /\n {2}report: runs\/demo\.report\.md\n/);
    const json = await cliAsync(['studies', dir, '--json']);
    const index = JSON.parse(json.stdout) as { studies: { path: string; mine: number | null; content: { candidates: number } }[] };
    assert.deepEqual(index.studies.map((s) => [s.path, s.mine, s.content.candidates]), [['runs/demo.dialogues.jsonl', null, 4]]);
    const none = await cliAsync(['studies', join(dir, 'nowhere')]);
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /nowhere: no such folder/);
  });
});
