import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');

/** The grammar's rules as JavaScript regular expressions (its patterns use no Oniguruma-only syntax). */
function rules(): Record<string, RegExp> {
  const g = JSON.parse(readFileSync(join(root, 'syntaxes/mustache.tmLanguage.json'), 'utf8'));
  return Object.fromEntries(Object.entries(g.repository as Record<string, { match?: string; begin?: string }>).map(([k, r]) => [k, new RegExp(r.match ?? r.begin ?? '', 'g')]));
}

/** The first rule (in the grammar's order) that matches at each tag of `line`. */
function classify(line: string): [string, string][] {
  const g = JSON.parse(readFileSync(join(root, 'syntaxes/mustache.tmLanguage.json'), 'utf8'));
  const order = (g.patterns as { include: string }[]).map((p) => p.include.slice(1));
  const r = rules();
  const out: [string, string][] = [];
  let i = 0;
  while ((i = line.indexOf('{{', i)) >= 0) {
    const hit = order.map((name) => {
      const re = new RegExp(r[name].source, 'y');
      re.lastIndex = i;
      const m = re.exec(line);
      return m ? ([name, m[0]] as [string, string]) : null;
    }).find(Boolean);
    assert.ok(hit, `no rule at ${line.slice(i)}`);
    out.push(hit);
    i += hit[1].length;
  }
  return out;
}

describe('.mustache language contribution', () => {
  it('is contributed with a grammar and language configuration that exist and are shipped', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    const lang = pkg.contributes.languages.find((l: { id: string }) => l.id === 'mustache');
    assert.deepEqual(lang.extensions, ['.mustache']);
    const grammar = pkg.contributes.grammars.find((g: { language: string }) => g.language === 'mustache');
    assert.ok(existsSync(join(root, grammar.path)) && existsSync(join(root, lang.configuration)));
    assert.equal(JSON.parse(readFileSync(join(root, grammar.path), 'utf8')).scopeName, grammar.scopeName);
    assert.match(readFileSync(join(root, '.vscodeignore'), 'utf8'), /^!syntaxes\/\*\*$/m);
  });

  it('tells partials, sections, unescaped values, comments and variables apart', () => {
    assert.deepEqual(classify('{{> A-task-overview}} {{#dialogue}}{{role}}: {{{text}}}{{/dialogue}} {{^x}}{{& y}}{{/x}} {{! note }} {{=<% %>=}}'), [
      ['partial', '{{> A-task-overview}}'],
      ['section', '{{#dialogue}}'],
      ['variable', '{{role}}'],
      ['unescaped', '{{{text}}}'],
      ['section', '{{/dialogue}}'],
      ['section', '{{^x}}'],
      ['unescaped', '{{& y}}'],
      ['section', '{{/x}}'],
      ['comment', '{{!'],
      ['delimiters', '{{=<% %>=}}'],
    ]);
    // every bundled template's tags are recognised
    for (const dir of ['bodies', 'requests', 'parts']) {
      for (const f of ['instructions', 'rating', 'D-dialogue-and-response']) {
        const file = join(root, 'prompts', dir, `${f}.mustache`);
        if (existsSync(file)) for (const line of readFileSync(file, 'utf8').split('\n')) classify(line);
      }
    }
  });
});
