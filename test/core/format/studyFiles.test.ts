/**
 * A study on disk with its labels folder (src/core/format/studyFiles.ts): what `writeStudyBack` refuses before it
 * writes anything, and what a write to another path takes along.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Annotation, DialogueItem } from '../../../src/core/dialogue/types';
import { formatItems } from '../../../src/core/format/jsonl';
import { readStudy, studyProblemMessages, writeStudyBack } from '../../../src/core/format/studyFiles';

const ann = (annotator: string, coherent = true): Annotation => ({ annotator, coherent });
const items: DialogueItem[] = ['i1', 'i2'].map((id) => ({ id, context: [{ speaker: 'client', text: `context ${id}` }], candidates: [{ id: 'c1', text: 'text', origin: { kind: 'model' }, annotations: [ann('E1'), ann('L1')], scores: {} }] }));
const relabel = (its: DialogueItem[], who: string): DialogueItem[] => its.map((it, i) => (i === 0 ? { ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: c.annotations.map((a) => (a.annotator === who ? ann(who, false) : a)) })) } : it));

function splitStudy(): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-study-'));
  const path = join(dir, 'study.dialogues.jsonl');
  writeFileSync(path, formatItems(items));
  const s = readStudy(path);
  writeStudyBack(s, s.items, path, { toSidecars: ['E1'] });
  return { dir, path };
}

describe('a study on disk (readStudy / writeStudyBack)', () => {
  it('writes nothing when a sidecar it would replace changed on disk since it was read', () => {
    const { dir, path } = splitStudy();
    const study = readStudy(path);
    const e1 = join(dir, 'study.labels/E1.jsonl');
    writeFileSync(e1, `${readFileSync(e1, 'utf8')}{"item":"i2","candidate":"c1","annotation":{"annotator":"E1","coherent":true}}\n`);
    const before = readFileSync(e1, 'utf8');
    const studyBefore = readFileSync(path, 'utf8');
    assert.throws(() => writeStudyBack(study, relabel(study.items, 'E1')), /E1\.jsonl changed on disk since study\.dialogues\.jsonl was read: nothing written/);
    assert.equal(readFileSync(e1, 'utf8'), before);
    assert.equal(readFileSync(path, 'utf8'), studyBefore);
    // A write that does not touch that sidecar goes ahead.
    const r = writeStudyBack(study, relabel(study.items, 'L1'));
    assert.deepEqual([r.itemsChanged, r.sidecarsWritten], [1, []]);
  });

  it('to another path: the sidecars go along; refused when that study\'s folder holds a sidecar this one does not have', () => {
    const { dir, path } = splitStudy();
    const study = readStudy(path);
    const out = join(dir, 'copy.dialogues.jsonl');
    const r = writeStudyBack(study, relabel(study.items, 'E1'), out);
    assert.deepEqual(readdirSync(join(dir, 'copy.labels')).sort(), ['E1.jsonl', 'README.md']);
    assert.deepEqual(r.sidecarsWritten, [join(dir, 'copy.labels/E1.jsonl')]);
    assert.deepEqual(readStudy(out).items[0].candidates[0].annotations, [ann('E1', false), ann('L1')]);
    assert.deepEqual(readStudy(path).items[0].candidates[0].annotations, [ann('E1'), ann('L1')], 'the study itself is unchanged');
    const other = join(dir, 'other.dialogues.jsonl');
    mkdirSync(join(dir, 'other.labels'));
    writeFileSync(join(dir, 'other.labels/X9.jsonl'), '');
    assert.throws(() => writeStudyBack(study, study.items, other), /other\.labels holds X9\.jsonl, which study\.dialogues\.jsonl does not have/);
    assert.equal(existsSync(other), false);
  });

  it('reports a labels folder\'s problems with the study\'s, one message each', () => {
    const { dir, path } = splitStudy();
    writeFileSync(join(dir, 'study.labels/E1.jsonl'), '{"item":"i9","candidate":"c1","annotation":{"annotator":"E1"}}\nnot json\n');
    assert.deepEqual(
      studyProblemMessages(readStudy(path)).map((m) => m.split(': ').slice(0, 2).join(': ')),
      ['study.labels/E1.jsonl:2: not valid JSON', 'study.labels/E1.jsonl:1: item'],
    );
    assert.throws(() => {
      writeFileSync(join(dir, 'x.dialogues.jsonl'), formatItems(items));
      writeFileSync(join(dir, 'x.labels'), 'a file');
      readStudy(join(dir, 'x.dialogues.jsonl'));
    }, /x\.labels: a study's labels folder must be a folder/);
  });
});
