import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportTable, latexEscape, tableToLatex, tableToMarkdown } from '../../../src/core/correlation/correlationExport';
import { correlationTable, correlationTableAsync } from '../../../src/core/correlation/correlationTable';
import { exportableTable, sideBySide } from '../../../src/core/correlation/sideBySide';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';

const items = documentItems(parseDocument(readFileSync(join(__dirname, '../../fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), 'utf8'), 'x.jsonl'));
const RATE = 'judge:api:gpt-3.5-turbo:instructions×rating@a1b2c3d4e5f6';
const SCORE = 'judge:api:gpt-3.5-turbo:instructions×scoring@0f1e2d3c4b5a';

describe('side-by-side configurations', () => {
  it('puts two methods for the same response group in adjacent columns, with each table’s own numbers', () => {
    const t = sideBySide(items, [
      { label: 'rho', options: { method: 'spearman' } },
      { label: 'tau', options: { method: 'kendall' } },
    ]);
    assert.deepEqual(t.columns.map((c) => c.key), ['0:GPT-2', '1:GPT-2', '0:GPT-3.5', '1:GPT-3.5', '0:all', '1:all']);
    assert.equal(t.columns[1].label, 'GPT-2 · tau');
    const rho = correlationTable(items, { method: 'spearman' });
    const tau = correlationTable(items, { method: 'kendall' });
    const row = t.rows.find((r) => r.evaluatorId === RATE);
    assert.equal(row?.cells[0].statistic, rho.rows.find((r) => r.evaluatorId === RATE)?.cells[0].statistic);
    assert.equal(row?.cells[1].statistic, tau.rows.find((r) => r.evaluatorId === RATE)?.cells[0].statistic);
    assert.equal(t.reference.cells[3].statistic, tau.reference.cells[1].statistic);
    assert.match(tableToMarkdown(t), /Side by side: "rho" \(Spearman's rho, experts, by origin\); "tau" \(Kendall's tau-b/);
  });

  it('lines up one judge’s prompt variants in one row', () => {
    const t = sideBySide(items, [
      { label: 'rating', options: {}, variant: 'instructions×rating' },
      { label: 'scoring', options: {}, variant: 'instructions×scoring' },
    ]);
    const judge = t.rows.find((r) => r.evaluatorId === 'judge:api:gpt-3.5-turbo');
    assert.ok(judge, t.rows.map((r) => r.evaluatorId).join(', '));
    assert.equal(judge.displayName, 'gpt-3.5-turbo (judge)');
    const plain = correlationTable(items);
    const cell = (id: string, col: number) => plain.rows.find((r) => r.evaluatorId === id)?.cells[col].statistic;
    assert.equal(judge.cells[0].statistic, cell(RATE, 0)); // 0:GPT-2
    assert.equal(judge.cells[1].statistic, cell(SCORE, 0)); // 1:GPT-2
    assert.ok(!t.rows.some((r) => r.evaluatorId.includes('instructionsTutorial')), 'variants not pinned are left out');
    assert.ok(t.rows.some((r) => r.displayName === 'BLEU-4'));
    assert.match(tableToLatex(t), /GPT-2 \$\\cdot\$ rating & GPT-2 \$\\cdot\$ scoring/);
  });

  it('marks the best of each column among the rows a variant keeps, not among every variant', () => {
    const t = sideBySide(items, [{ label: 'rating', options: { bestMark: 'largest' }, variant: 'instructions×rating' }]);
    t.columns.forEach((col, c) => {
      const defined = t.rows.filter((r) => r.cells[c].statistic !== null);
      if (defined.length < 2) return;
      const top = Math.max(...defined.map((r) => Math.abs(r.cells[c].statistic as number)));
      const best = t.rows.filter((r) => r.cells[c].best);
      assert.ok(best.length > 0, `column ${col.key} has ${defined.length} defined cells and no best`);
      for (const r of best) assert.ok(Math.abs(r.cells[c].statistic as number) >= top - 1e-12, `${r.displayName} is bold in ${col.key} but not the largest`);
    });
  });

  it('escapes LaTeX in one pass: a backslash keeps its braces, a minus sign and Greek letters become math', () => {
    assert.equal(latexEscape('a\\b_{c}'), 'a\\textbackslash{}b\\_\\{c\\}');
    assert.equal(latexEscape('r(A) − r(B), ρ & τ: 5% #1 ~x^2'), 'r(A) $-$ r(B), $\\rho$ \\& $\\tau$: 5\\% \\#1 \\textasciitilde{}x\\textasciicircum{}2');
  });

  it('marks an evaluator missing from a configuration as not in it, not as a number', () => {
    const t = sideBySide(items, [
      { label: 'judges', options: { evaluators: ['judge:'] } },
      { label: 'all', options: {} },
    ]);
    const bleu = t.rows.find((r) => r.displayName === 'BLEU-4');
    assert.equal(bleu?.cells[0].undefinedReason, 'not-in-configuration');
    assert.match(tableToMarkdown(t), /\| BLEU-4 \| — /);
  });

  it('computes the same intervals cooperatively (async) as in one go, and stops when aborted', async () => {
    const opts = { bootstrap: { resamples: 40, seed: 9 } };
    const sync = correlationTable(items, opts);
    const asyncTable = await correlationTableAsync(items, opts);
    assert.deepEqual(asyncTable.rows.map((r) => r.cells.map((c) => c.ci)), sync.rows.map((r) => r.cells.map((c) => c.ci)));
    assert.deepEqual(asyncTable.reference.cells.map((c) => c.ci), sync.reference.cells.map((c) => c.ci));
    const ac = new AbortController();
    const p = correlationTableAsync(items, opts, ac.signal);
    ac.abort();
    await assert.rejects(p, /abort/i);
  });
});

describe('side by side with the human ceiling (issue 15: the correlation panel)', () => {
  it('puts the same rows as correlate --ceiling first (withCeilingRows), bootstrap included', async () => {
    const { withCeilingRows } = await import('../../../src/core/correlation/ceiling');
    const options = { method: 'spearman' as const, bootstrap: { resamples: 50, seed: 3 } };
    const cli = withCeilingRows(correlationTable(items, options), items, options);
    const t = sideBySide(items, [{ label: 'rho', options, ceiling: true }]);
    assert.equal(t.rows[0].evaluatorId, 'human:ceiling:experts');
    assert.ok(t.rows[0].cells.some((c) => c.statistic !== null), 'the fixture has a defined ceiling');
    assert.deepEqual(
      t.rows.map((r) => [r.evaluatorId, r.displayName, r.cells.map((c) => [c.statistic, c.ci?.lower, c.ci?.upper, c.n])]),
      cli.rows.map((r) => [r.evaluatorId, r.displayName, r.cells.map((c) => [c.statistic, c.ci?.lower, c.ci?.upper, c.n])]),
    );
    const off = sideBySide(items, [{ label: 'rho', options }]);
    assert.ok(!off.rows.some((r) => /^(human:ceiling|loo):/.test(r.evaluatorId)), 'no ceiling rows unless asked');
  });

  it('lines up a judge variant’s ceiling row under the judge, and the async table has the same numbers', async () => {
    const { sideBySideAsync } = await import('../../../src/core/correlation/sideBySide');
    const configs = [{ label: 'rating', options: { bootstrap: { resamples: 30, seed: 1 } }, variant: 'instructions×rating', ceiling: true }];
    const t = sideBySide(items, configs);
    const loo = t.rows.find((r) => r.evaluatorId === 'loo:experts:judge:api:gpt-3.5-turbo');
    assert.ok(loo, t.rows.map((r) => r.evaluatorId).join(', '));
    assert.equal(loo.displayName, 'gpt-3.5-turbo (judge) vs rest of experts');
    assert.ok(!t.rows.some((r) => r.evaluatorId.startsWith('loo:') && r.evaluatorId.includes('scoring')), 'other variants’ ceiling rows are left out');
    const a = await sideBySideAsync(items, configs);
    assert.deepEqual(a.rows.slice(0, 3).map((r) => r.cells.map((c) => c.statistic)), t.rows.slice(0, 3).map((r) => r.cells.map((c) => c.statistic)));
    assert.ok(a.rows[0].cells.some((c) => c.ci), 'the async table carries the ceiling intervals');
  });
});

describe('the panel’s export of one configuration', () => {
  it('equals the CLI’s table of the same settings in CSV, Markdown and LaTeX (columns keyed BART, not 0:BART)', () => {
    const options = { method: 'spearman' as const, groupBy: 'origin', adjust: 'holm' as const };
    const panel = exportableTable(sideBySide(items, [{ label: 'current', options }]));
    const cli = correlationTable(items, options);
    for (const format of ['csv', 'md', 'latex'] as const) assert.equal(exportTable(panel, format), exportTable(cli, format), format);
    assert.ok(!/(^|,)0:/m.test(exportTable(panel, 'csv')));
  });

  it('keeps the configuration in the keys of a table of two', () => {
    const t = sideBySide(items, [
      { label: 'rho', options: { method: 'spearman' } },
      { label: 'tau', options: { method: 'kendall' } },
    ]);
    assert.equal(exportableTable(t), t);
  });
});
