import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { renderTable, groupedCoefficientsPlainTables, ceilingPlainTable } from '../../../src/core/metaEvaluation/metaEvaluationExport';
import { agreementTable } from '../../../src/core/agreement/agreementTable';
import { altTest, evaluatorAltTest } from '../../../src/core/metaEvaluation/altTest';
import { ceilingRows, leaveOneOutCeiling } from '../../../src/core/correlation/ceiling';
import { cohenKappa } from '../../../src/core/agreement/cohenKappa';
import { agreementCoefficients, agreementCoefficientsBy } from '../../../src/core/agreement/coefficientsTable';
import { itemsBy, unitGroups } from '../../../src/core/dialogue/groupBy';
import { gwetAC1 } from '../../../src/core/agreement/gwetAC1';
import { icc } from '../../../src/core/agreement/icc';
import { krippendorffAlpha } from '../../../src/core/agreement/krippendorffAlpha';
import { lengthBias, mostlyLength, whitespaceTokenCount } from '../../../src/core/metaEvaluation/lengthBias';
import { matchRateThreshold } from '../../../src/core/metaEvaluation/majorityLabel';
import { importAnnotationTable } from '../../../src/core/datasets/annotationImport';
import type { Candidate, DialogueItem } from '../../../src/core/dialogue/types';
import { bootstrapIndices } from '../../../src/core/stats/bootstrap';
import { clusterResamples } from '../../../src/core/stats/clusterBootstrap';

const root = resolve(__dirname, '../../..');
const { items: synthetic } = importAnnotationTable(readFileSync(join(root, 'data', 'annotations', 'synthetic-annotations.csv'), 'utf8'), { file: 'synthetic-annotations.csv' });

/** Items of `n` candidates each, labelled by three experts per candidate; `label(i, j, a)` gives expert a's label. */
function labelled(nItems: number, perItem: number, label: (i: number, j: number, a: number) => boolean, score?: (i: number, j: number) => number, text?: (i: number, j: number) => string): DialogueItem[] {
  return Array.from({ length: nItems }, (_, i) => ({
    id: `item${i}`,
    context: [],
    candidates: Array.from({ length: perItem }, (_, j): Candidate => ({
      id: `c${j}`,
      text: text ? text(i, j) : 'a b c',
      origin: { kind: 'model', source: 'M' },
      annotations: [0, 1, 2].map((a) => ({ annotator: `Expert ${((i + a) % 5) + 1}`, coherent: label(i, j, a) })),
      scores: score ? { 'judge:x:b×r@h': { value: score(i, j), status: 'ok' } } : {},
    })),
  }));
}

