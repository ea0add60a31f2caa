/**
 * `npm run bench -- studies [--studies N (50)] [--rounds R (5)]`: the side bar's refresh time (src/core/workspace
 * `WorkspaceScanner.scan`, what the Studies view runs on each file change) on a workspace of N studies, each the size
 * of the demo study (15 contexts × 11 responses, 6 annotators' labels and 7 scores on each: ≈ 0.5 MB) with a judge
 * manifest, a generation manifest and a report beside it, in subfolders among other files.
 *
 * Three refreshes: cold (a new scanner: every file read, as when the window opens), after one study changed (the
 * usual refresh: the listing, one file read), and with nothing changed. The reference in the same run is
 * JSON.parse of every study's lines, the least any reading of the files costs.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkspaceScanner } from '../src/core/workspace/scan';
import { strArg } from './args';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const words = 'you feel that drinking has become a way of coping with the stress at work and at home but part of you wants to change'.split(' ');
const sentence = (n: number, k: number) => Array.from({ length: n }, (_, i) => words[(i * 7 + k) % words.length]).join(' ') + '.';

/** One study file the size of the demo study. */
function studyText(seed: number): string {
  const lines: string[] = [];
  for (let i = 0; i < 15; i++) {
    const candidates = Array.from({ length: 11 }, (_, c) => ({
      id: `c${c}`,
      text: sentence(18 + (c % 7), i + c + seed),
      origin: c === 0 ? { kind: 'human', source: 'Human' } : { kind: 'model', model: 'bundled:reflect-gpt2-tiny', createdAt: '2026-01-01T00:00:00Z', decoding: { strategy: c % 2 ? 'greedy' : 'nucleusSampling', topP: 0.8, seed: c, sampleIndex: c, maxNewTokens: 48, behaviour: 'reflection', maxContextTokens: 384 } },
      annotations: ['Expert 1', 'Expert 2', 'Expert 3', 'Layperson 1', 'Layperson 2', 'Layperson 3'].map((a, k) => ((i + c + k) % 3 ? { annotator: a, coherent: true, empathy: ((i + k) % 5) + 1, updatedAt: '2026-01-01T00:00:00Z' } : { annotator: a, coherent: false, errors: ['parroting', 'offTopic'], mostEvidentError: 'parroting', updatedAt: '2026-01-01T00:00:00Z' })),
      scores: Object.fromEntries(
        ['metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0', 'metric:rougeL.f@impl:rouge-score-0.1.2|tok:default|stem:none|rv:0.1.0', 'metric:rougeL.precision@impl:rouge-score-0.1.2|tok:default|stem:none|rv:0.1.0', 'metric:rougeL.recall@impl:rouge-score-0.1.2|tok:default|stem:none|rv:0.1.0', 'metric:meteor.score@impl:nltk-3.8|mode:tokens|rv:0.1.0', 'judge:local:bundled:reflect-gpt2-tiny:instructions×rating@61b35994153b~d334babf', 'judge:local:bundled:reflect-gpt2-tiny:instructions-error-explanations×rating@879c3727f583~d334babf'].map((id, k) => [
          id,
          { value: ((i * 11 + c * 3 + k) % 100) / 100, status: 'ok', signature: id.split('@')[1], ...(id.startsWith('judge') ? { raw: '4', expected: 3.71, at: '2026-01-01T00:00:00Z' } : {}) },
        ]),
      ),
    }));
    lines.push(JSON.stringify({ id: `s${seed}-i${i}`, context: Array.from({ length: 12 }, (_, t) => ({ speaker: t % 2 ? 'client' : 'therapist', text: sentence(20 + (t % 9), t + i), utteranceId: String(t) })), reference: { text: sentence(20, i), behaviour: 'reflection' }, provenance: { dataset: 'AnnoMI', transcriptId: String(i), miQuality: 'high' }, candidates }));
  }
  return lines.join('\n') + '\n';
}

