/**
 * The dialogue editor's host side on a study with its own rubric (issue 39 item 3) and on a team packet (issue 44
 * item 2), without VS Code: which keys the host decides from the document and which go to the webview, what the
 * index and the navigator say, a rubric file with problems, the packet's annotator and blind mode, and the rubric
 * and manifest read beside a file on disk.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FocusState, IndexView, NavigatorState } from '../../../webview/editor/protocol';
import { parseRubric } from '../../../src/core/rubric/rubricFile';
import { MI_RUBRIC } from '../../../src/core/rubric/presets';
import { DEFAULT_SETUP, labellingSettings, readStudySetup, type StudySetup } from '../../../src/extension/editor/study';
import { editorOn, lastOf, settle, studyFile } from './memoryEditor';

const QUALITY = parseRubric(
  JSON.stringify({
    version: 1,
    name: 'quality',
    primary: 'fluency',
    dimensions: [
      { name: 'fluency', type: 'ordinal', points: [1, 2, 3, 4, 5].map((value) => ({ value })) },
      { name: 'relevance', type: 'ordinal', points: [1, 2, 3, 4, 5].map((value) => ({ value })) },
      { name: 'error type', type: 'categorical', options: [{ value: 'none', key: 'a' }, { value: 'generic', key: 'b' }] },
    ],
  }),
  'quality.rubric.json',
);
const SETUP: StudySetup = { rubric: QUALITY, rubricFile: 'quality.rubric.json', problems: [], packet: null };

const focus = (move: number, question: string | null = null): FocusState => ({ move, index: 1, itemId: 'item-1', candidateId: 'c1', settled: true, ...(question ? { question } : {}) });
const mineOf = (e: ReturnType<typeof editorOn>, c = 'c1') => e.document.items()[1].candidates.find((x) => x.id === c)?.annotations.find((a) => a.annotator === 'Lay-1');

/** An editor on `setup` whose webview shows item 1, focus on c1 (with `question` active). */
function focusedOn(setup: StudySetup, question: string | null = null) {
  const e = editorOn(studyFile(4), { annotator: 'Lay-1', blind: false }, { setup });
  e.webview.notify('ready', {});
  e.webview.notify('select', { index: 1 });
  e.webview.notify('focusState', focus(e.sent.find((m) => m.type === 'index')!.seq, question));
  return e;
}

