import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval report', () => {
  it('writes the Markdown report of the EvalReflections GPT-2 stage (laypeople–experts 0.704 in the GPT-2 column) and prints the table, leaving the file alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-report-'));
    const file = join(dir, 'er.dialogues.jsonl');
    const imported = cli('import', 'annotations', join(root, 'data', 'evalreflections', 'annotations-gpt2-stage.csv'), '--reference', '-o', file);
    assert.equal(imported.code, 0, imported.stderr);
    const before = readFileSync(file);
    const r = cli('report', file, '--bootstrap', '0');
    assert.equal(r.code, 0, r.stderr);
    const md = readFileSync(join(dir, 'er.report.md'), 'utf8');
    assert.match(md, /^# ReflectEval report: er\.dialogues\.jsonl/);
    assert.match(md, /\| Evaluator \| BART \| GPT-2 \| Human \| All \|/);
    assert.match(md, /\| Laypeople–experts \(human reference\) \| [^|]+ \| \*0\.704\* \(n = 107\) \|/);
    assert.match(md, /## Inter-annotator agreement by stage/);
    assert.match(md, /!\[Forest plot: [^\]]+\]\(er\.report\.forest-plot\.svg\)/);
    const svg = readFileSync(join(dir, 'er.report.forest-plot.svg'), 'utf8');
    assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(svg, /GPT-2/);
    assert.match(r.stderr, /wrote .*er\.report\.forest-plot\.svg\n/);
    // The cell's p is the cluster-jackknife test over the 15 contexts since issue 40 (scipy's, 2.61e-17, treats the
    // 107 responses as independent; `correlate --p-value independent` prints it).
    assert.match(r.stdout, /Laypeople–experts \(human reference\) .* 0\.704\* +1\.74e-10 +107 \(0\)/);
    assert.match(r.stderr, /wrote .*er\.report\.md\n/);
    assert.doesNotMatch(r.stderr, /item\(s\) changed/);
    assert.deepEqual(readFileSync(file), before, 'a report never rewrites the dialogue file');
    const bad = cli('report', file, '-o', join(dir, 'report.txt'));
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /flags: out: must name a Markdown file/);
    assert.ok(!existsSync(join(dir, 'report.txt')));
  });
});