describe('agreement grouped by a field (reflect-eval agreement --by stage)', () => {
  it('finds the stage of imported items, and candidate fields first', () => {
    const it = synthetic[0];
    assert.deepEqual(unitGroups(it, it.candidates[0], 'stage'), [String(it.provenance?.stage)]);
    assert.deepEqual(unitGroups(it, it.candidates[0], 'item.provenance.stage'), [String(it.provenance?.stage)]);
    assert.deepEqual(unitGroups(it, it.candidates[0], 'source'), [String(it.candidates[0].origin.source)]);
    assert.deepEqual(unitGroups(it, it.candidates[0], 'no.such.field'), ['(none)']);
  });

  it("per stage, Fleiss' kappa equals Table 4 on that stage alone, and differs from the pooled kappa", () => {
    const parts = itemsBy(synthetic, 'stage');
    assert.deepEqual(parts.map((p) => p.key).sort(), ['GPT-2 stage', 'GPT-3 stage']);
    const grouped = agreementCoefficientsBy(synthetic, 'stage');
    const pooled = agreementTable(synthetic, { group: 'experts' }).rows[0].kappa;
    for (const p of parts) {
      const expected = agreementTable(p.items, { group: 'experts' }).rows[0].kappa;
      const t = grouped.groups.find((g) => g.key === p.key)!.tables.find((x) => x.group === 'experts')!;
      assert.equal(t.rows[0].key, 'coherence');
      assert.ok(Math.abs((t.rows[0].fleiss.kappa as number) - (expected as number)) < 1e-12, p.key);
      assert.notEqual(t.rows[0].fleiss.kappa, pooled);
    }
  });

  it('gives alpha and AC1 beside kappa for coherence, each chosen error, the MEE and empathy (ordinal alpha, one-way ICC)', () => {
    const t = agreementCoefficients(synthetic, { group: 'all', bootstrap: { resamples: 50, seed: 2 } });
    const keys = t.rows.map((r) => r.key);
    assert.equal(keys[0], 'coherence');
    assert.ok(keys.includes('mostEvidentError') && keys.includes('empathy') && keys.some((k) => k.startsWith('error:')));
    for (const k of t.neverChosen) assert.ok(!keys.includes(`error:${k}`));
    const empathy = t.rows.find((r) => r.key === 'empathy')!;
    assert.equal(empathy.level, 'ordinal');
    assert.equal(empathy.icc?.model, 'one-way', 'different annotators rate different responses');
    for (const r of t.rows) {
      assert.ok(r.alpha.ci && r.ac1.ci, r.key);
      if (r.alpha.alpha !== null && r.alpha.ci.lower !== null) assert.ok(r.alpha.ci.lower <= r.alpha.ci.upper!);
    }
    const same = agreementCoefficients(synthetic, { group: 'all', bootstrap: { resamples: 50, seed: 2 } });
    assert.deepEqual(same.rows.map((r) => r.alpha.ci), t.rows.map((r) => r.alpha.ci), 'seeded');
  });

  it('exports the tables as text, Markdown, LaTeX and CSV with every number', () => {
    const g = agreementCoefficientsBy(synthetic, 'stage', { groups: ['experts'], bootstrap: { resamples: 20, seed: 1 } });
    const tables = groupedCoefficientsPlainTables(g);
    assert.equal(tables.length, 2);
    const csv = renderTable(tables[0], 'csv');
    assert.match(csv.split('\n')[0], /Krippendorff's alpha ci_lower/);
    const alpha = g.groups[0].tables[0].rows[0].alpha.alpha as number;
    assert.ok(csv.includes(String(alpha)), 'unrounded alpha in the CSV');
    assert.match(renderTable(tables[0], 'latex'), /\\toprule[\s\S]*\\bottomrule/);
    assert.match(renderTable(tables[0], 'md'), /^\*\*Agreement coefficients — experts/);
    const compact = groupedCoefficientsPlainTables(agreementCoefficientsBy(synthetic, 'stage', { groups: ['all'], bootstrap: { resamples: 20, seed: 1 } }), { compact: true });
    assert.match(compact[0].notes.join(' '), /Empathetic\? \(1–5\): ICC\(1,1\) = /);
    for (const line of renderTable(compact[0], 'text').split('\n').filter((l) => !l.startsWith('note') && !l.startsWith('Agreement'))) assert.ok(line.length <= 120, line);
  });
});

describe('coefficient edge cases', () => {
  it('all agree: alpha 1 and AC1 1; one category: alpha undefined, AC1 1, kappa undefined', () => {
    assert.equal(krippendorffAlpha([['a', 'a'], ['b', 'b']]).alpha, 1);
    assert.equal(gwetAC1([['a', 'a'], ['b', 'b']]).ac1, 1);
    assert.equal(krippendorffAlpha([['a', 'a'], ['a', 'a']]).undefinedReason, 'one value');
    assert.equal(gwetAC1([['a', 'a'], ['a', 'a']], { categories: ['a', 'b'] }).ac1, 1);
    assert.equal(cohenKappa(['a', 'a'], ['a', 'a']).undefinedReason, 'no expected disagreement');
  });

  it('rejects ragged data, out-of-scale values and text on an interval scale', () => {
    assert.throws(() => krippendorffAlpha([[1, 2], [1]]), /unit 1 has 1 coders/);
    assert.throws(() => gwetAC1([['x', 'y']], { categories: ['x'] }), /not one of the categories/);
    assert.throws(() => krippendorffAlpha([['x', 'y']], { level: 'interval' }), /needs an ordered value domain/);
    assert.throws(() => icc([[1, Infinity]]), /finite number/);
  });

  it("Cohen's kappa has a seeded cluster-bootstrap interval over the units both rated", () => {
    const a = ['x', 'y', 'x', 'y', 'x', null, 'y', 'x'];
    const b = ['x', 'y', 'y', 'y', 'x', 'x', 'x', 'x'];
    const clusters = ['i1', 'i1', 'i2', 'i2', 'i3', 'i3', 'i4', 'i4'];
    const k = cohenKappa(a, b, { bootstrap: { resamples: 200, seed: 5, clusters } });
    assert.equal(k.units, 7);
    assert.equal(k.leftOut, 1);
    assert.ok(k.ci && k.ci.lower !== null && k.ci.lower <= (k.kappa as number) && (k.kappa as number) <= (k.ci.upper as number));
    assert.deepEqual(cohenKappa(a, b, { bootstrap: { resamples: 200, seed: 5, clusters } }).ci, k.ci);
    assert.throws(() => cohenKappa(a, b, { bootstrap: { resamples: 2, seed: 1, clusters: ['x'] } }), /clusters has 1 entries for 8 units/);
  });

  it('ICC leaves out incomplete subjects and says why it is undefined', () => {
    const r = icc([[1, 2], [2, null], [3, 3]]);
    assert.equal(r.leftOut, 1);
    assert.equal(r.subjects, 2);
    assert.equal(icc([[1, 2]]).undefinedReason, 'too few subjects');
  });

  it('the cluster bootstrap keeps a cluster together and equals the item bootstrap without clusters', () => {
    assert.deepEqual(clusterResamples(5, { resamples: 3, seed: 4 }), bootstrapIndices(5, 3, 4));
    const draws = clusterResamples(5, { resamples: 20, seed: 4, clusters: ['a', 'a', 'b', 'c', 'c'] });
    for (const d of draws) {
      const list = [...d];
      for (let i = 0; i < list.length; i++) if (list[i] === 0) assert.equal(list[i + 1], 1);
    }
  });
});

describe('the alt-test', () => {
  const humans = (n: number, flip: (h: number, i: number) => boolean) =>
    Object.fromEntries([0, 1, 2].map((h) => [`h${h}`, Object.fromEntries(Array.from({ length: n }, (_, i) => [`i${i}`, (i % 3 === 0) !== flip(h, i)]))]));

  it('an evaluator that always gives the truth beats noisy annotators; one that is always wrong fails', () => {
    const hs = humans(60, (h, i) => (i + h) % 5 === 0);
    const truth = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`i${i}`, i % 3 === 0]));
    const wrong = Object.fromEntries(Object.entries(truth).map(([k, v]) => [k, !v]));
    const good = altTest(hs, truth);
    assert.equal(good.passed, true);
    assert.equal(good.winningRate, 1);
    const bad = altTest(hs, wrong);
    assert.equal(bad.passed, false);
    assert.equal(bad.winningRate, 0);
    assert.ok((good.advantageProbability as number) > (bad.advantageProbability as number));
  });

  it('skips annotators with too few instances, and validates ε and q', () => {
    const hs = humans(20, () => false);
    const res = altTest(hs, Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`i${i}`, true])));
    assert.equal(res.winningRate, null);
    assert.equal(res.skipped.length, 3);
    assert.throws(() => altTest(hs, {}, { epsilon: 1 }), /epsilon/);
    assert.throws(() => altTest(hs, {}, { alpha: 0 }), /alpha/);
  });

  it('on dialogue items: match-rate threshold, the reference self-score of a metric left out', () => {
    const items = labelled(12, 5, (i, j, a) => (j + a) % 4 !== 0, (i, j) => j);
    const r = evaluatorAltTest(items, 'judge:x:b×r@h', { group: 'experts', minInstancesPerHuman: 5 });
    assert.equal(r.threshold, matchRateThreshold(items.flatMap((it) => it.candidates.map((_, j) => j)), r.coherentShare as number));
    assert.ok(r.result.annotators.length > 0);
    assert.equal(matchRateThreshold([1, 2, 3, 4], 0.5), 3);
    assert.equal(matchRateThreshold([1, 1, 2, 2], 0.6), 2, 'closest share, the larger threshold on a tie');
  });
});

