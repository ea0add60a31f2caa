import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseJudgeReply } from '../../../src/core/judges/parseReply';
import { assemblePrompt, loadPromptLibrary, PromptTemplateError, templateHash } from '../../../src/core/templates/judgePrompt';
import type { Turn } from '../../../src/core/dialogue/types';

const bundled = resolve(__dirname, '../../../prompts');
const context: Turn[] = [
  { speaker: 'client', text: 'Well, I know, like, they say not to.' },
  { speaker: 'therapist', text: 'So, you were thinking it must be okay.' },
  { speaker: 'client', text: 'Yeah.' },
];

describe('judge prompts (ICMI 2023 Appendix A)', () => {
  it('assembles Instructions (Parts A + D) + Rating exactly as Tables 6-7 lay them out', () => {
    const p = assemblePrompt(loadPromptLibrary(bundled), { body: 'instructions', request: 'rating' }, context, 'And part of you thinks it is not okay.');
    assert.equal(
      p.text,
      [
        'Task overview: evaluate the quality of a Response Candidate for a multi-turn Dialogue',
        '',
        'Definitions',
        '1) "Dialogue": Part of a multi-turn conversation between a therapist and a client',
        '2) "Response Candidate": A response candidate that the therapist could say to the client after the last turn in the Dialogue',
        'Note: You may notice some self-repetitions and/or mid-sentence changes within a turn. This is normal, as the text is captured from spoken dialogues.',
        '',
        'Task',
        'Dialogue',
        'Client: Well, I know, like, they say not to.',
        'Therapist: So, you were thinking it must be okay.',
        'Client: Yeah.',
        'Response Candidate',
        'Therapist: And part of you thinks it is not okay.',
        '',
        'Rating',
        'Rate the Response Candidate on a discrete scale from 1 to 5, where a rating of 1 means "completely incoherent and/or inconsistent with the Dialogue" and a rating of 5 means "perfectly coherent and consistent with the Dialogue".',
        'Rating (1-5):',
      ].join('\n'),
    );
    assert.deepEqual(p.spec, { description: p.spec.description, min: 1, max: 5, integer: true });
    assert.match(p.templateHash, /^[0-9a-f]{12}$/);
  });

  it('inserts text verbatim (no HTML escaping)', () => {
    const p = assemblePrompt(loadPromptLibrary(bundled), { body: 'instructions', request: 'rating' }, [{ speaker: 'client', text: 'I said "no" & <meant> it' }], "You're sure?");
    assert.ok(p.text.includes('Client: I said "no" & <meant> it'));
    assert.ok(p.text.includes("Therapist: You're sure?"));
  });

  it('lets a workspace folder override a template, which changes the hash', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prompts-'));
    mkdirSync(join(dir, 'requests'));
    writeFileSync(join(dir, 'requests', 'rating.mustache'), 'Your rating (1-5):\n');
    writeFileSync(join(dir, 'requests', 'rating.json'), '{"min": 1, "max": 5, "integer": true}');
    const base = loadPromptLibrary(bundled);
    const over = loadPromptLibrary(bundled, dir);
    const v = { body: 'instructions', request: 'rating' };
    assert.notEqual(templateHash(base, v), templateHash(over, v));
    assert.ok(assemblePrompt(over, v, context, 'x').text.endsWith('\n\nYour rating (1-5):'));
  });

  it('names file and line of an unknown placeholder or part', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prompts-'));
    mkdirSync(join(dir, 'bodies'));
    writeFileSync(join(dir, 'bodies', 'broken.mustache'), 'line one\nline two {{respnse}}\n');
    writeFileSync(join(dir, 'bodies', 'nopart.mustache'), '\n\n{{> B-errors}}\n');
    const lib = loadPromptLibrary(bundled, dir);
    assert.throws(
      () => assemblePrompt(lib, { body: 'broken', request: 'rating' }, context, 'x'),
      (e: unknown) => e instanceof PromptTemplateError && e.line === 2 && e.file.endsWith('broken.mustache') && /unknown placeholder "respnse"/.test(e.message),
    );
    assert.throws(() => assemblePrompt(lib, { body: 'nopart', request: 'rating' }, context, 'x'), /nopart\.mustache:3: unknown part "\{\{> B-errors\}\}"/);
    assert.throws(() => assemblePrompt(lib, { body: 'tutorial', request: 'rating' }, context, 'x'), /no task body "tutorial"/);
  });
});

