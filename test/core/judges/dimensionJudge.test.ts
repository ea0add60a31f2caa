/**
 * Issue 39 item 4, the judges' target: a judge plan's `dimension` makes the judge rate a rubric dimension on its own
 * scale, written from the rubric (question, points, anchors); replies outside the scale are recorded as unparsable
 * with the raw text (never clamped); the dimension and its scale are in the evaluator id and the cache key; the MI
 * preset's default judge keeps its prompt and id. Through the judge job on the rubric study fixture
 * (test/core/agreement/fixtures/rubric-study: Overall ordinal 1–5, Sensible binary, Specificity numeric 0–10) with
 * an OpenAI-compatible stub server on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import { buildSignature } from '../../../src/core/evaluators/signature';
import { judgeCacheKey } from '../../../src/core/judges/cache';
import { dimensionRequest, withDimensionRequest } from '../../../src/core/judges/dimensionRequest';
import { judgeEvaluatorId } from '../../../src/core/judges/judge';
import { parseJudgeReply } from '../../../src/core/judges/parseReply';
import { judgePlanVariants, runJudgePlan, validateJudgePlan } from '../../../src/core/jobs/judge';
import { MemorySink } from '../../../src/core/jobs/memorySink';
import { MI_RUBRIC } from '../../../src/core/rubric/presets';
import type { OrdinalDimension, Rubric } from '../../../src/core/rubric/rubric';
import { assemblePrompt, loadPromptLibrary, templateHash } from '../../../src/core/templates/judgePrompt';
import { testJobHost } from '../../helpers/jobHost';
import { rubric } from '../../helpers/rubricStudy';
import { startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';

const root = resolve(__dirname, '../../..');
const prompts = join(root, 'prompts');
const fixtures = join(root, 'test/core/agreement/fixtures');

/** The rubric study with anchors and a question on Overall. */
function anchored(points = 5): Rubric {
  const r = structuredClone(rubric);
  const overall = r.dimensions.find((d) => d.name === 'Overall') as OrdinalDimension;
  overall.title = 'Overall quality';
  overall.question = 'How good is the response overall?';
  overall.points = Array.from({ length: points }, (_, i) => ({ value: i + 1, ...(i === 0 ? { label: 'very poor' } : i === points - 1 ? { label: 'excellent' } : {}) }));
  return r;
}