describe('the human ceiling and length bias', () => {
  it('an evaluator equal to the rest-of-group target reaches 1; the ceiling matches a hand computation', () => {
    const items = labelled(10, 6, (i, j, a) => (i * 7 + j * 3 + a * 5) % 4 !== 0);
    // Give each candidate a score equal to its experts' share of "coherent": every annotator's rest score is a
    // monotone function of it only when the annotator agrees, so the evaluator is at least as good as the ceiling.
    for (const it of items) for (const c of it.candidates) c.scores['judge:x:b×r@h'] = { value: c.annotations.filter((a) => a.coherent).length, status: 'ok' };
    const t = leaveOneOutCeiling(items, { group: 'experts', evaluators: ['judge:x:b×r@h'], bootstrap: { resamples: 100, seed: 1 } });
    assert.equal(t.rows[0].kind, 'ceiling');
    assert.equal(t.rows[0].annotators, 5);
    assert.ok((t.rows[1].mean as number) > (t.rows[0].mean as number));
    assert.ok(t.rows[1].difference?.ci?.lower !== undefined);
    const text = renderTable(ceilingPlainTable(t), 'text');
    assert.match(text, /Expert vs rest of experts \(ceiling\)/);
    const rows = ceilingRows(items, { group: 'experts', evaluators: ['judge:x:b×r@h'] });
    assert.deepEqual(rows.map((r) => r.evaluatorId), ['human:ceiling:experts', 'loo:experts:judge:x:b×r@h']);
    assert.deepEqual(rows[0].cells.map((c) => c.column), ['M', 'all']);
    assert.equal(rows[0].cells[1].statistic, t.rows[0].mean);
  });

  it('flags an evaluator that is only length, not one that tracks the humans', () => {
    const items = labelled(12, 6, (i, j, a) => (i + j + a) % 3 !== 0, (i, j) => j, (i, j) => 'w '.repeat(3 + ((i * 5 + j * 7) % 11)));
    for (const it of items) for (const c of it.candidates) {
      c.scores['metric:len.score@x'] = { value: whitespaceTokenCount(c.text), status: 'ok' };
      c.scores['judge:h:b×r@h'] = { value: c.annotations.filter((a) => a.coherent).length + 0.001 * whitespaceTokenCount(c.text), status: 'ok' };
    }
    // Make the humans like long responses a little, so length carries agreement.
    const t = lengthBias(items, { evaluators: ['metric:len.score@x', 'judge:h:b×r@h'], human: 'experts' });
    const [len, judge] = t.rows;
    assert.ok(Math.abs((len.evaluatorLength.statistic as number) - 1) < 1e-12);
    assert.equal(len.partial.statistic, null, 'collinear with length: undefined partial correlation');
    assert.equal(judge.flagged, false);
    assert.equal(mostlyLength(0.4, 0.1), true);
    assert.equal(mostlyLength(0.4, -0.3), true);
    assert.equal(mostlyLength(0.4, 0.3), false);
    assert.equal(mostlyLength(0.05, 0), false);
    assert.equal(whitespaceTokenCount('  a  b\tc\n'), 3);
  });
});
