/**
 * The workspace's studies (src/core/workspace): which file is what, which study a run, plan, report or packet
 * belongs to, what a study's file says about its progress, generation and scores, and a scan that reads a file
 * again only when it changed.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { judgeManifestFile } from '../../../src/core/jobs/judge';
import { generationManifestFile } from '../../../src/core/generation/manifest';
import { labelPlanRecordPath } from '../../../src/core/planning/planView';
import { compactDocument } from '../../../src/core/format/compact';
import { parseDocument } from '../../../src/core/format/jsonl';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { classifyFile, reportSubject, studyBase } from '../../../src/core/workspace/files';
import { buildStudyIndex, firstHourProgress, type PacketRecognizer, type StudySources } from '../../../src/core/workspace/studies';
import { studyContent } from '../../../src/core/workspace/studyContent';
import { formatStudyIndex } from '../../../src/core/workspace/describe';
import { annotationSchemaProblem, readLabelSidecars } from '../../../src/core/format/labelSidecars';
import { WorkspaceScanner } from '../../../src/core/workspace/scan';
import { readStudy, writeStudyBack } from '../../../src/core/format/studyFiles';
import { labelProgress } from '../../../src/core/navigation/itemNavigation';
import { assignPackets } from '../../../src/core/team/packets';
import { writePackets } from '../../../src/core/team/packetFiles';
import { MI_RUBRIC } from '../../../src/core/rubric/presets';

const item = (id: string, candidates: Partial<DialogueItem['candidates'][number]>[]): DialogueItem => ({
  id,
  context: [{ speaker: 'client', text: 'I drink too much.' }],
  reference: { text: 'You feel you drink too much.' },
  candidates: candidates.map((c, i) => ({ id: `c${i}`, text: `t${i}`, origin: { kind: 'human' }, annotations: [], scores: {}, ...c })),
});
const gen = (model: string, strategy: string, createdAt = '2026-01-01T00:00:00Z') => ({ kind: 'model' as const, model, createdAt, decoding: { strategy } });
const label = (annotator: string, coherent?: boolean) => ({ annotator, ...(coherent === undefined ? {} : { coherent }) });
const jsonl = (items: unknown[]) => items.map((i) => JSON.stringify(i)).join('\n') + '\n';

/** Sources over an in-memory workspace. */
function memory(files: Record<string, string>): StudySources {
  return {
    content: (p) => (p in files ? studyContent(files[p]) : { error: 'missing' }),
    text: (p) => files[p],
    head: (p) => files[p]?.slice(0, 512),
  };
}

