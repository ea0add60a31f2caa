/**
 * A study for a team (issue 44): assign blind packets, label them, collect all or nothing, see the progress.
 * The study is the synthetic EvalReflections fixture (15 contexts, an annotated gold reference and GPT-2/GPT-3
 * responses with experts' and laypeople's labels and judge scores).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialogueItem } from '../../src/core/dialogue/types';
import { documentItems, parseDocument } from '../../src/core/format/jsonl';
import { overlapDesign } from '../../src/core/team/packets';
import { cliAsync, repoRoot } from '../helpers/cli';

const FIXTURE = join(repoRoot, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl');

function itemsOf(text: string): DialogueItem[] {
  return documentItems(parseDocument(text, 'x.jsonl'));
}

/** Rewrites a packet's lines with `edit` applied to each item. */
function editPacket(path: string, edit: (it: DialogueItem) => DialogueItem): void {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  writeFileSync(path, lines.map((l) => JSON.stringify(edit(JSON.parse(l) as DialogueItem))).join('\n') + '\n');
}

/** Labels every candidate of a packet: coherent for even positions, incoherent with one error for odd ones. */
function labelAll(path: string, annotator: string): void {
  editPacket(path, (it) => ({
    ...it,
    candidates: it.candidates.map((c, i) => ({ ...c, annotations: [i % 2 === 0 ? { annotator, coherent: true, empathy: 4 } : { annotator, coherent: false, errors: ['parroting'] }] })),
  }));
}