describe('judges rate a rubric dimension (issue 39 item 4)', function () {
  this.timeout(60_000);

  it('writes an ordinal request from the rubric: title, question, every point with its anchor, the answer cue', () => {
    const r = dimensionRequest(anchored(), 'Overall', 'study.rubric.json');
    assert.equal(r.name, 'dimension:Overall');
    assert.equal(
      r.source,
      [
        'Overall quality',
        'How good is the response overall?',
        'Rate the Response Candidate on a discrete scale from 1 to 5, where:',
        '1 means "very poor"',
        '2',
        '3',
        '4',
        '5 means "excellent"',
        'Overall quality (1-5):',
        '',
      ].join('\n'),
    );
    assert.deepEqual({ ...r.spec, description: undefined }, { min: 1, max: 5, integer: true, dimension: 'Overall', description: undefined });
    // A numeric dimension: its range and step; a binary one: the Yes/No request with Yes = 1.
    const spec = dimensionRequest(rubric, 'Specificity');
    assert.match(spec.source, /continuous scale from 0 to 10 in steps of 0\.5\.\nSpecificity \(0-10\):\n$/);
    assert.equal(spec.spec.integer, false);
    assert.deepEqual(dimensionRequest(rubric, 'Sensible').spec.answers, { Yes: 1, No: 0 });
    assert.throws(() => dimensionRequest(rubric, 'Problem'), /dimension "Problem" is categorical: a judge rates binary, ordinal and numeric dimensions \("Sensible", "Overall", "Specificity"\)/);
    assert.throws(() => dimensionRequest(rubric, 'overall'), /has no dimension "overall"/);
  });

  it('a scale whose points skip numbers accepts only its points, never clamping', () => {
    const r = structuredClone(rubric);
    (r.dimensions.find((d) => d.name === 'Overall') as OrdinalDimension).points = [0, 2, 4].map((value) => ({ value }));
    const { spec, source } = dimensionRequest(r, 'Overall');
    assert.match(source, /from 0 to 4 \(one of 0, 2, 4\)/);
    assert.deepEqual(parseJudgeReply('2', spec), { value: 2, status: 'ok' });
    assert.equal(parseJudgeReply('3', spec).status, 'unparsable');
    assert.equal(parseJudgeReply('5', spec).status, 'unparsable');
  });

  it('the dimension and its scale are in the evaluator id and the cache key: configurations that differ never share one', () => {
    const lib = loadPromptLibrary(prompts);
    const judge = { id: 'api:m', signature: buildSignature([['backend', 'openai-chat'], ['model', 'm']]) };
    const backend = { backend: 'openai-chat', model: 'm', temperature: 0 };
    const context = [{ speaker: 'User', text: 'context 0' }];
    const configs = [
      withDimensionRequest(lib, anchored(5), 'Overall'),
      withDimensionRequest(lib, anchored(7), 'Overall'), // the same dimension on another scale
      withDimensionRequest(lib, rubric, 'Overall'), // no anchors, no question
      withDimensionRequest(lib, rubric, 'Specificity'),
      withDimensionRequest(lib, rubric, 'Sensible'),
      // Another dimension with the very same text and scale: only its name differs.
      withDimensionRequest(lib, { ...rubric, dimensions: [...rubric.dimensions, { ...(rubric.dimensions[1] as OrdinalDimension), name: 'Overall2', title: 'Overall' }] }, 'Overall2'),
    ];
    const ids = configs.map((c) => judgeEvaluatorId(judge, { body: 'instructions', request: c.request }, templateHash(c.lib, { body: 'instructions', request: c.request })));
    const keys = configs.map((c) => {
      const p = assemblePrompt(c.lib, { body: 'instructions', request: c.request }, context, 'a response');
      return judgeCacheKey(backend, { prompt: p.text, spec: p.spec });
    });
    assert.equal(new Set(ids).size, configs.length, ids.join('\n'));
    assert.equal(new Set(keys).size, configs.length);
    assert.match(ids[0], /^judge:api:m:instructions×dimension:Overall@[0-9a-f]{12}~[0-9a-f]{8}$/);
  });

  it("the MI preset's default judge keeps its prompt and id; its coherent is the bundled Yes/No request", () => {
    const bundled = loadPromptLibrary(prompts);
    const context = [{ speaker: 'client', text: 'I drink when I feel down.' }];
    const dir = mkdtempSync(join(tmpdir(), 'dim-judge-mi-'));
    const file = join(dir, 'mi.dialogues.jsonl');
    const plain = judgePlanVariants({ bodies: ['instructions'], requests: ['rating'] }, [prompts], file);
    assert.equal(plain.warning, undefined);
    assert.deepEqual(plain.variants, [{ body: 'instructions', request: 'rating' }]);
    const before = assemblePrompt(bundled, plain.variants[0], context, 'So drinking helps you cope.');
    const after = assemblePrompt(plain.lib, plain.variants[0], context, 'So drinking helps you cope.');
    assert.equal(after.text, before.text);
    assert.equal(after.templateHash, before.templateHash);
    // The bundled hashes as ReflectEval has always written them (a change here changes every judge id).
    assert.equal(after.templateHash, '61b35994153b');
    assert.equal(templateHash(bundled, { body: 'instructions', request: 'binary' }), 'a8c83191a2a2');
    assert.equal(before.text.endsWith('Rating (1-5):'), true);
    const coherent = judgePlanVariants({ bodies: ['instructions'], dimension: 'coherent' }, [prompts], file);
    assert.deepEqual(coherent.variants, [{ body: 'instructions', request: 'binary' }]);
    assert.equal(templateHash(coherent.lib, coherent.variants[0]), templateHash(bundled, { body: 'instructions', request: 'binary' }));
    assert.equal(withDimensionRequest(bundled, MI_RUBRIC, 'coherent').lib, bundled);
    // The MI preset's empathy is rated on its own Likert scale, with its anchors.
    const empathy = withDimensionRequest(bundled, MI_RUBRIC, 'empathy');
    assert.match(empathy.lib.requests[empathy.request].source, /^Empathy\nThe response shows empathy for the client\.\n.*\n1 means "disagree"\n[\s\S]*5 means "agree"\nEmpathy \(1-5\):\n$/);
  });

  describe('through the judge job (stub server)', () => {
    let stub: StubServer | undefined;
    afterEach(async () => {
      await stub?.close();
      stub = undefined;
    });

    function study(): { dir: string; file: string } {
      const dir = mkdtempSync(join(tmpdir(), 'dim-judge-'));
      const file = join(dir, 'study.dialogues.jsonl');
      copyFileSync(join(fixtures, 'rubric-study.dialogues.jsonl'), file);
      writeFileSync(join(dir, 'study.rubric.json'), JSON.stringify(anchored(), null, 2));
      return { dir, file };
    }

    it('asks for the Overall rating and records out-of-range and wordy replies as unparsable with their text', async () => {
      // Replies by response number: 0 → "4", 1 → "7" (outside 1–5), 2 → "Overall quality (1-5): 2", 3 → "good".
      stub = await startStubOpenAI((req) => {
        const content = String((req.body.messages as { content: string }[])[0].content);
        const n = Number(/response (\d+) to context/.exec(content)?.[1] ?? 0);
        return { reply: ['4', '7', 'Overall quality (1-5): 2', 'good'][n % 4] };
      });
      const { dir, file } = study();
      const items = documentItems(parseDocument(readFileSync(file), file));
      const plan = validateJudgePlan({ judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'm' }], bodies: ['instructions'], dimension: 'Overall', cache: false, manifest: false }, 'run.json');
      const sink = new MemorySink(items);
      const report = await runJudgePlan(plan, { file, items }, testJobHost(dir), sink);
      assert.deepEqual(report.warnings, []);
      const id = (report.data as { records: { evaluatorId: string }[] }).records[0].evaluatorId;
      assert.match(id, /^judge:api:m:instructions×dimension:Overall@/);
      const prompt = String((stub.requests[0].body.messages as { content: string }[])[0].content);
      assert.match(prompt, /How good is the response overall\?\nRate the Response Candidate on a discrete scale from 1 to 5, where:\n1 means "very poor"\n2\n3\n4\n5 means "excellent"\nOverall quality \(1-5\):$/);
      const scores = sink.items.flatMap((it) => it.candidates.map((c) => [Number(/response (\d+)/.exec(c.text)![1]) % 4, c.scores[id]] as const));
      assert.equal(scores.length, 120);
      for (const [n, s] of scores) {
        if (n === 0) assert.deepEqual([s.value, s.status], [4, 'ok']);
        if (n === 1) assert.deepEqual([s.value, s.status, s.raw, s.message], [null, 'unparsable', '7', '7 is outside 1–5']);
        if (n === 2) assert.deepEqual([s.value, s.status], [2, 'ok']);
        if (n === 3) assert.deepEqual([s.value, s.status, s.raw], [null, 'unparsable', 'good']);
      }
    });

    it('refuses bundled requests beside a rubric dimension, and warns when a study with its own rubric names none', async () => {
      stub = await startStubOpenAI(() => ({ reply: '3' }));
      const { dir, file } = study();
      const items = documentItems(parseDocument(readFileSync(file), file)).slice(0, 1);
      const judges = [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'm' }];
      const both = validateJudgePlan({ judges, bodies: ['instructions'], requests: ['rating'], dimension: 'Overall', cache: false, manifest: false }, 'run.json');
      await assert.rejects(runJudgePlan(both, { file, items }, testJobHost(dir), new MemorySink(items)), /requests: the request for dimension "Overall" is built from the rubric/);
      assert.equal(stub.requests.length, 0);
      const none = validateJudgePlan({ judges, bodies: ['instructions'], requests: ['rating'], cache: false, manifest: false }, 'run.json');
      const report = await runJudgePlan(none, { file, items }, testJobHost(dir), new MemorySink(items));
      assert.match(report.warnings.join('\n'), /no dimension named: the requests rating ask about coherence, not the rubric "synthetic quality"'s dimensions; name one with --dimension \(its primary is "Overall"\)/);
      assert.throws(() => validateJudgePlan({ judges, bodies: ['instructions'] }, 'run.json'), /run\.json: requests: must be a non-empty array \(or leave it out and name a "dimension"\)/);
    });
  });
});
