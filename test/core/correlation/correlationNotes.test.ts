import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { abbreviate, exportTable, NAME_WIDTH, tableNotes, tableToCsv, tableToLatex, tableToMarkdown, tableToText, wrapText } from '../../../src/core/correlation/correlationExport';
import { usableScore } from '../../../src/core/correlation/ceiling';
import { correlationTable, type CorrelationCell, type CorrelationTable } from '../../../src/core/correlation/correlationTable';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import { BLEU_ZERO_ORDER_WARNING } from '../../../src/core/metrics/bleu4';
import type { Candidate, DialogueItem } from '../../../src/core/dialogue/types';

const BLEU = 'metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0';
const JUDGE = 'judge:local:m:instructions×rating@abc';

/** One context: a human reference (also annotated) and four model responses with coherence scores 0..3. */
function study(selfScored: 'reason' | 'stale'): DialogueItem[] {
  const votes = (k: number) => [0, 1, 2].map((a) => ({ annotator: `Expert ${a}`, coherent: a < k }));
  const model = (k: number, bleu: number, warning?: string): Candidate => ({
    id: `g${k}`,
    text: `response ${k}`,
    origin: { kind: 'model', source: 'GPT-2' },
    annotations: votes(k),
    scores: { [BLEU]: { value: bleu, status: 'ok', ...(warning ? { warning } : {}) }, [JUDGE]: { value: k, status: 'ok' } },
  });
  const reference: Candidate = {
    id: 'ref',
    text: 'the reference',
    origin: { kind: 'human', source: 'Human' },
    annotations: votes(3),
    scores: {
      [BLEU]: selfScored === 'reason' ? { value: null, status: 'error', reason: 'is-reference', message: 'is the reference' } : { value: 1, status: 'ok' },
      [JUDGE]: { value: 5, status: 'ok' },
    },
  };
  return [1, 2].map((i) => ({
    id: `i${i}`,
    context: [],
    reference: { text: 'the reference' },
    candidates: [reference, model(0, 1e-80, BLEU_ZERO_ORDER_WARNING), model(1, 0.3), model(2, 1e-78, BLEU_ZERO_ORDER_WARNING), model(3, 0.5)].map((c) => ({ ...c, id: `${c.id}-${i}` })),
  }));
}

