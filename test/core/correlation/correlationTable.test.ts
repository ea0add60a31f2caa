import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { correlationTable, markBest, resolveHuman, type CorrelationRow } from '../../../src/core/correlation/correlationTable';
import { candidateGroups } from '../../../src/core/dialogue/groupBy';
import { exportTable, tableToCsv, tableToLatex, tableToMarkdown, tableToText } from '../../../src/core/correlation/correlationExport';
import { displayNames, evaluatorLegend } from '../../../src/core/evaluators/evaluatorNames';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import type { Candidate, DialogueItem } from '../../../src/core/dialogue/types';

function cand(id: string, coherentVotes: boolean[] | null, scores: Candidate['scores'], origin: Candidate['origin'] = { kind: 'model' }): Candidate {
  return {
    id,
    text: id,
    origin,
    annotations: coherentVotes === null ? [] : coherentVotes.map((v, i) => ({ annotator: `a${i}`, coherent: v })),
    scores,
  };
}

describe('correlation table: hand-worked cases', () => {
  // Coherence scores 0..3 and a judge that ranks them perfectly except for one swap.
  const items: DialogueItem[] = [
    {
      id: 'x',
      context: [],
      candidates: [
        cand('c0', [false, false, false], { j: { value: 1, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c1', [true, false, false], { j: { value: 2, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c2', [true, true, false], { j: { value: 4, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c3', [true, true, true], { j: { value: 3, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c4', [true, true, true], { j: { value: 5, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c5', null, { j: { value: 5, status: 'ok' } }),
        cand('c6', [true], { j: { value: null, status: 'unparsable', raw: 'fine' } }),
      ],
    },
  ];

  it("gives Spearman's rho over candidates that have both a usable score and a label, and says how many were left out and why", () => {
    const t = correlationTable(items, { groupBy: 'none' });
    assert.deepEqual(t.columns.map((c) => c.key), ['all']);
    assert.deepEqual(t.rows.map((r) => r.evaluatorId), ['j', 'm']);
    const j = t.rows[0].cells[0];
    assert.equal(j.n, 5);
    assert.equal(j.excluded, 2);
    assert.equal(j.missingLabel, 1); // c5
    assert.equal(j.missingScore, 1); // c6: unparsable
    // Coherence [0,1,2,3,3] → ranks [1,2,3,4.5,4.5]; judge [1,2,4,3,5] → ranks [1,2,4,3,5].
    // dx = [-2,-1,0,1.5,1.5], dy = [-2,-1,1,0,2]: Σdx·dy = 4+1+0+0+3 = 8; Σdx² = 4+1+0+2.25+2.25 = 9.5; Σdy² = 10.
    assert.ok(Math.abs((j.statistic as number) - 8 / Math.sqrt(95)) < 1e-12);
    // One dialogue context: the cluster-jackknife test has nothing to go on; scipy's p is kept beside it.
    assert.equal(j.pValue, null);
    assert.equal(j.significant, false);
    assert.ok(j.pIndependent != null && j.pIndependent > 0 && j.pIndependent < 1);
    assert.equal(correlationTable(items, { groupBy: 'none', pValue: 'independent' }).rows[0].cells[0].pValue, j.pIndependent);
    // Pearson on the raw values: x = [1,2,4,3,5] (mean 3), y = [0,1,2,3,3] (mean 1.8):
    // Σdx·dy = (-2)(-1.8)+(-1)(-0.8)+(1)(0.2)+0+(2)(1.2) = 3.6+0.8+0.2+2.4 = 7; Σdx² = 10; Σdy² = 6.8.
    const p = correlationTable(items, { groupBy: 'none', method: 'pearson' }).rows[0].cells[0];
    assert.ok(Math.abs((p.statistic as number) - 7 / Math.sqrt(68)) < 1e-12);
    // Kendall tau-b: pairs (i<j) over x=[1,2,4,3,5], y=[0,1,2,3,3]: 10 pairs; (c2,c3) discordant, (c3,c4) tied in y
    // → concordant 8, discordant 1; ties in y: 1 pair; tau-b = 7 / sqrt(10 · 9).
    const k = correlationTable(items, { groupBy: 'none', method: 'kendall' }).rows[0].cells[0];
    assert.ok(Math.abs((k.statistic as number) - 7 / Math.sqrt(90)) < 1e-12);
  });

  it('reports a constant evaluator as undefined, in every export, never as NaN', () => {
    const t = correlationTable(items, { groupBy: 'none', bootstrap: { resamples: 20, seed: 1 } });
    const m = t.rows[1].cells[0];
    assert.equal(m.statistic, null);
    assert.equal(m.undefinedReason, 'constant-input');
    assert.equal(m.best, false);
    for (const f of ['text', 'md', 'latex', 'csv'] as const) {
      const out = exportTable(t, f);
      assert.doesNotMatch(out, /NaN/, f);
      // the text output, kept within 120 columns, says "all scores equal" and explains it once in its legend
      if (f === 'text') {
        assert.match(out, /\nall scores equal = undefined: the scores or the human scores do not vary/);
        assert.match(out, /\nm +all scores equal +5 \(2\)/);
      }
      else if (f !== 'csv') assert.match(out, /all scores equal/, f);
      // the CSV keeps the machine-readable reason in its own column; no table shows the code as the cell
      if (f !== 'csv') assert.doesNotMatch(out, /undefined \(constant-input\)/, f);
    }
    assert.match(tableToCsv(t), /,constant-input,/);
  });

  it('chooses the human group: auto is the experts when an expert label exists; the reference row pairs laypeople with experts', () => {
    const mk = (ann: [string, boolean][], score: number): Candidate => ({ id: `c${score}`, text: '', origin: { kind: 'model' }, annotations: ann.map(([annotator, coherent]) => ({ annotator, coherent })), scores: { s: { value: score, status: 'ok' } } });
    const its: DialogueItem[] = [
      {
        id: 'i',
        context: [],
        candidates: [
          mk([['Expert-1', false], ['Lay-1', false]], 1),
          mk([['Expert-1', true], ['Lay-1', false]], 2),
          mk([['Expert-1', true], ['Lay-1', true]], 3),
          mk([['Expert-1', false], ['Lay-1', true]], 4),
        ],
      },
    ];
    assert.equal(resolveHuman(its, 'auto'), 'experts');
    assert.equal(resolveHuman([{ id: 'i', context: [], candidates: [cand('c', [true], {})] }], 'auto'), 'all');
    const t = correlationTable(its, { groupBy: 'none', method: 'pearson' });
    assert.equal(t.human, 'experts');
    // Expert scores [0,1,1,0] against s [1,2,3,4]: Σdx·dy with means 2.5, 0.5 = (-1.5)(-.5)+(-.5)(.5)+(.5)(.5)+(1.5)(-.5) = 0.
    assert.ok(Math.abs(t.rows[0].cells[0].statistic as number) < 1e-15);
    const lay = correlationTable(its, { groupBy: 'none', method: 'pearson', human: 'laypeople' });
    // Lay [0,0,1,1] against [1,2,3,4]: Σdxdy = 0.75+0.25+0.25+0.75 = 2, Σdx² = 5, Σdy² = 1 → 2/√5.
    assert.ok(Math.abs((lay.rows[0].cells[0].statistic as number) - 2 / Math.sqrt(5)) < 1e-12);
    // Reference: lay [0,0,1,1] vs expert [0,1,1,0] → 0.
    assert.equal(t.reference.evaluatorId, 'human:laypeople-vs-experts');
    assert.equal(t.reference.cells[0].n, 4);
    assert.ok(Math.abs(t.reference.cells[0].statistic as number) < 1e-15);
  });

  it('groups candidates by origin, decoding strategy, or any field path; duplicates count in each of their origins', () => {
    const c: Candidate = {
      id: 'c',
      text: '',
      origin: { kind: 'model', model: 'gpt2', decoding: { strategy: 'beamSearch', numBeams: 5 } },
      duplicateOrigins: [{ kind: 'model', model: 'gpt2', decoding: { strategy: 'greedy' } }],
      annotations: [],
      scores: {},
      cluster: { id: 'k1', representative: true, size: 2 },
    };
    assert.deepEqual(candidateGroups(c, 'strategy'), ['beamSearch', 'greedy']);
    assert.deepEqual(candidateGroups(c, 'origin'), ['gpt2']);
    assert.deepEqual(candidateGroups(c, 'origin.decoding.numBeams'), ['5', '(none)']);
    assert.deepEqual(candidateGroups(c, 'cluster.representative'), ['true']);
    assert.deepEqual(candidateGroups({ ...c, origin: { kind: 'api', source: 'GPT-3.5' }, duplicateOrigins: [] }, 'origin'), ['GPT-3.5']);
    assert.deepEqual(candidateGroups(c, 'none'), []);
  });

  it('marks the best cell per column by |r| or by r, ties together, never an undefined cell or a lone one', () => {
    const row = (id: string, ...stats: (number | null)[]): CorrelationRow => ({
      evaluatorId: id,
      displayName: id,
      kind: 'metric',
      cells: stats.map((s) => ({ column: 'c', n: 10, excluded: 0, missingScore: 0, missingLabel: 0, statistic: s, pValue: s === null ? null : 0.5, significant: false, best: false })),
    });
    const rows = [row('a', 0.3, -0.6, 0.2, null), row('b', 0.5, 0.4, 0.2, 0.9), row('c', 0.5, null, null, null)];
    markBest(rows, 'absolute');
    assert.deepEqual(rows.map((r) => r.cells.map((c) => c.best)), [
      [false, true, true, false],
      [true, false, true, false],
      [true, false, false, false],
    ]);
    markBest(rows, 'signed');
    assert.deepEqual(rows.map((r) => r.cells[1].best), [false, true, false]);
  });

  it('averages evaluators into a derived row (likelihood-averaged follow-ups, ICMI 2023 Table 4)', () => {
    const its: DialogueItem[] = [
      {
        id: 'i',
        context: [],
        candidates: [0, 1, 2, 3].map((k) => cand(`c${k}`, [k > 0, k > 1, k > 2], { f1: { value: k, status: 'ok' }, f2: { value: k % 2 ? 10 : -10, status: 'ok' } })),
      },
    ];
    const t = correlationTable(its, { groupBy: 'none', method: 'pearson', averages: [{ label: 'f1 & f2', members: ['f1', 'f2'] }] });
    const avg = t.rows.find((r) => r.evaluatorId === 'average:f1 & f2') as CorrelationRow;
    assert.equal(avg.displayName, 'f1 & f2');
    // Means (k ± 10)/2 = [-5, 5.5, -4, 6.5] against coherence [0,1,2,3].
    const x = [-5, 5.5, -4, 6.5];
    const mx = x.reduce((a, b) => a + b) / 4;
    const dx = x.map((v) => v - mx);
    const dy = [-1.5, -0.5, 0.5, 1.5];
    const r = dx.reduce((s, v, i) => s + v * dy[i], 0) / Math.sqrt(dx.reduce((s, v) => s + v * v, 0) * 5);
    assert.ok(Math.abs((avg.cells[0].statistic as number) - r) < 1e-12);
  });

  it('gives readable, unique display names', () => {
    const names = displayNames([
      'metric:bleu4.score@impl:nltk-3.8|tok:whitespace|rv:0.1.0',
      'metric:bleu4.score@impl:nltk-3.8|tok:13a|rv:0.1.0',
      'metric:rougeL.precision@x',
      'judge:local:bundled:reflect-gpt2-tiny:instructions×rating@3f2a9c0d11b7',
      'metric:followUpLikelihood.That makes no sense!@m',
      'metric:nmtBleu.score@impl:tensorflow-nmt|tok:13a|rv:0.1.0',
    ]);
    assert.equal(names.get('metric:bleu4.score@impl:nltk-3.8|tok:whitespace|rv:0.1.0'), 'BLEU-4 (whitespace tokens)');
    assert.equal(names.get('metric:bleu4.score@impl:nltk-3.8|tok:13a|rv:0.1.0'), 'BLEU-4 (13a tokens)');
    assert.equal(names.get('metric:rougeL.precision@x'), 'ROUGE-L (precision)');
    assert.equal(names.get('judge:local:bundled:reflect-gpt2-tiny:instructions×rating@3f2a9c0d11b7'), 'instructions × rating · reflect-gpt2-tiny');
    assert.equal(names.get('metric:followUpLikelihood.That makes no sense!@m'), 'Follow-up: That makes no sense!');
    assert.equal(names.get('metric:nmtBleu.score@impl:tensorflow-nmt|tok:13a|rv:0.1.0'), 'BLEU (nmt, HF evaluate)');
    const smoothing = displayNames(['metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0', 'metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:method1[epsilon=0.1]|rv:0.1.0']);
    assert.deepEqual([...smoothing.values()], ['BLEU-4 (no smoothing)', 'BLEU-4 (smoothing method 1, epsilon 0.1)']);
  });

  it('tells judges apart by what differs in their recorded signatures, and says when a 0.1.0 judge recorded none', () => {
    const a = 'judge:api:same-judge:instructions×rating@3f2a9c0d11b7~11111111';
    const b = 'judge:api:same-judge:instructions×rating@3f2a9c0d11b7~22222222';
    const old = 'judge:api:same-judge:instructions×rating@3f2a9c0d11b7';
    const sig = (port: number, t = 0) => `backend:openai-chat|url:http://127.0.0.1:${port}/v1|model:same-judge|temperature:${t}|maxTokens:16|logprobs:false|body:instructions|request:rating|tmpl:3f2a9c0d11b7|rv:0.1.0`;
    const names = displayNames([a, b, old], new Map([[a, sig(8001)], [b, sig(8002)]]));
    assert.equal(names.get(a), 'instructions × rating · same-judge (127.0.0.1:8001)');
    assert.equal(names.get(b), 'instructions × rating · same-judge (127.0.0.1:8002)');
    assert.equal(names.get(old), 'instructions × rating · same-judge (configuration not recorded)');
    const legend = evaluatorLegend([a, old], new Map([[a, sig(8001)]]));
    assert.deepEqual(legend[0], { name: 'instructions × rating · same-judge', id: a, signature: sig(8001) });
    assert.deepEqual(legend[1], { name: 'instructions × rating · same-judge (configuration not recorded)', id: old });
    const t = displayNames([a, b], new Map([[a, sig(8001)], [b, sig(8001, 0.7)]]));
    assert.equal(t.get(b), 'instructions × rating · same-judge (T=0.7)');
  });
});

describe('correlation table exports', () => {
  const doc = parseDocument(readFileSync(join(__dirname, '../../fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), 'utf8'), 'x.jsonl');
  const items = documentItems(doc);
  // The papers' bold (the largest value, `bestMark: 'largest'`): these tests are about the formats' marks.
  const t = correlationTable(items, { bootstrap: { resamples: 50, seed: 3 }, bestMark: 'largest' });

  it('LaTeX: booktabs, italics for p < 0.05, bold for the best, escaped names, the reference row first', () => {
    const tex = tableToLatex(t);
    assert.match(tex, /\\toprule[\s\S]*\\midrule[\s\S]*\\bottomrule/);
    assert.match(tex, /Evaluator & On GPT-2 Reflections & On GPT-3\.5 Reflections & On All Reflections \\\\/);
    assert.match(tex, /\nLaypeople--Experts Correlation & \\textit\{0\.731\}/);
    // instructions × rating is the best on GPT-2 and significant: bold around italics.
    assert.match(tex, /instructions \$\\times\$ rating \$\\cdot\$ gpt-3\.5-turbo & \\textbf\{\\textit\{0\.677\}\}/);
    // A non-significant value is plain, negative numbers use a math minus, the follow-up's apostrophe survives.
    assert.match(tex, /\nBLEU-4 & 0\.181 \{\\scriptsize \[\$-\$0\.\d{3}, 0\.\d{3}\]\}/);
    assert.doesNotMatch(tex, /[^\\]&[^ ]/);
  });

  it('Markdown and text carry the same numbers, marks and n', () => {
    const md = tableToMarkdown(t);
    assert.match(md, /\| instructions × rating · gpt-3\.5-turbo \| \*\*\*0\.677\*\*\* \[/);
    assert.match(md, /n = 89, 3 left out/);
    const text = tableToText(t);
    assert.match(text, /instructions × rating · gpt-3\.5-turbo\s+0\.677\*\^/);
    assert.match(text, /89 \(3\)/);
  });

  it('CSV: one line per cell with unrounded numbers and the interval', () => {
    const lines = tableToCsv(t).trim().split('\n');
    assert.equal(lines.length, 1 + (t.rows.length + 1) * t.columns.length);
    const header = lines[0].split(',');
    const rate = lines.find((l) => l.includes('instructions×rating') && l.includes(',GPT-2,')) as string;
    const cols = rate.split(',');
    const cell = t.rows.find((r) => r.evaluatorId.includes('instructions×rating'))?.cells[0];
    assert.equal(Number(cols[header.indexOf('statistic')]), cell?.statistic);
    assert.equal(Number(cols[header.indexOf('ci_lower')]), cell?.ci?.lower);
    assert.equal(cols[header.indexOf('best')], 'true');
  });
});
