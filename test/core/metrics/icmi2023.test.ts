/**
 * ICMI 2023 Tables 2–3 on real labels: the EvalReflections GPT-2 stage (data/evalreflections), imported with the
 * human reflection as reference, scored with the default BLEU-4, ROUGE-L and METEOR, correlated with the experts'
 * coherence score by reflection source. Compared with scripts/parity/icmi2023_reference.py (the same from the CSV
 * in plain Python: csv, NLTK 3.8, scipy 1.10) to 1e-9, and with the published numbers to their 3 decimals.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tableNotes } from '../../../src/core/correlation/correlationExport';
import { correlationTable, type CorrelationCell, type CorrelationTable } from '../../../src/core/correlation/correlationTable';
import { importAnnotationTable } from '../../../src/core/datasets/annotationImport';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { getMetric, scoreItems } from '../../../src/core/metrics';

const root = resolve(__dirname, '../../..');
type Cell = { statistic: number; pValue: number; n: number };
const reference = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'icmi2023-reference.json'), 'utf8')) as {
  published: Record<string, number>;
  spearman: Record<string, Record<string, Cell>>;
  bleu4Degenerate: Record<string, { n: number; zero: number; 'below1e-70': number }>;
};

/** The metric runs of the reference script, by its names. */
const RUNS: [string, string, string, Record<string, unknown>][] = [
  ['bleu4', 'bleu4', 'score', {}],
  ['rougeL', 'rougeL', 'f', {}],
  ['meteor', 'meteor', 'score', {}],
  ['bleu4 smoothing method1', 'bleu4', 'score', { smoothing: 'method1' }],
  ['bleu4 Treebank tokens', 'bleu4', 'score', { tokenizer: 'treebank' }],
  ['bleu4 13a tokens', 'bleu4', 'score', { tokenizer: '13a' }],
  ['meteor Treebank tokens', 'meteor', 'score', { tokenizer: 'treebank' }],
  ['rougeL Porter stemmer', 'rougeL', 'f', { stemmer: true }],
];

describe('ICMI 2023 on the EvalReflections GPT-2 stage (real expert labels)', () => {
  let items: DialogueItem[];
  const ids = new Map<string, string>();
  let table: CorrelationTable;

  before(async function () {
    this.timeout(120_000);
    items = importAnnotationTable(readFileSync(join(root, 'data', 'evalreflections', 'annotations-gpt2-stage.csv'), 'utf8'), { reference: true }).items;
    for (const [name, metric, output, config] of RUNS) {
      const res = await scoreItems(items, getMetric(metric), config);
      items = res.items;
      ids.set(name, res.evaluatorIds[getMetric(metric).outputs.findIndex((o) => o.name === output)]);
    }
    // The recomputation's p is scipy's (responses as independent), kept beside the default cluster-jackknife p.
    table = correlationTable(items, { human: 'experts', groupBy: 'source' });
  });

  it('has the release\'s responses: 107 GPT-2, 28 BART, 15 human references, each with 3 experts and 3 laypeople', () => {
    assert.deepEqual(table.columns.map((c) => [c.key, c.candidates]), [['BART', 28], ['GPT-2', 107], ['Human', 15], ['all', 150]]);
    assert.ok(items.every((it) => it.reference && it.candidates.every((c) => c.annotations.length === 6)));
  });

  it('reproduces the published GPT-2 column: laypeople–experts 0.704, BLEU-4 −0.113, ROUGE-L 0.056, METEOR −0.108', () => {
    const gpt2 = table.columns.findIndex((c) => c.key === 'GPT-2');
    const got = {
      'laypeople-experts': table.reference.cells[gpt2].statistic as number,
      bleu4: table.rows.find((r) => r.evaluatorId === ids.get('bleu4'))!.cells[gpt2].statistic as number,
      rougeL: table.rows.find((r) => r.evaluatorId === ids.get('rougeL'))!.cells[gpt2].statistic as number,
      meteor: table.rows.find((r) => r.evaluatorId === ids.get('meteor'))!.cells[gpt2].statistic as number,
    };
    for (const [k, v] of Object.entries(reference.published)) assert.equal(got[k as keyof typeof got].toFixed(3), v.toFixed(3), k);
  });

  it('equals the plain-Python recomputation (NLTK 3.8, scipy 1.10) to 1e-9 in every column, variants included', () => {
    const col = { 'GPT-2': 'GPT-2', BART: 'BART', All: 'all', Human: 'Human' } as Record<string, string>;
    for (const [name, cells] of Object.entries(reference.spearman)) {
      const row = name === 'laypeople-experts' ? table.reference : table.rows.find((r) => r.evaluatorId === ids.get(name));
      assert.ok(row, name);
      for (const [c, want] of Object.entries(cells)) {
        const cell: CorrelationCell = row.cells[table.columns.findIndex((x) => x.key === col[c])];
        assert.equal(cell.n, want.n, `${name} ${c} n`);
        assert.ok(Math.abs((cell.statistic as number) - want.statistic) < 1e-9, `${name} ${c}: ${cell.statistic} vs ${want.statistic}`);
        const scipyP = cell.pIndependent === undefined ? cell.pValue : cell.pIndependent;
        assert.ok(Math.abs((scipyP as number) - want.pValue) < 1e-9, `${name} ${c}: p ${scipyP} vs ${want.pValue}`);
      }
    }
  });

  it('leaves the 15 references out of the reference-based rows and says why once; flags every unsmoothed BLEU-4 value as degenerate', () => {
    const bleu = table.rows.find((r) => r.evaluatorId === ids.get('bleu4'))!;
    const human = table.columns.findIndex((c) => c.key === 'Human');
    assert.deepEqual([bleu.cells[human].n, bleu.cells[human].isReference, bleu.cells[human].best], [0, 15, false]);
    const notes = tableNotes(table);
    assert.equal(notes.filter((n) => n.kind === 'is-reference').length, 1);
    // every GPT-2 reflection lacks a 4-gram match: 38 share no word (exactly 0), the other 69 get the warning
    const d = reference.bleu4Degenerate['GPT-2'];
    assert.deepEqual([d.n, d['below1e-70'], d.zero], [107, 107, 38]);
    const gpt2 = table.columns.findIndex((c) => c.key === 'GPT-2');
    assert.equal(Object.values(bleu.cells[gpt2].warnings ?? {})[0], 107 - 38);
    // said once for the three unsmoothed BLEU-4 rows (whitespace, Treebank, 13a tokens)
    const warned = notes.filter((n) => n.kind === 'warning');
    assert.equal(warned.length, 1);
    assert.match(warned[0].text, /^Degenerate values: BLEU-4 /);
    assert.match(warned[0].text, /BLEU-4\b[^;—]* for 23 of the 28 responses in BART, 69 of the 107 in GPT-2 and 92 of the 135 in All/);
    assert.equal(new Set(warned[0].cells.map((c) => c.evaluatorId)).size, 3);
  });
});