describe('correlation table: the reference is never scored against itself', () => {
  for (const selfScored of ['reason', 'stale'] as const) {
    it(`leaves the reference out of reference-based rows (${selfScored === 'reason' ? 'score says is-reference' : 'a stale self-score of 1, recognised through referenceBased'}), with the reason, and no best won on it`, () => {
      const t = correlationTable(study(selfScored), { groupBy: 'source', referenceBased: (id) => id.startsWith('metric:bleu4') });
      assert.deepEqual(t.columns.map((c) => c.key), ['GPT-2', 'Human', 'all']);
      const bleu = t.rows.find((r) => r.evaluatorId === BLEU)!;
      const judge = t.rows.find((r) => r.evaluatorId === JUDGE)!;
      const [gpt2, human, all] = bleu.cells;
      // no column of self-scores: the Human column has no BLEU pairs, All has only the model responses
      assert.deepEqual([human.n, human.excluded, human.isReference, human.missingScore, human.undefinedReason], [0, 2, 2, 0, 'too-few']);
      assert.deepEqual([all.n, all.excluded, all.isReference], [8, 2, 2]);
      assert.deepEqual([gpt2.n, gpt2.isReference], [8, 0]);
      // a reference-free judge scores the reference as any response
      assert.deepEqual([judge.cells[1].n, judge.cells[2].n, judge.cells[2].isReference], [2, 10, 0]);
      // best in Human is never a self-score
      assert.equal(human.best, false);
      const notes = tableNotes(t).filter((n) => n.kind === 'is-reference');
      assert.equal(notes.length, 1);
      assert.match(notes[0].text, /never scored against itself: responses that are their item's reference \(2 in Human, 2 in All\) are left out of BLEU-4/);
      const csv: Record<string, string>[] = parse(tableToCsv(t), { columns: true });
      const row = csv.find((r) => r.evaluator_id === BLEU && r.column === 'Human')!;
      assert.deepEqual([row.n, row.excluded, row.is_reference, row.missing_score], ['0', '2', '2', '0']);
    });
  }

  it('by default a stale self-score is left out by the registry\'s rule, as the ceiling and the alt-test leave it out', () => {
    const t = correlationTable(study('stale'), { groupBy: 'source' });
    assert.deepEqual([t.rows.find((r) => r.evaluatorId === BLEU)!.cells[2].n, t.rows.find((r) => r.evaluatorId === BLEU)!.cells[2].isReference], [8, 2]);
    // only a caller that says an evaluator is not reference-based keeps it
    const kept = correlationTable(study('stale'), { groupBy: 'source', referenceBased: () => false });
    assert.equal(kept.rows.find((r) => r.evaluatorId === BLEU)!.cells[2].n, 10);
  });
});

describe('correlation table notes', () => {
  it('says once which cells hold degenerate values (unsmoothed BLEU-4 without a 4-gram match), per column', () => {
    const t = correlationTable(study('reason'), { groupBy: 'source' });
    const notes = tableNotes(t).filter((n) => n.kind === 'warning');
    assert.equal(notes.length, 1);
    assert.match(notes[0].text, /^Degenerate values: BLEU-4 for 4 of the 8 responses in GPT-2 and 4 of the 8 in All — no match in the reference for some n-gram order \(2–4\)/);
    for (const f of ['text', 'md', 'latex'] as const) assert.equal(exportTable(t, f).split('Degenerate values').length, 2, f);
    const csv: Record<string, string>[] = parse(tableToCsv(t), { columns: true });
    assert.equal(csv.find((r) => r.evaluator_id === BLEU && r.column === 'GPT-2')!.warnings, `4: ${BLEU_ZERO_ORDER_WARNING}`);
  });

  it('says once that nobody of the chosen group labelled anything, instead of "too few" in every cell', () => {
    const items = study('reason').map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: [] })) }));
    const t = correlationTable(items, { groupBy: 'source' });
    const notes = tableNotes(t);
    assert.deepEqual(notes.map((n) => n.kind).filter((k) => k === 'no-labels'), ['no-labels']);
    assert.match(notes[0].text, /No response in this file has a coherence label from any annotator, so every cell is undefined/);
    // only laypeople asked, experts labelled: the same, naming the group
    const lay = correlationTable(study('reason'), { groupBy: 'source', human: 'laypeople' });
    assert.match(tableNotes(lay)[0].text, /from the laypeople/);
  });

  /** A table of one column and hand-set cells, to test the p-value/interval footnote. */
  function table(cells: Partial<CorrelationCell>[], level = 0.95): CorrelationTable {
    const cell = (c: Partial<CorrelationCell>): CorrelationCell => ({ column: 'GPT-2', n: 107, excluded: 0, missingScore: 0, missingLabel: 0, statistic: 0.2, pValue: 0.5, significant: false, best: false, ...c });
    return {
      method: 'spearman',
      human: 'experts',
      humanRequested: 'experts',
      groupBy: 'source',
      best: 'absolute',
      alpha: 0.05,
      columns: [{ key: 'GPT-2', label: 'GPT-2', candidates: 107, items: 15 }],
      rows: cells.map((c, i) => ({ evaluatorId: `metric:m${i}.score@x`, displayName: `Metric ${i}`, kind: 'metric', cells: [cell(c)] })),
      reference: { evaluatorId: 'human:laypeople-vs-experts', displayName: 'Laypeople–experts', kind: 'human', cells: [cell({ statistic: 0.7, pValue: 1e-17, significant: true, ci: { level, lower: 0.6, upper: 0.8, resamples: 1000, undefinedResamples: 0 } })] },
      legend: [],
      items: 15,
      bootstrap: { resamples: 1000, seed: 1, level },
    };
  }

  it('footnotes a p-value and an interval that disagree about significance, both ways, and why', () => {
    const t = table([
      { statistic: 0.21, pValue: 0.03, significant: true, ci: { level: 0.95, lower: -0.02, upper: 0.4, resamples: 1000, undefinedResamples: 0 } },
      { statistic: 0.15, pValue: 0.12, ci: { level: 0.95, lower: 0.01, upper: 0.3, resamples: 1000, undefinedResamples: 0 } },
      { statistic: 0.05, pValue: 0.6, ci: { level: 0.95, lower: -0.2, upper: 0.3, resamples: 1000, undefinedResamples: 0 } }, // they agree
    ]);
    const notes = tableNotes(t).filter((n) => n.kind === 'p-vs-interval');
    assert.equal(notes.length, 1);
    const [n] = notes;
    assert.deepEqual(n.cells.map((c) => c.evaluatorId), ['metric:m0.score@x', 'metric:m1.score@x']);
    assert.match(n.text, /p < 0\.05 but the 95% interval contains 0 for Metric 0 in GPT-2 \(p = 0\.0300, \[-0\.020, 0\.400\]\): the p-value treats the n responses as independent pairs, while the interval resamples the 15 items/);
    assert.match(n.text, /p ≥ 0\.05 but the 95% interval excludes 0 for Metric 1 in GPT-2 .*can be too narrow/);
    // the two cells carry the mark in every format; the agreeing one does not
    const text = tableToText(t);
    assert.match(text, /Metric 0 +0\.210\*† /);
    assert.match(text, /Metric 1 +0\.150† /);
    assert.match(text, /Metric 2 +0\.050 /);
    assert.match(tableToMarkdown(t), /\| Metric 0 \| \*0\.210\*† \[/);
    assert.match(tableToLatex(t), /Metric 1 & 0\.150\\textsuperscript\{\\dag\}/);
    assert.match(tableToLatex(t), /Notes\. 1\.~\\dag\{\} The p-value/);
    const csv: Record<string, string>[] = parse(tableToCsv(t), { columns: true });
    assert.deepEqual(csv.map((r) => r.p_interval_disagree), ['false', 'true', 'true', 'false']);
    // an interval at another level than 1 − α: said too
    const at90 = table([{ statistic: 0.21, pValue: 0.03, significant: true, ci: { level: 0.9, lower: -0.02, upper: 0.4, resamples: 1000, undefinedResamples: 0 } }], 0.9);
    assert.match(tableNotes(at90)[0].text, /the interval's level \(90%\) is not 1 − α \(95%\)/);
  });
});

