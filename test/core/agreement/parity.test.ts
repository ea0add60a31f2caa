import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { fleissKappa } from '../../../src/core/agreement/fleiss';
import { firstStudyAnalysis, type FirstStudyAnalysis } from '../../../src/core/agreement/firstStudy';
import { importAnnotationTable } from '../../../src/core/datasets/annotationImport';
import { ANNOTATION_TABLE_COLUMNS } from '../../../src/core/datasets/annotationColumns';

/**
 * Parity with an independent Python implementation (scripts/parity/agreement_reference.py: statsmodels 0.13.5
 * fleiss_kappa + aggregate_raters, scipy spearmanr, the derived statistics written out in plain Python) on the
 * committed synthetic table, read through our CSV importer.
 */
const root = resolve(__dirname, '../../..');
const ref = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'python-reference.json'), 'utf8'));
const tableText = readFileSync(join(root, 'data', 'annotations', 'synthetic-annotations.csv'), 'utf8');
const TOL = 1e-12;

function close(actual: number | null, expected: number | null, what: string): void {
  if (expected === null) return assert.equal(actual, null, what);
  assert.ok(actual !== null && Math.abs(actual - expected) <= TOL, `${what}: ${actual} vs ${expected} (Python)`);
}

/** The table with only the release's 12 columns: no MEE, no empathy. */
function releaseOnly(text: string): string {
  const rows: string[][] = parse(text);
  const keep = ANNOTATION_TABLE_COLUMNS.map((c) => rows[0].indexOf(c));
  return stringify(rows.map((r) => keep.map((i) => r[i])));
}

function compare(a: FirstStudyAnalysis, py: any): void {
  assert.equal(a.responses.length, py.responses);
  for (const t of a.agreement) {
    const p = py.agreement[t.group];
    assert.equal(t.raters, p.raters, `${t.group} raters`);
    assert.equal(Object.values(t.leftOut).reduce((s: number, n) => s + (n as number), 0), p.leftOut);
    for (const r of t.rows) {
      close(r.kappa, p.rows[r.key].kappa, `${t.group} ${r.label} kappa`);
      assert.equal(r.subjects, p.rows[r.key].subjects, `${t.group} ${r.label} #subjects`);
    }
  }
  for (const r of a.coherenceRates) {
    const p = py.coherenceRates[r.strategy];
    assert.deepEqual([r.responses, r.labelled, r.coherent, r.incoherent, r.noMajority], [p.responses, p.labelled, p.coherent, p.incoherent, p.noMajority], r.strategy);
    close(r.rate, p.rate, `${r.strategy} rate`);
  }
  assert.equal(a.coherenceRates.length, Object.keys(py.coherenceRates).length);
  for (const r of a.errorDistribution.rows) {
    const p = py.errorDistribution[r.strategy] ?? { incoherent: 0, counts: {} };
    assert.equal(r.incoherent, p.incoherent, r.strategy);
    for (const [k, v] of Object.entries(r.counts)) assert.equal(v, p.counts[k] ?? 0, `${r.strategy} ${k}`);
  }
  for (const g of a.groupCoherence) {
    const p = py.groupCoherence[g.strategy];
    assert.equal(g.responses, p.responses, g.strategy);
    close(g.meanLaypeople, p.meanLaypeople, `${g.strategy} mean laypeople`);
    close(g.meanExperts, p.meanExperts, `${g.strategy} mean experts`);
    close(g.meanShareLaypeople, p.meanShareLaypeople, `${g.strategy} mean share laypeople`);
    close(g.meanShareExperts, p.meanShareExperts, `${g.strategy} mean share experts`);
    close(g.spearman.statistic, p.spearman, `${g.strategy} spearman`);
    close(g.spearman.pValue, p.pValue, `${g.strategy} spearman p`);
  }
  assert.equal(a.groupCoherence.length, Object.keys(py.groupCoherence).length);
}

describe(`agreement parity with Python (statsmodels ${ref.statsmodels}, scipy ${ref.scipy})`, () => {
  it(`Fleiss' kappa of ${ref.fleiss.length} count tables (random, Fleiss 1971, degenerate) to 1e-12`, () => {
    for (const c of ref.fleiss) close(fleissKappa(c.counts).kappa, c.kappa, c.name);
  });

  it('Table 4 per group, coherence rates, MEE distributions and laypeople-vs-experts scores on the synthetic table', () => {
    const { items } = importAnnotationTable(tableText, { file: 'synthetic-annotations.csv' });
    compare(firstStudyAnalysis(items), ref.full);
  });

  it('the same on its 12 release columns only (MEEs from filling alone; no empathy)', () => {
    const { items } = importAnnotationTable(releaseOnly(tableText), { file: 'release-only.csv' });
    const a = firstStudyAnalysis(items);
    compare(a, ref.release);
    const empathy = a.agreement[0].rows.find((r) => r.key === 'empathy')!;
    assert.equal(empathy.kappa, null);
    assert.ok(Object.keys(empathy.leftOut)[0].includes('without an empathy rating'));
  });
});