function makeWorkspace(n: number): string {
  const root = mkdtempSync(join(tmpdir(), 'studies-bench-'));
  for (let s = 0; s < n; s++) {
    const dir = join(root, `project-${s % 5}`, `study-${s}`);
    mkdirSync(dir, { recursive: true });
    const name = `study-${s}`;
    writeFileSync(join(dir, `${name}.dialogues.jsonl`), studyText(s));
    writeFileSync(join(dir, `${name}.judge-manifest.json`), JSON.stringify({ tool: 'reflect-eval', file: `${name}.dialogues.jsonl`, finishedAt: '2026-01-01T00:00:00Z', judges: [{ backend: 'local' }], bodies: ['instructions', 'instructions-error-explanations'], requests: ['rating'], evaluators: [1, 2].map((k) => ({ evaluatorId: `judge:${k}`, judge: 'local:bundled:reflect-gpt2-tiny', judgements: 165, calls: 165, cacheHits: 0, failures: 0, usage: { promptTokens: 0, completionTokens: 0 }, cost: null })), totals: { judgements: 330, calls: 330, cacheHits: 0, failures: 0, cost: null } }, null, 2));
    writeFileSync(join(dir, `${name}.generation-manifest.json`), JSON.stringify({ file: `${name}.dialogues.jsonl`, runs: [{ finishedAt: '2026-01-01T00:00:00Z', tool: 'reflect-eval', version: '0.1.0', generators: [{ backend: 'local', model: 'bundled:reflect-gpt2-tiny' }], settings: [{ description: 'greedy', spec: { strategy: 'greedy', maxNewTokens: 48 } }], seed: 0, contextsDone: 15, contextsTotal: 15, tokens: 700, added: 15, duplicates: 0, unchanged: 0, loadErrors: 0, failures: 0, cancelled: false }] }, null, 2));
    writeFileSync(join(dir, `${name}.report.md`), `# ReflectEval report: ${name}.dialogues.jsonl\n\n${'| a | b |\n'.repeat(200)}`);
    writeFileSync(join(dir, 'notes.md'), '# Notes\n');
    writeFileSync(join(dir, 'run.json'), '{"judges": []}');
    mkdirSync(join(dir, '.reflect-eval-cache'), { recursive: true });
    writeFileSync(join(dir, '.reflect-eval-cache', 'judge-cache.jsonl'), '{}\n'.repeat(1000));
  }
  return root;
}

export async function run(args: string[]): Promise<void> {
  const n = Number(strArg(args, '--studies') ?? 50);
  const rounds = Number(strArg(args, '--rounds') ?? 5);
  const root = makeWorkspace(n);
  try {
    const cold: number[] = [];
    const changed: number[] = [];
    const same: number[] = [];
    const parse: number[] = [];
    let mb = 0;
    let studies = 0;
    for (let r = 0; r < rounds; r++) {
      // The reference: JSON.parse of every study line (files already in the page cache, as for the scans).
      const t0 = performance.now();
      let bytes = 0;
      for (let s = 0; s < n; s++) {
        const text = readFileSync(join(root, `project-${s % 5}`, `study-${s}`, `study-${s}.dialogues.jsonl`), 'utf8');
        bytes += text.length;
        for (const line of text.split('\n')) if (line) JSON.parse(line);
      }
      parse.push(performance.now() - t0);
      mb = bytes / 1e6;

      const scanner = new WorkspaceScanner(root);
      let t = performance.now();
      const index = await scanner.scan('Expert 1');
      cold.push(performance.now() - t);
      studies = index.studies.length;
      if (studies !== n || index.studies.some((s) => s.judgeRuns.length !== 1 || s.generationRuns.length !== 1 || s.reports.length !== 1)) throw new Error('the index is not what the workspace holds');

      const touched = join(root, 'project-0', 'study-0', 'study-0.dialogues.jsonl');
      writeFileSync(touched, studyText(r + 1000));
      const later = new Date(Date.now() + (r + 1) * 1000);
      utimesSync(touched, later, later);
      t = performance.now();
      await scanner.scan('Expert 1');
      changed.push(performance.now() - t);
      if (scanner.stats.read !== 1) throw new Error(`one study changed, ${scanner.stats.read} files read`);

      t = performance.now();
      await scanner.scan('Expert 1');
      same.push(performance.now() - t);
    }
    const row = (what: string, xs: number[]) => console.log(`| ${what} | ${median(xs).toFixed(1)} ms (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}) | ${(median(xs) / median(parse)).toFixed(2)} |`);
    console.log(`side bar refresh on ${studies} studies (${mb.toFixed(1)} MB of dialogue files, each with 2 manifests and a report, among other files), ${rounds} rounds (median, range):`);
    console.log('| refresh | time | ÷ JSON.parse of every study |');
    console.log('|---|---:|---:|');
    row('reference: JSON.parse of every study line', parse);
    row('cold (new scanner: every file read)', cold);
    row('one study changed (the refresh a save triggers)', changed);
    row('nothing changed', same);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
