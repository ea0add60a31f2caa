import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cellPoints, correlationData, correlationTable, type CorrelationTable } from '../../../src/core/correlation/correlationTable';
import { escapeXml, forestPlotSvg, stripPlotSvg, wrapName } from '../../../src/core/correlation/forestPlot';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';

const FIXTURE = join(__dirname, '../../fixtures/correlation/evalreflections-synthetic.dialogues.jsonl');

interface Element {
  name: string;
  attrs: Record<string, string>;
  text: string;
  children: Element[];
}

/**
 * A strict little XML reader for the plot's output: fails on unbalanced tags, a raw `<`/`&` in text or attributes,
 * or an unknown entity — so a name that is not escaped breaks the test.
 */
function parseXml(xml: string): Element {
  const root: Element = { name: '#root', attrs: {}, text: '', children: [] };
  const stack = [root];
  const entity = (s: string) => {
    assert.doesNotMatch(s.replace(/&(amp|lt|gt|quot|apos);/g, ''), /[&<]/, `unescaped text: ${s}`);
    return s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e] as string);
  };
  const re = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let pos = 0;
  while ((m = re.exec(xml))) {
    pos = re.lastIndex;
    const [, close, name, attrText, selfClose, text] = m;
    const top = stack[stack.length - 1];
    if (text !== undefined) {
      top.text += entity(text);
      continue;
    }
    if (close) {
      assert.equal(top.name, name, `</${name}> closes <${top.name}>`);
      stack.pop();
      continue;
    }
    const attrs: Record<string, string> = {};
    for (const a of attrText.matchAll(/([\w:-]+)="([^"]*)"/g)) attrs[a[1]] = entity(a[2]);
    const el: Element = { name, attrs, text: '', children: [] };
    top.children.push(el);
    if (!selfClose) stack.push(el);
  }
  assert.equal(pos, xml.length, `unparsed from ${pos}: ${xml.slice(pos, pos + 40)}`);
  assert.equal(stack.length, 1, 'every element closed');
  assert.equal(root.children.length, 1);
  return root.children[0];
}

function all(e: Element, pred: (e: Element) => boolean, out: Element[] = []): Element[] {
  if (pred(e)) out.push(e);
  for (const c of e.children) all(c, pred, out);
  return out;
}
const hasClass = (e: Element, c: string) => (e.attrs.class ?? '').split(/\s+/).includes(c);
const textOf = (e: Element): string => e.text + e.children.filter((c) => c.name !== 'title').map(textOf).join('');

/** The name a row draws: its text's lines (tspans) joined by spaces, the `<title>` left out. */
const drawnName = (row: Element): string => {
  const text = all(row, (e) => e.name === 'text')[0];
  const spans = text.children.filter((c) => c.name === 'tspan');
  return (spans.length ? spans.map((t) => t.text).join(' ') : text.text).trim();
};

