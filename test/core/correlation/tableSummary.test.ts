/**
 * Panel = CLI (issue 41 item 1): what the correlation panel says about a table is what `reflect-eval correlate`
 * prints for the same settings — its sentence and every note — and the panel names the group it uses and when
 * `auto` switched it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeTable, tableNotes } from '../../../src/core/correlation/correlationExport';
import { correlationTable, type CorrelationTableOptions } from '../../../src/core/correlation/correlationTable';
import { sideBySide } from '../../../src/core/correlation/sideBySide';
import { tableSummary } from '../../../src/core/correlation/tableSummary';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';

const items = documentItems(parseDocument(readFileSync(join(__dirname, '../../fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), 'utf8'), 'x.jsonl'));

/** The settings every later option joins (`--dimension`, `--adjust`, `--baselines`, …): one row per setting tried. */
const SETTINGS: CorrelationTableOptions[] = [
  {},
  { method: 'kendall', groupBy: 'origin' },
  { human: 'laypeople', adjust: 'holm' },
  { human: 'all', adjust: 'by', baselines: { seed: 1 } },
  { pValue: 'independent', bestMark: 'largest' },
];

describe('the correlation panel says what the CLI prints', () => {
  for (const options of SETTINGS) {
    it(`the same sentence and notes as correlate for ${JSON.stringify(options)}`, () => {
      const panel = tableSummary(items, sideBySide(items, [{ label: 'current', options }]));
      const cli = correlationTable(items, options);
      assert.equal(panel.description, describeTable(cli));
      assert.deepEqual(panel.notes, tableNotes(cli).map((n) => n.text));
    });
  }

  it('names the group used and counts the responses it labelled', () => {
    const s = tableSummary(items, correlationTable(items, { human: 'experts' }));
    const expected = items.flatMap((it) => it.candidates).filter((c) => c.annotations.some((a) => typeof a.coherent === 'boolean' && /^expert/i.test(a.annotator))).length;
    assert.equal(s.human, 'experts');
    assert.equal(s.labelled, expected);
    assert.ok(s.labelled < s.total);
  });

  it('counts the responses labelled on the table\'s dimension (empathy), not on coherence', () => {
    const s = tableSummary(items, correlationTable(items, { human: 'experts', dimension: 'empathy' }));
    const expected = items.flatMap((it) => it.candidates).filter((c) => c.annotations.some((a) => typeof a.empathy === 'number' && /^expert/i.test(a.annotator))).length;
    assert.equal(s.labelled, expected);
    assert.match(s.description, /empathy/i);
  });

  it('announces when auto switches from all annotators to the experts at the first expert label, and only then', () => {
    const noExperts: DialogueItem[] = items.map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: c.annotations.filter((a) => !/^expert/i.test(a.annotator)) })) }));
    const before = tableSummary(noExperts, correlationTable(noExperts));
    assert.equal(before.human, 'all');
    assert.equal(before.groupChange, undefined);
    const first = noExperts.map((it, i) => (i === 0 ? { ...it, candidates: it.candidates.map((c, j) => (j === 0 ? { ...c, annotations: [...c.annotations, { annotator: 'Expert-RS', coherent: true }] } : c)) } : it));
    const after = tableSummary(first, correlationTable(first), before.human);
    assert.equal(after.human, 'experts');
    assert.equal(after.labelled, 1);
    assert.match(after.groupChange ?? '', /changed from all annotators to the experts .* rests on 1 labelled response\./);
    assert.equal(tableSummary(first, correlationTable(first, { human: 'experts' }), 'all').groupChange, undefined, 'a group the user chose is not announced');
  });
});
