/**
 * Selection accounted for (issue 40): the best-in-column mark only where the data separate the best from the
 * runner-up, adjusted p-values over a column's evaluator rows, the note on the best row's optimism, and trivial
 * baseline rows.
 */
import assert from 'node:assert/strict';
import { adjustPValues } from '../../../src/core/stats/multipleTesting';
import { correlationTable, markBest, type CorrelationRow } from '../../../src/core/correlation/correlationTable';
import { exportTable, tableNotes } from '../../../src/core/correlation/correlationExport';
import { sideBySide } from '../../../src/core/correlation/sideBySide';
import { spearmanRho } from '../../../src/core/stats/correlation';
import type { Candidate, DialogueItem } from '../../../src/core/dialogue/types';
import { generateStudy, humanScores } from '../../../scripts/coverage/generate';
import { baseDesign } from '../../../scripts/coverage/scenarios';

/**
 * A generated study (15 contexts × 10, 3 of 9 annotators) with evaluators: `strong` (the human score plus a little
 * noise), `a` and `b` (two equally good BLEU-like copies), `weak` (mostly noise); texts of varying length.
 */
function study(contexts = 15, seed = 'sel'): DialogueItem[] {
  const s = generateStudy(baseDesign(contexts, 0.7), seed);
  const h = humanScores(s);
  const noise = generateStudy({ ...baseDesign(contexts, 0.7), evaluator: { signal: 0, contextSd: 0, noiseSd: 1, shape: 'continuous' } }, `${seed}/noise`);
  const items: DialogueItem[] = [];
  for (let c = 0; c < contexts; c++) {
    const candidates: Candidate[] = [];
    for (let j = 0; j < 10; j++) {
      const i = c * 10 + j;
      candidates.push({
        id: `c${j}`,
        text: 'word '.repeat(1 + ((i * 7) % 13)).trim(),
        origin: { kind: 'model', source: j < 5 ? 'first' : 'second' },
        annotations: [0, 1, 2].map((r) => ({ annotator: `Expert-${s.annotators[i * 3 + r] + 1}`, coherent: s.values[i * 3 + r] === 1 })),
        scores: {
          'metric:strong.score@x': { value: h[i] + 0.3 * noise.a[i], status: 'ok' },
          'metric:a.score@x': { value: s.a[i], status: 'ok' },
          'metric:b.score@x': { value: s.b[i], status: 'ok' },
          'metric:weak.score@x': { value: noise.b[i] + 0.1 * h[i], status: 'ok' },
        },
      } as unknown as Candidate);
    }
    items.push({ id: `ctx${c}`, context: [], candidates } as unknown as DialogueItem);
  }
  return items;
}