describe('forest plot (SVG, no DOM)', () => {
  let table: CorrelationTable;
  before(() => {
    const items = documentItems(parseDocument(readFileSync(FIXTURE, 'utf8'), 'fixture.dialogues.jsonl'));
    table = correlationTable(items, { bootstrap: { resamples: 200, seed: 1 } });
    assert.ok(table.rows.length >= 3 && table.columns.length >= 2, 'a fixture with several evaluators and groups');
  });

  it('draws one row per evaluator, with its readable name, and one panel per group', () => {
    const svg = parseXml(forestPlotSvg(table));
    assert.equal(svg.name, 'svg');
    assert.equal(svg.attrs.xmlns, 'http://www.w3.org/2000/svg');
    const rows = all(svg, (e) => e.name === 'g' && hasClass(e, 'row'));
    assert.deepEqual(rows.map((r) => r.attrs['data-evaluator']), table.rows.map((r) => r.evaluatorId));
    rows.forEach((r, i) => {
      const name = drawnName(r);
      assert.equal(name.replace(/\s+/g, ''), table.rows[i].displayName.replace(/\s+/g, ''), 'the whole name is drawn');
      assert.ok(!name.includes('@'), 'a readable name, not the id');
    });
    const panels = all(svg, (e) => e.name === 'g' && hasClass(e, 'panel'));
    assert.deepEqual(panels.map((p) => p.attrs['data-column']), table.columns.map((c) => c.key));
  });

  it('places each point at its correlation and its whiskers at its interval, on a shared −1…1 axis', () => {
    const svg = parseXml(forestPlotSvg(table, { panelWidth: 224 }));
    // x = 12 + (v + 1) / 2 * 200 inside each panel
    const x = (v: number) => Math.round((12 + ((v + 1) / 2) * 200) * 10) / 10;
    let checked = 0;
    for (const [k, col] of table.columns.entries()) {
      const panel = all(svg, (e) => hasClass(e, 'panel') && e.attrs['data-column'] === col.key)[0];
      for (const r of table.rows) {
        const c = r.cells[k];
        const mark = all(panel, (e) => hasClass(e, 'cell') && e.attrs['data-evaluator'] === r.evaluatorId)[0];
        if (c.statistic === null) {
          assert.ok(mark && !all(mark, (e) => e.name === 'circle').length, 'an undefined cell has no point');
          assert.match(textOf(mark), /all scores equal|too few/);
          continue;
        }
        const circle = all(mark, (e) => e.name === 'circle')[0];
        assert.equal(Number(circle.attrs.cx), x(c.statistic), `${r.displayName} in ${col.key}`);
        assert.equal(hasClass(circle, 'significant'), c.significant);
        const whiskers = all(mark, (e) => hasClass(e, 'whisker'));
        if (c.ci && c.ci.lower !== null && c.ci.upper !== null) {
          assert.equal(Number(whiskers[0].attrs.x1), x(c.ci.lower));
          assert.equal(Number(whiskers[0].attrs.x2), x(c.ci.upper));
          checked++;
        }
        assert.match(all(mark, (e) => e.name === 'title')[0].text, new RegExp(`n = ${c.n}`));
      }
    }
    assert.ok(checked > 0, 'some intervals drawn');
  });

  it('draws the laypeople–experts row as a dashed reference line per group, not as a row', () => {
    const svg = parseXml(forestPlotSvg(table));
    const lines = all(svg, (e) => e.name === 'line' && hasClass(e, 'reference'));
    const defined = table.reference.cells.filter((c) => c.statistic !== null);
    assert.equal(lines.length, defined.length);
    assert.ok(lines.length > 0);
    const style = all(svg, (e) => e.name === 'style')[0].text;
    assert.match(style, /\.reference \{[^}]*stroke-dasharray/);
    assert.ok(!all(svg, (e) => hasClass(e, 'row')).some((r) => r.attrs['data-evaluator'] === table.reference.evaluatorId));
  });

  it('keeps full evaluator names in an exported file: two names sharing a long prefix never read the same (issue 41 item 5)', () => {
    const t: CorrelationTable = JSON.parse(JSON.stringify(table));
    const a = 'instructions-error-explanations × rating · reflect-gpt2-tiny';
    const b = 'instructions-error-explanations × rating · reflect-gpt2-small';
    t.rows[0].displayName = a;
    t.rows[1].displayName = b;
    // As the panel's Export SVG writes it (and reflect-eval correlate --plot), and with a narrow name column.
    for (const options of [{ background: '#ffffff' }, { background: '#ffffff', labelWidth: 140 }]) {
      const text = forestPlotSvg(t, options);
      const svg = parseXml(text);
      const rows = all(svg, (e) => hasClass(e, 'row'));
      const names = rows.map(drawnName);
      assert.equal(names[0].replace(/\s+/g, ''), a.replace(/\s+/g, ''), `${names[0]} (${JSON.stringify(options)})`);
      assert.equal(names[1].replace(/\s+/g, ''), b.replace(/\s+/g, ''), names[1]);
      assert.notEqual(names[0], names[1]);
      assert.ok(!names.some((n) => n.includes('…')), 'no name shortened');
      // Every line of a name inside the drawing's width.
      const width = Number(svg.attrs.width);
      for (const r of rows) for (const tspan of all(r, (e) => e.name === 'tspan')) assert.ok(tspan.text.length * 6.6 + 8 <= (options.labelWidth ?? width), tspan.text);
      // Rows do not overlap: each row's background starts where the one before ends.
      const bgs = rows.map((r) => all(r, (e) => hasClass(e, 'row-bg'))[0].attrs);
      for (let i = 1; i < bgs.length; i++) assert.equal(Number(bgs[i].y), Number(bgs[i - 1].y) + Number(bgs[i - 1].height));
      // Each point sits in the middle of its (taller) row.
      const mark = all(svg, (e) => hasClass(e, 'cell') && e.attrs['data-evaluator'] === t.rows[1].evaluatorId).find((m) => all(m, (e) => e.name === 'circle').length);
      if (mark) assert.equal(Number(all(mark, (e) => e.name === 'circle')[0].attrs.cy), Number(bgs[1].y) + Number(bgs[1].height) / 2);
    }
  });

  it('wraps a name at spaces and cuts only a word longer than a line', () => {
    assert.deepEqual(wrapName('BLEU-4', 20), ['BLEU-4']);
    assert.deepEqual(wrapName('instructions × rating · reflect-gpt2-tiny', 22), ['instructions × rating', '· reflect-gpt2-tiny']);
    assert.deepEqual(wrapName('abcdefghij', 4), ['abcd', 'efgh', 'ij']);
    assert.deepEqual(wrapName('', 5), ['']);
    for (const line of wrapName('instructions-error-explanations × rating · reflect-gpt2-small', 19)) assert.ok(line.length <= 19, line);
  });

  it('escapes names, ids and group labels', () => {
    const evil: CorrelationTable = JSON.parse(JSON.stringify(table));
    evil.rows[0].displayName = 'A <b>bold</b> & "quoted" judge';
    evil.rows[0].evaluatorId = 'judge:x:<y>&"z"';
    evil.columns[0].label = 'group <1> & 2';
    const text = forestPlotSvg(evil);
    const svg = parseXml(text);
    const row = all(svg, (e) => hasClass(e, 'row'))[0];
    assert.equal(row.attrs['data-evaluator'], 'judge:x:<y>&"z"');
    assert.ok(textOf(row).includes('A <b>bold</b>'), 'the name reads as written once unescaped');
    assert.ok(!text.includes('<b>'));
    assert.equal(escapeXml(`<&>"'`), '&lt;&amp;&gt;&quot;&apos;');
  });

  it('says "all scores equal" for a constant evaluator instead of drawing a point', () => {
    const t: CorrelationTable = JSON.parse(JSON.stringify(table));
    Object.assign(t.rows[1].cells[0], { statistic: null, pValue: null, undefinedReason: 'constant-input', ci: undefined });
    const svg = parseXml(forestPlotSvg(t));
    const mark = all(svg, (e) => hasClass(e, 'cell') && e.attrs['data-evaluator'] === t.rows[1].evaluatorId && e.attrs['data-column'] === t.columns[0].key)[0];
    assert.equal(textOf(mark).trim(), 'all scores equal');
    assert.match(all(mark, (e) => e.name === 'title')[0].text, /same for every response/);
  });

  it('draws a strip plot of the very responses a cell correlates, each point naming its item and candidate', () => {
    const items = documentItems(parseDocument(readFileSync(FIXTURE, 'utf8'), 'fixture.dialogues.jsonl'));
    const data = correlationData(items, {});
    const plain = correlationTable(items, {});
    const row = plain.rows[0];
    const panels = data.columns.map((c) => ({ column: c.key, label: c.label, points: cellPoints(data, row.evaluatorId, c.key) }));
    panels.forEach((p, k) => assert.equal(p.points.length, row.cells[k].n, `${p.column}: as many points as the cell's n`));
    const byId = new Map(items.map((it) => [it.id, it]));
    for (const q of panels.at(-1)!.points.slice(0, 20)) {
      const c = byId.get(q.itemId)!.candidates.find((x) => x.id === q.candidateId)!;
      assert.equal(c.scores[row.evaluatorId].value, q.score);
    }
    const svg = parseXml(stripPlotSvg('BLEU <4>', panels));
    const pts = all(svg, (e) => e.name === 'circle' && hasClass(e, 'pt'));
    assert.equal(pts.length, panels.reduce((n, p) => n + p.points.length, 0));
    assert.equal(pts[0].attrs['data-item'], panels[0].points[0].itemId);
    assert.equal(pts[0].attrs['data-candidate'], panels[0].points[0].candidateId);
    assert.ok(all(svg, (e) => e.name === 'text').some((t) => t.text.startsWith('BLEU <4>: score')));
    // higher scores sit higher (smaller y)
    const ys = panels[0].points.map((q, i) => [q.score, Number(pts[i].attrs.cy)] as const);
    for (const [a, ya] of ys) for (const [b, yb] of ys) if (a > b) assert.ok(ya <= yb, `${a} at ${ya}, ${b} at ${yb}`);
  });
});
