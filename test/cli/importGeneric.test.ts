import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const fixtures = join(root, 'test', 'core', 'datasets', 'fixtures');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval import generic', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-generic-'));

  it('imports a CSV of speaker/text rows with wide annotator columns through a mapping, and previews it', () => {
    const out = join(dir, 'pilot.dialogues.jsonl');
    const r = cli('import', 'generic', join(fixtures, 'turns-wide.csv'), '--mapping', join(fixtures, 'turns-wide.mapping.json'), '-o', out, '--preview', '1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /read 14 records of .*turns-wide\.csv \(8 turn rows, 6 response rows\): 3 contexts, 5 responses, 3 annotators \(1 experts, 2 laypeople\), 1 references/);
    assert.match(r.stderr, /turns-wide\.csv:10: row 9: repeats line 9 exactly/);
    assert.match(r.stdout, /^c1-5 {2}\(4 turns, 3 responses, 3 labelled, reference\)\n/);
    assert.match(r.stdout, /… and 2 more item\(s\)\n$/);
    const items = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(items.map((i: { id: string }) => i.id), ['c1-5', 'c2-3', 'c2']);
  });

  it('reads the EvalReflections release with the annotation-table preset; --guess prints a mapping', () => {
    const out = join(dir, 'er.dialogues.jsonl');
    const r = cli('import', 'generic', join(root, 'data', 'evalreflections', 'annotations-gpt2-stage.csv'), '--preset', 'annotation-table', '--reference', '-o', out);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /read 900 records of .*annotations-gpt2-stage\.csv: 15 contexts, 150 responses, 18 annotators \(9 experts, 9 laypeople\), 15 references/);
    const g = cli('import', 'generic', join(fixtures, 'turns-wide.csv'), '--guess');
    assert.equal(g.code, 0, g.stderr);
    assert.deepEqual(JSON.parse(g.stdout).labels, { layout: 'wide', coherent: ['rater_A', 'rater_B', 'Expert 1'] });
  });

  it('--guess on a JSON array prints only the mapping on stdout (notes on stderr), and the mapping imports unchanged with the study\'s rubric beside the output', () => {
    const g = cli('import', 'generic', join(fixtures, 'nested-ratings.json'), '--guess');
    assert.equal(g.code, 0, g.stderr);
    const mapping = JSON.parse(g.stdout);
    assert.equal(mapping.recordPath, 'responses');
    assert.match(g.stderr, /guess: "Overall": ordinal 1–5 \(observed 1, 2, 3, 4, 5\)/);
    assert.match(g.stderr, /guess: it reads 12 records: 3 contexts, 12 responses, 4 annotators, 3 references, 1 warning\(s\)/);
    const file = join(dir, 'guessed.mapping.json');
    writeFileSync(file, g.stdout);
    const out = join(dir, 'nested.dialogues.jsonl');
    const r = cli('import', 'generic', join(fixtures, 'nested-ratings.json'), '--mapping', file, '-o', out, '--preview', '1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /the study's rubric: 3 dimension\(s\) \(Understandable, Natural, Overall\), primary Overall\n/);
    assert.match(r.stderr, /wrote .*nested\.dialogues\.jsonl: 3 item\(s\) changed\nwrote .*nested\.rubric\.json\n/);
    assert.match(r.stdout, /\n {4}\[r1: Understandable yes, Natural 3, Overall 5; r2: /);
    const rubric = JSON.parse(readFileSync(join(dir, 'nested.rubric.json'), 'utf8'));
    assert.deepEqual(rubric.dimensions.map((d: { name: string }) => d.name), ['Understandable', 'Natural', 'Overall']);
    // the same output path for an MI-preset import would silently pick that rubric up: refused
    const mi = cli('import', 'generic', join(fixtures, 'turns-wide.csv'), '--mapping', join(fixtures, 'turns-wide.mapping.json'), '-o', out, '--force');
    assert.equal(mi.code, 1);
    assert.match(mi.stderr, /nested\.rubric\.json lies beside the output: the study would use that rubric, but this import is in the MI preset/);
    assert.ok(existsSync(out));
  });

  it('stops on a bad mapping or bad rows, naming the file, line and column, and writes nothing', () => {
    const mapping = join(dir, 'bad.mapping.json');
    writeFileSync(mapping, JSON.stringify({ context: { layout: 'rows', dialogue: 'conv_id', speaker: 'role', text: 'utterance' }, response: { text: 'candidate', source: 'sytem' } }));
    const r = cli('import', 'generic', join(fixtures, 'turns-wide.csv'), '--mapping', mapping, '-o', join(dir, 'x.jsonl'));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.mapping\.json: response\.source: column "sytem" is not in the file \(its columns: conv_id, turn_no, role/);
    const rows = cli('import', 'generic', join(fixtures, 'turns-wide.csv'), '--mapping', '{"context": {"layout": "rows", "dialogue": "conv_id", "speaker": "role", "text": "utterance", "order": "turn_no"}, "response": {"text": "candidate", "source": "system"}, "labels": {"layout": "wide", "coherent": ["rater_A"]}, "coherentValues": {"yes": ["yes"], "no": ["no"]}}', '--preview');
    assert.equal(rows.code, 1);
    assert.match(rows.stderr, /2 problems in turns-wide\.csv:\nturns-wide\.csv:15: row 14, column "rater_A": "1" is not one of the coherence values of the mapping \(yes: "yes"; no: "no"\)/);
  });
});