describe('correlation text output fits 120 columns', () => {
  it('wraps column groups into blocks and abbreviates long names; Markdown, LaTeX and CSV keep everything', () => {
    const doc = parseDocument(readFileSync(join(__dirname, '../../fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), 'utf8'), 'x.jsonl');
    const items = documentItems(doc).map((it) => ({
      ...it,
      candidates: it.candidates.map((c) => ({ ...c, scores: { ...c.scores, 'judge:api:a-very-long-model-name-for-testing-width/with-a-path:instructionsErrorExplanations×scoring@0123456789ab': { value: c.text.length % 7, status: 'ok' as const } } })),
    }));
    const t = correlationTable(items, { bootstrap: { resamples: 30, seed: 2 } });
    const text = tableToText(t);
    const lines = text.split('\n');
    assert.ok(lines.every((l) => l.length <= 120), lines.filter((l) => l.length > 120).join('\n'));
    // every column group is there, in blocks that each repeat the evaluator column
    for (const c of t.columns) assert.match(text, new RegExp(`\\n {30,}${c.label.replace(/[.]/g, '\\.')}( |\\n)`));
    assert.ok(lines.filter((l) => l.startsWith('evaluator')).length >= 2);
    // the long name is abbreviated in the middle in text only
    const name = t.rows.find((r) => r.evaluatorId.includes('a-very-long'))!.displayName;
    assert.ok(name.length > NAME_WIDTH);
    assert.ok(text.includes(abbreviate(name, NAME_WIDTH)) && !text.includes(name));
    assert.ok(tableToMarkdown(t).includes(name.replace(/_/g, '\\_').replace(/\*/g, '\\*')));
    assert.ok(tableToCsv(t).includes(name));
    // the same numbers as the Markdown
    const cell = t.rows.find((r) => r.evaluatorId.includes('a-very-long'))!.cells[0];
    assert.ok(text.includes(cell.statistic!.toFixed(3)));
  });

  it('wraps text and abbreviates in the middle', () => {
    assert.deepEqual(wrapText('aaa bbb ccc ddd', 7, '  '), ['aaa bbb', '  ccc', '  ddd']);
    assert.deepEqual(wrapText('x'.repeat(12), 5), ['xxxxx', 'xxxxx', 'xx']);
    assert.equal(abbreviate('BLEU-4 (smoothing method1) [3c7ed3]', 20), 'BLEU-4 (sm… [3c7ed3]');
    assert.equal(abbreviate('short', 20), 'short');
  });
});

describe('one rule for a candidate that is its item\'s reference (issue 39 item 6)', () => {
  it('a model response identical to the reference is left out of BLEU by the correlation table and by the ceiling\'s and alt-test\'s usableScore alike', () => {
    const items = study('reason').map((it) => ({ ...it, candidates: it.candidates.map((c) => (c.id.startsWith('g3') ? { ...c, text: ' the reference ', scores: { ...c.scores, [BLEU]: { value: 1, status: 'ok' as const } } } : c)) }));
    const t = correlationTable(items, { groupBy: 'source' });
    const gpt2 = t.rows.find((r) => r.evaluatorId === BLEU)!.cells[0];
    assert.deepEqual([gpt2.column, gpt2.n, gpt2.isReference], ['GPT-2', 6, 2]);
    for (const it of items) {
      for (const c of it.candidates) {
        const left = c.text.trim() === 'the reference';
        assert.equal(usableScore(it, c, BLEU), left ? null : (c.scores[BLEU].value as number | null), c.id);
        assert.equal(usableScore(it, c, JUDGE), c.scores[JUDGE].value, `${c.id}: a judge scores the reference like any response`);
      }
    }
  });
});