describe('selection accounted for', () => {
  const items = study();

  it('marks the best only where Williams\' t separates it from the runner-up, with n ≥ 20; says why everywhere else', () => {
    const t = correlationTable(items, { groupBy: 'origin', human: 'experts' });
    assert.equal(t.bestMark, 'separated');
    const all = t.bestInColumn?.find((b) => b.column === 'all');
    assert.equal(all?.best, 'metric:strong.score@x');
    assert.equal(all?.reason, 'separated');
    assert.ok((all?.pValue as number) < 0.05 && all?.n === 150);
    assert.ok(t.rows.find((r) => r.evaluatorId === 'metric:strong.score@x')?.cells.at(-1)?.best);
    // Without the strong evaluator, a and b are equally good: the larger is not marked.
    const ab = correlationTable(items, { groupBy: 'none', human: 'experts', evaluators: ['metric:a.', 'metric:b.'] });
    const col = ab.bestInColumn?.[0];
    assert.equal(col?.reason, 'not-separated', JSON.stringify(col));
    assert.ok(ab.rows.every((r) => !r.cells[0].best));
    assert.match(tableNotes(ab).find((n) => n.kind === 'best')?.text ?? '', /^No best is marked in All \((a|b) vs (a|b): jackknife p = [\d.]+, n = 150\)/);
    // The papers' bold is still there on request.
    const largest = correlationTable(items, { groupBy: 'none', human: 'experts', evaluators: ['metric:a.', 'metric:b.'], bestMark: 'largest' });
    assert.equal(largest.rows.filter((r) => r.cells[0].best).length, 1);
  });

  it('needs 20 responses: a column of 10 gets no mark, whatever the values', () => {
    const few = study(1, 'few');
    const t = correlationTable(few, { groupBy: 'none', human: 'experts' });
    assert.equal(t.bestInColumn?.[0].reason, 'too-few');
    assert.ok(t.rows.every((r) => !r.cells[0].best));
  });

  it('a tie is never a best; undefined and lone cells never are', () => {
    const row = (id: string, ...stats: (number | null)[]): CorrelationRow => ({
      evaluatorId: id,
      displayName: id,
      kind: 'metric',
      cells: stats.map((s) => ({ column: 'c', n: 100, excluded: 0, missingScore: 0, missingLabel: 0, statistic: s, pValue: s === null ? null : 0.01, significant: true, best: false })),
    });
    const rows = [row('a', 0.5, 0.4), row('b', 0.5, null)];
    const why = markBest(rows, 'absolute', { mark: 'separated', separation: () => ({ n: 100, pValue: 0.001 }) });
    assert.deepEqual(why.map((w) => w.reason), ['tie', 'one-cell']);
    assert.ok(rows.every((r) => r.cells.every((c) => !c.best)));
  });

  it('--adjust: Holm and BY over each column\'s evaluator rows; significance from the adjusted p; human and baseline rows untouched', () => {
    for (const method of ['holm', 'by'] as const) {
      const t = correlationTable(items, { groupBy: 'origin', human: 'experts', adjust: method, baselines: true });
      assert.equal(t.adjust, method);
      t.columns.forEach((_, c) => {
        const family = t.rows.filter((r) => r.kind !== 'baseline');
        const expected = adjustPValues(family.map((r) => r.cells[c].pValue), method);
        family.forEach((r, k) => {
          assert.equal(r.cells[c].pAdjusted, expected[k]);
          assert.equal(r.cells[c].significant, expected[k] !== null && expected[k] < 0.05);
        });
        for (const r of t.rows.filter((x) => x.kind === 'baseline')) assert.equal(r.cells[c].pAdjusted, undefined);
      });
      assert.equal(t.reference.cells[0].pAdjusted, undefined);
      const text = exportTable(t, 'text');
      assert.match(text, new RegExp(`p \\(${method === 'holm' ? 'Holm' : 'BY'}\\)`));
      const csv = exportTable(t, 'csv').split('\n');
      assert.ok(csv[0].endsWith(',p_adjusted,p_adjust,ci_method,p_independent,ci_measured_coverage'));
    }
  });

  it('--baselines: length, a constant and a seeded random number, last, never best, never in the family', () => {
    const t = correlationTable(items, { groupBy: 'none', human: 'experts', baselines: { seed: 5 } });
    const base = t.rows.filter((r) => r.kind === 'baseline');
    assert.deepEqual(base.map((r) => r.displayName), ['Baseline: a constant', 'Baseline: length (whitespace tokens)', 'Baseline: random number']);
    assert.deepEqual(t.rows.slice(-3), base, 'after every evaluator');
    assert.equal(base[0].cells[0].undefinedReason, 'constant-input');
    const lengths = items.flatMap((it) => it.candidates.map((c) => c.text.split(' ').length));
    const human = items.flatMap((it) => it.candidates.map((c) => c.annotations.filter((a) => a.coherent).length));
    assert.equal(base[1].cells[0].statistic, spearmanRho(lengths, human).statistic);
    assert.ok(base.every((r) => !r.cells[0].best));
    const again = correlationTable(items, { groupBy: 'none', human: 'experts', baselines: { seed: 5 } });
    assert.equal(again.rows.at(-1)?.cells[0].statistic, base[2].cells[0].statistic, 'seeded');
    assert.notEqual(correlationTable(items, { groupBy: 'none', human: 'experts', baselines: { seed: 6 } }).rows.at(-1)?.cells[0].statistic, base[2].cells[0].statistic);
    assert.ok(tableNotes(t).some((n) => n.kind === 'baselines'));
  });

  it('marks an interval from fewer contexts than its method covers at with ‡, and says by how much', () => {
    const t = correlationTable(study(8, 'short'), { groupBy: 'none', human: 'experts', bootstrap: { resamples: 30, seed: 1 } });
    const cell = t.rows[0].cells[0];
    assert.ok(cell.ci);
    cell.ci.shortfall = { family: 'correlation', contexts: 10, coverage: 0.912, belowMeasured: true };
    const text = exportTable(t, 'text');
    assert.match(text, /\]‡/);
    const note = tableNotes(t).find((n) => n.kind === 'coverage');
    assert.match(note?.text ?? '', /^‡ Intervals from few dialogue contexts: 8 contexts \(fewer than the 10 the coverage study measured\): at 10 contexts the study's nominal 95 % intervals covered 91\.2 %, too narrow/);
    assert.deepEqual(note?.cells, [{ evaluatorId: t.rows[0].evaluatorId, column: 'all' }]);
    assert.match(exportTable(t, 'latex'), /\\textsuperscript\{\\ddag\}/);
    assert.match(exportTable(t, 'csv'), /,0\.912\n/);
  });

  it('notes the optimism of the best row and points to the held-out number of search-prompts', () => {
    const t = correlationTable(items, { groupBy: 'none', human: 'experts' });
    const note = tableNotes(t).find((n) => n.kind === 'selection');
    assert.match(note?.text ?? '', /^Selection: the best of 4 evaluators in a column .* winner's curse.*not adjusted for the other rows \(--adjust holm or by\)\. Report a chosen evaluator on data it was not chosen on: `reflect-eval search-prompts`.*held-out/);
    for (const format of ['text', 'md', 'latex', 'csv'] as const) if (format !== 'csv') assert.match(exportTable(t, format), /winner/, format);
  });

  it("side by side: every configuration's columns are marked by the same rule, with the test on the file", () => {
    const t = sideBySide(items, [
      { label: 'one', options: { groupBy: 'none', human: 'experts' } },
      { label: 'two', options: { groupBy: 'none', human: 'experts', evaluators: ['metric:a.', 'metric:b.', 'metric:weak'] } },
    ]);
    assert.deepEqual(t.bestInColumn?.map((b) => [b.column, b.reason]), [
      ['0:all', 'separated'],
      ['1:all', 'not-separated'],
    ]);
  });
});