describe('reflect-eval assign / collect / progress (a study for a team)', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-team-'));
  const study = join(dir, 'study.dialogues.jsonl');
  const packets = join(dir, 'packets');
  const original = readFileSync(FIXTURE, 'utf8');
  const packetOf = (a: string) => join(packets, `study.${a}.dialogues.jsonl`);

  before(async () => {
    copyFileSync(FIXTURE, study);
    const r = await cliAsync(['assign', study, '--annotators', 'E1,E2,E3', '-k', '2', '--seed', '7', '-o', packets]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^E1: \d+ items, \d+ candidates → /m);
  });

  it('writes a packet, its rubric and a manifest per annotator, and never writes to the study', () => {
    assert.deepEqual(readdirSync(packets).sort(), ['E1', 'E2', 'E3'].flatMap((a) => [`study.${a}.dialogues.jsonl`, `study.${a}.packet.json`, `study.${a}.rubric.json`]).sort());
    assert.equal(readFileSync(study, 'utf8'), original);
    assert.deepEqual(JSON.parse(readFileSync(join(packets, 'study.E1.rubric.json'), 'utf8')), { preset: 'mi-acl2023' });
  });

  it('a blind packet opened as text shows nothing a blind annotator may not see', () => {
    const items = itemsOf(original);
    const text = readFileSync(packetOf('E2'), 'utf8');
    const forbidden = new Set<string>();
    for (const it of items) {
      forbidden.add(JSON.stringify(it.id));
      // The reference is hidden — unless it is itself one of the responses to label (here the gold one is), shown as any other.
      if (it.reference && !it.candidates.some((c) => c.text === it.reference!.text)) forbidden.add(it.reference.text);
      for (const c of it.candidates) {
        forbidden.add(JSON.stringify(c.id));
        for (const a of c.annotations) forbidden.add(a.annotator);
        for (const id of Object.keys(c.scores)) forbidden.add(id);
        if (c.origin.source) forbidden.add(JSON.stringify(c.origin.source));
        if (c.origin.model) forbidden.add(c.origin.model);
      }
      for (const v of Object.values(it.provenance ?? {})) if (typeof v === 'string') forbidden.add(JSON.stringify(v));
    }
    for (const f of forbidden) assert.ok(!text.includes(f), `the packet shows ${f}`);
    for (const it of itemsOf(text)) {
      assert.deepEqual(Object.keys(it).sort(), ['candidates', 'context', 'id']);
      for (const c of it.candidates) assert.deepEqual([c.origin, c.scores, c.annotations], [{ kind: 'hidden' }, {}, []]);
    }
    // The context itself is shown: it is what the annotator labels against.
    assert.ok(text.includes(items[0].context[0].text));
  });

  it('gives every candidate to k = 2 of 3 annotators, balanced', () => {
    const total = itemsOf(original).reduce((s, it) => s + it.candidates.length, 0);
    const counts = ['E1', 'E2', 'E3'].map((a) => itemsOf(readFileSync(packetOf(a), 'utf8')).reduce((s, it) => s + it.candidates.length, 0));
    assert.equal(counts.reduce((s, n) => s + n, 0), 2 * total);
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 1, counts.join(', '));
    // Pairs share about the same number of candidates.
    const d = overlapDesign(Array.from({ length: 301 }, (_, i) => `k${i}`), 4, 2, 1);
    const pairs = new Map<string, number>();
    for (const v of d.values()) pairs.set(v.join(''), (pairs.get(v.join('')) ?? 0) + 1);
    assert.equal(pairs.size, 6);
    assert.ok(Math.max(...pairs.values()) - Math.min(...pairs.values()) <= 2, JSON.stringify([...pairs]));
  });

  it('refuses an edit outside labels, naming file, line and field, and leaves the study untouched', async () => {
    labelAll(packetOf('E1'), 'E1');
    const text = readFileSync(packetOf('E1'), 'utf8');
    editPacket(packetOf('E1'), (it) => ({ ...it, candidates: it.candidates.map((c, i) => (i === 0 ? { ...c, text: `${c.text} (edited)` } : c)) }));
    const r = await cliAsync(['collect', study, packetOf('E1')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /^study\.E1\.dialogues\.jsonl:1: candidates\[0\]\.text: changed since assign: only the annotator's labels may change in a packet$/m);
    assert.match(r.stderr, /collect refused: \d+ problem\(s\) in 1 file\(s\); study\.dialogues\.jsonl is unchanged/);
    assert.equal(readFileSync(study, 'utf8'), original);
    writeFileSync(packetOf('E1'), text);
  });

  it('refuses another annotator\'s label in a packet, and one annotator in two packets of one call', async () => {
    const text = readFileSync(packetOf('E2'), 'utf8');
    editPacket(packetOf('E2'), (it) => ({ ...it, candidates: it.candidates.map((c, i) => (i === 0 ? { ...c, annotations: [{ annotator: 'Expert-1', coherent: true }] } : c)) }));
    const other = await cliAsync(['collect', study, packetOf('E2')]);
    assert.notEqual(other.code, 0);
    assert.match(other.stderr, /candidates\[0\]\.annotations\[0\]\.annotator: only E2's labels belong in this packet, got "Expert-1"/);
    writeFileSync(packetOf('E2'), text);
    const twice = await cliAsync(['collect', study, packetOf('E1'), packetOf('E1')]);
    assert.notEqual(twice.code, 0);
    assert.match(twice.stderr, /study\.E1\.packet\.json:1: annotator: E1 is also the annotator of study\.E1\.dialogues\.jsonl/);
    assert.equal(readFileSync(study, 'utf8'), original);
  });

  it('collects three packets; the labels land under each annotator, everything else keeps its bytes; a second collect changes nothing', async () => {
    labelAll(packetOf('E2'), 'E2');
    labelAll(packetOf('E3'), 'E3');
    const r = await cliAsync(['collect', study, packetOf('E1'), packetOf('E2'), packetOf('E3')]);
    assert.equal(r.code, 0, r.stderr);
    const before = itemsOf(original);
    const after = itemsOf(readFileSync(study, 'utf8'));
    let landed = 0;
    after.forEach((it, i) => {
      it.candidates.forEach((c, j) => {
        const old = before[i].candidates[j];
        assert.deepEqual({ ...c, annotations: c.annotations.filter((a) => !/^E\d$/.test(a.annotator)) }, old, 'only E1–E3 labels are new');
        landed += c.annotations.filter((a) => /^E\d$/.test(a.annotator)).length;
      });
    });
    const total = before.reduce((s, it) => s + it.candidates.length, 0);
    assert.equal(landed, 2 * total);
    assert.match(r.stdout, new RegExp(`${2 * total} candidate label\\(s\\) changed \\(E1 \\d+, E2 \\d+, E3 \\d+\\); 0 not applied`));
    const once = readFileSync(study, 'utf8');
    const again = await cliAsync(['collect', study, packetOf('E1'), packetOf('E2'), packetOf('E3')]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^0 candidate label\(s\) changed .*0 item line\(s\) rewritten$/m);
    assert.equal(readFileSync(study, 'utf8'), once);
    const progress = await cliAsync(['progress', study, '--packets', packets, '--format', 'json']);
    assert.equal(progress.code, 0, progress.stderr);
    const p = JSON.parse(progress.stdout);
    const e1 = p.annotators.find((a: { annotator: string }) => a.annotator === 'E1');
    assert.equal(e1.labelled, e1.assigned);
    const coherent = p.agreement.find((g: { dimension: string }) => g.dimension === 'coherent');
    assert.equal(coherent.level, 'nominal');
    assert.ok(coherent.overlap >= total, `${coherent.overlap} candidates labelled by two or more`);
  });

  it('a newer packet replaces that annotator\'s labels and says which changed; a study edited since assign keeps what still exists', async () => {
    const labelled = readFileSync(study, 'utf8');
    // The study loses one item and one candidate's text changes after assign.
    const items = itemsOf(labelled);
    const gone = items[0].id;
    const changedText = { item: items[1].id, candidate: items[1].candidates[1].id };
    const edited = labelled
      .split('\n')
      .filter(Boolean)
      .filter((l) => (JSON.parse(l) as DialogueItem).id !== gone)
      .map((l) => {
        const it = JSON.parse(l) as DialogueItem;
        return it.id === changedText.item ? JSON.stringify({ ...it, candidates: it.candidates.map((c) => (c.id === changedText.candidate ? { ...c, text: `${c.text} (revised)` } : c)) }) : l;
      });
    writeFileSync(study, edited.join('\n') + '\n');
    // E1 flips every coherent label.
    editPacket(packetOf('E1'), (it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: c.annotations.map((a) => (a.coherent ? { annotator: 'E1', coherent: false, errors: ['offTopic'] } : a)) })) }));
    const r = await cliAsync(['collect', study, packetOf('E1')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^E1: [^ ]+ \/ [^ ]+: coherent, empathy, errors$/m);
    const notApplied = r.stdout.split('\n').filter((l) => l.startsWith('not applied: E1'));
    assert.ok(notApplied.some((l) => l.includes(`${gone} /`) && l.endsWith('its item is no longer in the study')), r.stdout);
    // The revised candidate is reported only if E1 was given it.
    for (const l of notApplied.filter((l) => l.includes(changedText.item))) assert.ok(l.endsWith('its text changed since assign'), l);
    const after = itemsOf(readFileSync(study, 'utf8'));
    for (const it of after) for (const c of it.candidates) for (const a of c.annotations.filter((x) => x.annotator === 'E1')) assert.equal(a.coherent, c.id === changedText.candidate && it.id === changedText.item ? a.coherent : false);
  });

  it('refuses a packet of another study', async () => {
    const otherStudy = join(dir, 'other.dialogues.jsonl');
    writeFileSync(otherStudy, itemsOf(original).map((it) => JSON.stringify({ ...it, context: [{ speaker: 'client', text: 'something else' }] })).join('\n') + '\n');
    const before = readFileSync(otherStudy, 'utf8');
    const r = await cliAsync(['collect', otherStudy, packetOf('E3')]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /study\.E3\.packet\.json:1: study: item \S+ has another context in other\.dialogues\.jsonl than when this packet was assigned: a packet of another study\?/);
    assert.equal(readFileSync(otherStudy, 'utf8'), before);
  });
});