describe('judge reply parsing', () => {
  const rating = { min: 1, max: 5, integer: true };
  const scoring = { min: 0, max: 100, integer: false };
  const cases: [string, typeof rating, number | null][] = [
    ['4', rating, 4],
    [' 5.', rating, 5],
    ['Rating (1-5): 3', rating, 3],
    ['I would rate it 2/5 because…', rating, 2],
    ['Score (0-100): 87.5', scoring, 87.5],
    ['0', scoring, 0],
    ['3.5', rating, null],
    ['6', rating, null],
    ['The response is coherent.', rating, null],
    ['', rating, null],
    ['-1', scoring, null],
  ];
  for (const [raw, spec, want] of cases) {
    it(`${JSON.stringify(raw)} → ${want}`, () => {
      const r = parseJudgeReply(raw, spec);
      assert.equal(r.value, want);
      assert.equal(r.status, want === null ? 'unparsable' : 'ok');
      if (want === null) assert.ok(r.message);
    });
  }
});

describe('the ICMI 2023 prompt matrix (3 task bodies × 2 requests)', () => {
  const lib = loadPromptLibrary(bundled);
  const bodies = ['instructions', 'instructions-error-explanations', 'instructions-tutorial'];
  it('assembles all six variants with the parts each body type names (§2.4.1)', () => {
    const has = (t: string) => ({
      A: t.startsWith('Task overview: evaluate the quality'),
      B: t.includes('Incoherence and Inconsistency\nA response candidate is incoherent'),
      C: t.includes('Tutorial\nBelow is an example Dialogue'),
      D: t.includes('Task\nDialogue\nClient: Well, I know'),
    });
    const want: Record<string, string> = { instructions: 'AD', 'instructions-error-explanations': 'ABD', 'instructions-tutorial': 'ABCD' };
    const hashes = new Set<string>();
    for (const body of bodies) {
      for (const request of ['rating', 'scoring']) {
        const p = assemblePrompt(lib, { body, request }, context, 'x');
        const parts = Object.entries(has(p.text)).filter(([, v]) => v).map(([k]) => k).join('');
        assert.equal(parts, want[body], `${body} × ${request}`);
        assert.ok(p.text.endsWith(request === 'rating' ? 'Rating (1-5):' : 'Score (0-100):'));
        hashes.add(p.templateHash);
      }
    }
    assert.equal(hashes.size, 6);
    assert.deepEqual(assemblePrompt(lib, { body: 'instructions', request: 'scoring' }, context, 'x').spec.max, 100);
  });
});

describe('template hash', () => {
  it('changes when a part the variant uses changes, not when another part does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prompts-'));
    mkdirSync(join(dir, 'parts'));
    writeFileSync(join(dir, 'parts', 'C-tutorial.mustache'), 'Tutorial\nA different example.\n');
    const base = loadPromptLibrary(bundled);
    const over = loadPromptLibrary(bundled, dir);
    assert.equal(templateHash(over, { body: 'instructions', request: 'rating' }), templateHash(base, { body: 'instructions', request: 'rating' }));
    assert.notEqual(templateHash(over, { body: 'instructions-tutorial', request: 'rating' }), templateHash(base, { body: 'instructions-tutorial', request: 'rating' }));
  });
});

describe('partial indentation from a text prefix (mustache.js Writer.indentPartial)', () => {
  it('warns where mustache.js indents a partial by the text before its tag, and the render shows that indentation', async () => {
    const Mustache = (await import('mustache')).default;
    const { partialIndentWarnings } = await import('../../../src/core/templates/judgePrompt');
    const partials = { answer: 'first line\nsecond line\n', single: 'one line' };
    const source = 'Intro\nResponse: {{> answer}}\n{{#dialogue}}\n  Turn: {{> answer}}\n{{/dialogue}}\n{{> answer}}\nok: {{> single}}\n';
    const warnings = partialIndentWarnings('/p/bodies/x.mustache', source, partials);
    assert.deepEqual(
      warnings.map((w) => [w.line, w.partial, w.prefix, w.indent]),
      [
        [2, 'answer', 'Response: ', 10],
        [4, 'answer', '  Turn: ', 8],
      ],
    );
    assert.match(warnings[0].message, /^x\.mustache:2: \{\{> answer\}\} follows the text "Response: " on its line, so mustache\.js indents the partial's 1 later line\(s\) by 10 spaces/);
    // The behaviour warned about is real: the second line is indented by the prefix's width.
    const rendered = Mustache.render('Response: {{> answer}}', {}, partials);
    assert.equal(rendered, 'Response: first line\n          second line\n');
    // A standalone tag, a one-line partial and an unknown partial give no warning.
    assert.deepEqual(partialIndentWarnings('y.mustache', '{{> answer}}\nA {{> single}}\nB {{> missing}}', partials), []);
  });
});