describe('workspace studies', () => {
  it('names files as the jobs that write them do', () => {
    for (const file of ['/w/study.dialogues.jsonl', '/w/a.b.jsonl', '/w/x/y.dialogues.jsonl']) {
      const base = studyBase(file);
      assert.deepEqual(classifyFile(judgeManifestFile({} as never, { file }, '/w')!), { kind: 'judgeManifest', base });
      assert.deepEqual(classifyFile(generationManifestFile(file)), { kind: 'generationManifest', base });
      assert.deepEqual(classifyFile(labelPlanRecordPath(file)), { kind: 'labelPlan', base });
    }
    assert.deepEqual(classifyFile('runs/study.dialogues.jsonl'), { kind: 'study', base: 'runs/study' });
    assert.equal(classifyFile('study.jsonl'), undefined, 'a plain .jsonl is not listed as a study (the editor opens it only on request)');
    assert.equal(classifyFile('notes.txt'), undefined);
    assert.equal(reportSubject('# ReflectEval report: s.dialogues.jsonl\n\n15 contexts'), 's.dialogues.jsonl');
    assert.equal(reportSubject('# Notes\n# ReflectEval report: s.dialogues.jsonl'), undefined);
  });

  it('sums a study file: progress per annotator, generated candidates by model and strategy, evaluators, problem lines', () => {
    const text =
      jsonl([
        item('i1', [
          { origin: { kind: 'human' }, annotations: [label('me', true), label('Expert 1', false)], scores: { 'metric:bleu4.score@x': { value: 0.1, status: 'ok' } } },
          { origin: gen('bundled:reflect-gpt2-tiny', 'greedy'), annotations: [label('me', false), label('me', true)], scores: { 'judge:local:m:b×r@1~2': { value: 3, status: 'ok' } } },
          { origin: gen('bundled:reflect-gpt2-tiny', 'greedy', '2026-02-01T00:00:00Z'), annotations: [label('me')] },
        ]),
      ]) +
      'not json\n' +
      jsonl([{ id: 'x', candidates: [1] }, item('i2', [{ origin: { kind: 'api', model: 'gpt', decoding: { strategy: 'nucleusSampling' } } }, { origin: { kind: 'model', source: 'GPT-2' } }])]);
    const c = studyContent(text);
    assert.equal(c.items, 2);
    assert.equal(c.candidates, 5);
    assert.deepEqual(c.problemLines, [2, 3]);
    // "me" answered coherence on two candidates (the third has an annotation without an answer); one answer per candidate counts.
    assert.deepEqual(c.progress.annotators, [{ annotator: 'me', labelled: 2 }, { annotator: 'Expert 1', labelled: 1 }]);
    // Imported responses (origin without decoding settings) were not generated here.
    assert.deepEqual(c.generated, [
      { kind: 'model', model: 'bundled:reflect-gpt2-tiny', strategy: 'greedy', candidates: 2, lastCreatedAt: '2026-02-01T00:00:00Z' },
      { kind: 'api', model: 'gpt', strategy: 'nucleusSampling', candidates: 1 },
    ]);
    assert.deepEqual(c.evaluators.map((e) => [e.kind, e.candidates]), [['judge', 1], ['metric', 1]]);
  });

  it('reads a compact file\'s evaluators through its header', () => {
    const items = [item('i1', [{ scores: { 'metric:bleu4.score@sig': { value: 0.5, status: 'ok', signature: 'sig' } } }, { scores: { 'metric:bleu4.score@sig': { value: 0.25, status: 'ok', signature: 'sig' } } }])];
    const text = new TextDecoder().decode(compactDocument(parseDocument(jsonl(items), 'c.dialogues.jsonl')).bytes);
    assert.match(text.split('\n')[1], /"#0"/, 'the scores are aliased');
    const c = studyContent(text);
    assert.deepEqual(c.evaluators, [{ id: 'metric:bleu4.score@sig', kind: 'metric', candidates: 2 }]);
    assert.deepEqual(c.problemLines, []);
  });

  it('puts each run, plan, report and packet under its study, and the rest aside', () => {
    const study = jsonl([item('i1', [{ annotations: [label('me', true)] }, { origin: gen('m', 'greedy') }])]);
    const judge = (file: string, finishedAt: string, cost: number | null) =>
      JSON.stringify({ file, finishedAt, judges: [{ backend: 'local' }, { backend: 'openai-chat', model: 'gpt-4o' }], bodies: ['a', 'b'], requests: ['rating'], evaluators: [{ judgements: 2, calls: 2, cacheHits: 0, failures: 0, cost }, { judgements: 2, calls: 1, cacheHits: 1, failures: 1, cost, batch: true }], totals: { judgements: 4, calls: 3, cacheHits: 1, failures: 1, cost } });
    const files: Record<string, string> = {
      'a/s.dialogues.jsonl': study,
      'b/s.dialogues.jsonl': study,
      'b/team/p1.dialogues.jsonl': study,
      'a/s.judge-manifest.json': judge('s.dialogues.jsonl', '2026-01-01T00:00:00Z', null),
      // A plan's own manifest name ("manifest": "runs/x.judge-manifest.json"): its `file` says whose.
      'a/second-run.judge-manifest.json': judge('s.dialogues.jsonl', '2026-03-01T00:00:00Z', 0.02),
      'a/s.generation-manifest.json': JSON.stringify({ file: 's.dialogues.jsonl', runs: [{ finishedAt: '2026-01-02T00:00:00Z', generators: [{ backend: 'local', model: 'bundled:reflect-gpt2-tiny' }], settings: [{ description: 'greedy' }], contextsDone: 1, contextsTotal: 1, added: 1, duplicates: 0, tokens: 9, cancelled: false }] }),
      'a/s.label-plan.json': '{}',
      'a/s.report.md': '# ReflectEval report: s.dialogues.jsonl\n',
      'reports/weekly.md': '# ReflectEval report: s.dialogues.jsonl\n',
      'reports/other.md': '# ReflectEval report: gone.dialogues.jsonl\n',
      'README.md': '# My project\n',
      'c/gone.judge-manifest.json': judge('gone.dialogues.jsonl', '2026-01-01T00:00:00Z', null),
      'c/broken.generation-manifest.json': '{"runs": 3}',
      'b/team/assign.packets.json': JSON.stringify({ study: '../s.dialogues.jsonl', packets: [{ file: 'p1.dialogues.jsonl', annotator: 'E1' }] }),
    };
    const packets: PacketRecognizer = {
      manifest: /\.packets\.json$/,
      read: (text) => {
        const v = JSON.parse(text) as { study: string; packets: { file: string; annotator: string }[] };
        return { study: v.study, packets: v.packets };
      },
    };
    const index = buildStudyIndex(Object.keys(files), memory(files), { annotator: 'me', packets: [packets] });
    assert.deepEqual(index.studies.map((s) => s.path), ['a/s.dialogues.jsonl', 'b/s.dialogues.jsonl'], 'a packet is not a study');
    const [a, b] = index.studies;
    assert.equal(a.name, 's');
    assert.equal(a.mine, 1);
    assert.deepEqual(a.judgeRuns.map((r) => [r.manifest, r.judges, r.variants, r.judgements, r.calls, r.cost, r.batch]), [
      ['a/second-run.judge-manifest.json', ['local', 'openai-chat: gpt-4o'], 2, 4, 3, 0.02, true],
      ['a/s.judge-manifest.json', ['local', 'openai-chat: gpt-4o'], 2, 4, 3, null, true],
    ]);
    assert.deepEqual(a.generationRuns.map((r) => [r.generators, r.settings, r.added]), [[['local: bundled:reflect-gpt2-tiny'], ['greedy'], 1]]);
    assert.deepEqual(a.generatedWithoutManifest, [], 'the manifest says it; origins are the fallback');
    assert.deepEqual(b.generatedWithoutManifest.map((g) => [g.model, g.strategy, g.candidates]), [['m', 'greedy', 1]]);
    assert.deepEqual(a.labelPlans, ['a/s.label-plan.json']);
    assert.deepEqual(a.reports, ['a/s.report.md'], 'a report names a file of its own folder first');
    assert.deepEqual(b.reports, []);
    assert.deepEqual(b.packets, [{ path: 'b/team/p1.dialogues.jsonl', manifest: 'b/team/assign.packets.json', annotator: 'E1' }]);
    // "s.dialogues.jsonl" is in two folders: a report elsewhere cannot say which, so it is set aside.
    assert.deepEqual(index.unmatched.reports.sort(), ['reports/other.md', 'reports/weekly.md']);
    assert.deepEqual(index.unmatched.judgeRuns.map((r) => r.manifest), ['c/gone.judge-manifest.json']);
    assert.deepEqual(index.problems, [{ file: 'c/broken.generation-manifest.json', message: 'runs: missing or not a list (not a generation manifest)' }]);
  });

  it('says how far the first hour is', () => {
    const none = buildStudyIndex([], memory({}));
    assert.deepEqual(firstHourProgress(none), { study: false, generated: false, labelled: false, scored: false, judged: false });
    const nine = jsonl([item('i', Array.from({ length: 12 }, (_, k) => ({ annotations: k < 9 ? [label('me', true)] : [], origin: k === 0 ? gen('m', 'greedy') : { kind: 'human' as const } })))]);
    const files = { 's.dialogues.jsonl': nine };
    assert.deepEqual(firstHourProgress(buildStudyIndex(Object.keys(files), memory(files), { annotator: 'me' })), { study: true, generated: true, labelled: false, scored: false, judged: false });
    const ten = nine.replace('"annotations":[]', '"annotations":[{"annotator":"me","coherent":false}]').replace('"scores":{}', '"scores":{"metric:rougeL.f@s":{"value":0.2,"status":"ok"}}');
    const f2 = { 's.dialogues.jsonl': ten };
    assert.deepEqual(firstHourProgress(buildStudyIndex(Object.keys(f2), memory(f2), { annotator: 'me' })), { study: true, generated: true, labelled: true, scored: true, judged: false });
    assert.equal(firstHourProgress(buildStudyIndex(Object.keys(f2), memory(f2), { annotator: 'someone else' })).labelled, false);
  });

  it('a scan lists the folder, skips tools\' and hidden folders, and reads again only what changed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'studies-scan-'));
    const write = (rel: string, text: string) => {
      mkdirSync(join(root, rel, '..'), { recursive: true });
      writeFileSync(join(root, rel), text);
    };
    const one = jsonl([item('i1', [{ annotations: [label('me', true)] }])]);
    write('s1.dialogues.jsonl', one);
    write('sub/s2.dialogues.jsonl', one);
    write('node_modules/pkg/x.dialogues.jsonl', one);
    write('.hidden/y.dialogues.jsonl', one);
    write('.reflect-eval-cache/judge-cache.jsonl', '{}\n');
    write('s1.report.md', '# ReflectEval report: s1.dialogues.jsonl\n' + 'x'.repeat(10_000));
    const scanner = new WorkspaceScanner(root, { annotationCheck: async () => annotationSchemaProblem });
    const first = await scanner.scan('me');
    assert.deepEqual(first.studies.map((s) => [s.path, s.mine]), [['s1.dialogues.jsonl', 1], ['sub/s2.dialogues.jsonl', 1]]);
    assert.deepEqual(first.studies[0].reports, ['s1.report.md']);
    assert.equal(scanner.stats.read, 3);
    assert.ok(scanner.stats.bytes < 2 * one.length + 1000, 'a report is read only as far as its first line');

    const again = await scanner.scan('me');
    assert.deepEqual(again, first);
    assert.equal(scanner.stats.read, 0, 'nothing changed, nothing read');

    write('sub/s2.dialogues.jsonl', jsonl([item('i1', [{ annotations: [label('me', true)] }, { annotations: [label('me', false)] }])]));
    const later = new Date(Date.now() + 5000);
    utimesSync(join(root, 'sub/s2.dialogues.jsonl'), later, later);
    const third = await scanner.scan('me');
    assert.equal(scanner.stats.read, 1);
    assert.deepEqual(third.studies.map((s) => s.mine), [1, 2]);

    write('sub/s3.dialogues.jsonl', 'not json\n');
    const fourth = await scanner.scan(null);
    assert.deepEqual(fourth.studies.map((s) => [s.name, s.mine, s.content?.problemLines]), [['s1', null, []], ['s2', null, []], ['s3', null, [1]]]);
  });

  it('counts labels kept in sidecar files as every job reads them, and reads the study again when a sidecar changes', async () => {
    const root = mkdtempSync(join(tmpdir(), 'studies-sidecars-'));
    const file = join(root, 's.dialogues.jsonl');
    writeFileSync(
      file,
      jsonl([
        item('i1', [{ annotations: [label('me', true), label('Expert 1', false)] }, { annotations: [label('Expert 1', true)] }, { annotations: [label('me', false)] }]),
        item('i2', [{ annotations: [label('Expert 1')] }, {}]),
      ]),
    );
    // `reflect-eval labels split --annotators "Expert 1"`: Expert 1's labels move to s.labels/Expert%201.jsonl.
    const study = readStudy(file);
    writeStudyBack(study, study.items, file, { toSidecars: ['Expert 1'] });
    assert.ok(readFileSync(join(root, 's.labels', 'Expert%201.jsonl'), 'utf8').length > 0);
    assert.ok(!readFileSync(file, 'utf8').includes('Expert 1'), 'the labels left the study file');

    const scanner = new WorkspaceScanner(root, { annotationCheck: async () => annotationSchemaProblem });
    const expected = labelProgress(readStudy(file).items, null);
    const first = await scanner.scan('Expert 1');
    assert.deepEqual(first.studies.map((s) => s.path), ['s.dialogues.jsonl'], 'a sidecar is not a study');
    const [s] = first.studies;
    assert.deepEqual(s.content!.progress, expected, 'the same progress as the jobs\' reading of the study');
    assert.deepEqual(s.content!.progress.annotators, [{ annotator: 'Expert 1', labelled: 2 }, { annotator: 'me', labelled: 2 }]);
    assert.equal(s.mine, 2);
    assert.equal(s.content!.labelledByAnyone, 3);
    assert.deepEqual(s.content!.sidecars, [{ name: 'Expert%201.jsonl', annotator: 'Expert 1', labels: 3, problemLines: [] }]);

    // A new label in the sidecar (as the editor or a teammate's commit writes it) and a line for a candidate the study lacks.
    appendFileSync(join(root, 's.labels', 'Expert%201.jsonl'), `${JSON.stringify({ item: 'i2', candidate: 'c1', annotation: { annotator: 'Expert 1', coherent: true } })}\n${JSON.stringify({ item: 'i9', candidate: 'c0', annotation: { annotator: 'Expert 1', coherent: true } })}\n`);
    const later = new Date(Date.now() + 5000);
    utimesSync(join(root, 's.labels', 'Expert%201.jsonl'), later, later);
    const second = await scanner.scan('Expert 1');
    assert.equal(scanner.stats.read, 1, 'the study is read again, with its sidecars');
    assert.equal(second.studies[0].mine, 3);
    assert.deepEqual(second.studies[0].content!.progress, labelProgress(readStudy(file).items, null));
    assert.deepEqual(second.studies[0].content!.sidecars![0].problemLines, [5], 'the orphan line is named and left out, as the jobs leave it out');
    assert.match(formatStudyIndex(second), /^ {2}labels of Expert 1 in s\.labels\/Expert%201\.jsonl: 4 candidates; 1 line left out \(first: line 5;/m);
  });

  it('takes a sidecar line as a label exactly when every job does (core\'s reader and the annotation schema)', () => {
    const text = jsonl([item('i1', [{}, {}, {}, {}])]);
    const line = (candidate: string, annotation: Record<string, unknown>) => JSON.stringify({ item: 'i1', candidate, annotation });
    const sidecar = [
      line('c0', { annotator: 'E1', coherent: true }),
      line('c1', { coherent: true }), // no annotator: not E1's label
      line('c2', { annotator: 'E1', coherent: true, empathy: 9 }), // outside the schema's 1–5
      line('c0', { annotator: 'E1', coherent: false }), // a second label of E1 on c0
      '',
    ].join('\n');
    const c = studyContent(text, [{ name: 'E1.jsonl', text: sidecar }], annotationSchemaProblem);
    assert.deepEqual(c.sidecars, [{ name: 'E1.jsonl', annotator: 'E1', labels: 1, problemLines: [2, 3, 4] }]);
    // The jobs' reading of the same folder: the same one label, the same lines left out.
    const read = readLabelSidecars('s.labels', [{ name: 'E1.jsonl', bytes: Buffer.from(sidecar) }]);
    assert.deepEqual(read.files[0].entries.map((e) => e.lineIndex + 1), [1]);
    assert.deepEqual(read.files[0].problems.map((p) => p.line), [2, 3, 4]);
    assert.throws(() => studyContent(text, [{ name: 'E1.jsonl', text: sidecar }]), /annotation check/);
  });

  it('lists reflect-eval assign\'s packets under their study, in a folder of their own, never as studies', async () => {
    const root = mkdtempSync(join(tmpdir(), 'studies-packets-'));
    const items = [item('i1', [{}, {}]), item('i2', [{}, {}])];
    mkdirSync(join(root, 'data'));
    writeFileSync(join(root, 'data', 's.dialogues.jsonl'), jsonl(items));
    const packets = assignPackets(items, MI_RUBRIC, 's.dialogues.jsonl', { annotators: ['E1', 'E 2'], seed: 1 });
    const written = writePackets(join(root, 'team'), 's.dialogues.jsonl', packets, MI_RUBRIC);
    assert.equal(written.length, 2);
    const index = await new WorkspaceScanner(root).scan(null);
    assert.deepEqual(index.studies.map((s) => s.path), ['data/s.dialogues.jsonl']);
    assert.deepEqual(index.studies[0].packets, [
      { path: 'team/s.E_2.dialogues.jsonl', manifest: 'team/s.E_2.packet.json', annotator: 'E 2' },
      { path: 'team/s.E1.dialogues.jsonl', manifest: 'team/s.E1.packet.json', annotator: 'E1' },
    ]);
    assert.deepEqual(index.unmatched.packets, []);

    // Two studies of that name: the packets cannot say which, so they are set aside (and still not studies).
    mkdirSync(join(root, 'copy'));
    writeFileSync(join(root, 'copy', 's.dialogues.jsonl'), jsonl(items));
    const two = await new WorkspaceScanner(root).scan(null);
    assert.deepEqual(two.studies.map((s) => [s.path, s.packets.length]), [['copy/s.dialogues.jsonl', 0], ['data/s.dialogues.jsonl', 0]]);
    assert.equal(two.unmatched.packets.length, 2);
  });
});