describe('dialogue editor on a rubric of its own, and on a team packet', () => {
  it('tells the webview the rubric, that it is not the MI preset, and the packet; the MI preset says so', () => {
    const own = focusedOn(SETUP);
    const index = own.sent.find((m) => m.type === 'index')!.params as IndexView;
    assert.deepEqual([index.rubric?.name, index.preset, index.packet], ['quality', false, null]);
    const mi = focusedOn(DEFAULT_SETUP);
    const miIndex = mi.sent.find((m) => m.type === 'index')!.params as IndexView;
    assert.equal(miIndex.rubric?.name, MI_RUBRIC.name);
    assert.equal(miIndex.preset, true);
  });

  it('applies a key the rubric declares in the host, as an operation on its dimension', async () => {
    const e = focusedOn(SETUP);
    e.controller.key({ kind: 'key', key: 'b' });
    await settle();
    const labelled = e.sent.find((m) => m.type === 'labelled');
    assert.deepEqual(labelled?.params, { itemId: 'item-1', candidateId: 'c1', op: { kind: 'set', dimension: 'error type', value: 'generic' } });
    assert.equal(mineOf(e)?.['error type'], 'generic');
  });

  it('sends a key no dimension declares to the webview, which keeps the active question, and leaves the document alone', async () => {
    const e = focusedOn(SETUP, 'relevance');
    const version = e.document.version;
    e.controller.key({ kind: 'key', key: '4' });
    await settle();
    assert.deepEqual(e.sent.at(-1)?.type, 'action');
    assert.deepEqual((e.sent.at(-1)?.params as { action: unknown }).action, { kind: 'key', key: '4' });
    assert.equal(e.document.version, version);
  });

  it('clears the active question the webview reported, and nothing else', async () => {
    const e = focusedOn(SETUP);
    e.webview.request('label', { itemId: 'item-1', candidateId: 'c1', op: { kind: 'set', dimension: 'fluency', value: 4 } });
    e.webview.request('label', { itemId: 'item-1', candidateId: 'c1', op: { kind: 'set', dimension: 'relevance', value: 2 } });
    await settle();
    const move = e.sent.filter((m) => m.type === 'index').at(-1)!.seq;
    e.webview.notify('focusState', focus(move, 'relevance'));
    e.controller.key({ kind: 'clear' });
    await settle();
    assert.deepEqual([mineOf(e)?.fluency, mineOf(e)?.relevance], [4, undefined]);
  });

  it('refuses to label while the rubric file has problems, naming file, line and field', async () => {
    const broken: StudySetup = { rubric: null, rubricFile: 'quality.rubric.json', problems: [{ file: 'quality.rubric.json', line: 7, field: 'dimensions[1].points', message: 'must not be empty' }], packet: null };
    const e = focusedOn(broken);
    const version = e.document.version;
    e.webview.request('label', { itemId: 'item-1', candidateId: 'c1', op: { kind: 'set', dimension: 'fluency', value: 4 } });
    e.controller.key({ kind: 'key', key: 'y' });
    await settle();
    assert.equal(e.document.version, version);
    const notice = lastOf(e.sent, (m) => m.type === 'notice');
    assert.deepEqual(notice?.params, { text: 'Not labelled: quality.rubric.json:7: dimensions[1].points: must not be empty' });
  });

  it('counts progress and "labelled" in the current dimension, and every dimension for the viewing annotator', async () => {
    const e = focusedOn(SETUP);
    e.webview.request('label', { itemId: 'item-1', candidateId: 'c1', op: { kind: 'set', dimension: 'fluency', value: 4 } });
    await settle();
    const nav = lastOf(e.sent, (m) => m.type === 'navigator')!.params as { state: NavigatorState };
    assert.equal(nav.state.dimension, 'fluency');
    assert.deepEqual(nav.state.dimensions.map((d) => d.name), ['fluency', 'relevance', 'error type']);
    assert.equal(nav.state.progress.mine, 1);
    assert.deepEqual(nav.state.progress.dimensions?.map((d) => [d.dimension, d.labelled, d.asked]), [
      ['fluency', 1, 12],
      ['relevance', 0, 12],
      ['error type', 0, 12],
    ]);
    // The webview picks another dimension: "labelled" is now about it.
    e.webview.notify('navigate', { filter: { mine: 'labelled' }, order: 'file', dimension: 'error type' });
    const after = lastOf(e.sent, (m) => m.type === 'navigator')!.params as { state: NavigatorState };
    assert.equal(after.state.dimension, 'error type');
    assert.equal(after.state.progress.mine, 0);
    assert.deepEqual(after.state.shown, [], 'nobody labelled the error type: the labelled filter lists nothing');
  });

  it('labels a team packet as its annotator, blind, whatever the settings say', () => {
    const packet = { annotator: 'E7', assigned: 9, study: 'quality.dialogues.jsonl', manifest: 'quality.E7.packet.json', blind: true };
    assert.deepEqual(labellingSettings({ packet }, { annotator: 'Lay-1', blind: false }), { annotator: 'E7', blind: true });
    assert.deepEqual(labellingSettings({ packet: null }, { annotator: 'Lay-1', blind: false }), { annotator: 'Lay-1', blind: false });
  });

  it('reads the rubric and a packet manifest beside a file, and a broken rubric as its problems (never the preset)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rubric-editor-'));
    const file = join(dir, 'study.E7.dialogues.jsonl');
    writeFileSync(file, '');
    assert.equal(readStudySetup(file).rubric, MI_RUBRIC);
    writeFileSync(join(dir, 'study.E7.rubric.json'), JSON.stringify({ version: 1, name: 'r', primary: 'a', dimensions: [{ name: 'a', type: 'ordinal', points: [] }] }));
    const broken = readStudySetup(file);
    assert.equal(broken.rubric, null);
    assert.ok(broken.problems.length > 0 && broken.problems.every((p) => p.file.endsWith('study.E7.rubric.json') && p.line >= 1 && p.field), JSON.stringify(broken.problems));
    writeFileSync(join(dir, 'study.E7.rubric.json'), JSON.stringify(QUALITY));
    writeFileSync(join(dir, 'study.E7.packet.json'), JSON.stringify({ format: 'reflect-eval-packet', annotator: 'E7', blind: true, study: { file: 'study.dialogues.jsonl' }, items: { a: { candidates: { x: 'c1', y: 'c2' } } } }));
    const setup = readStudySetup(file);
    assert.equal(setup.rubric?.name, 'quality');
    assert.deepEqual(setup.packet, { annotator: 'E7', assigned: 2, study: 'study.dialogues.jsonl', manifest: 'study.E7.packet.json', blind: true });
    writeFileSync(join(dir, 'study.E7.packet.json'), '{ not json');
    const unreadable = readStudySetup(file);
    assert.equal(unreadable.rubric, null, 'a packet whose manifest cannot be read is not labelled as anyone');
    assert.match(unreadable.problems[0].message, /manifest is not valid JSON/);
  });
});
