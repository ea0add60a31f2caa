/**
 * Error-category judges: reply parsing (JSON, code fence, labelled lines, a list of names; unparsable never
 * defaulted), the JSON-schema response format sent when the judge spec allows it, the categories, MEE and rationale
 * stored on the score, and per-category agreement with the experts' majority computed by hand.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCategoryAgreement, errorCategoryAgreementPlainTable, errorCategoryEvaluators } from '../../../src/core/metaEvaluation/errorCategoryAgreement';
import { renderTable } from '../../../src/core/metaEvaluation/metaEvaluationExport';
import type { Annotation, DialogueItem, ErrorCategory } from '../../../src/core/dialogue/types';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import type { JobHost } from '../../../src/core/jobs/host';
import { parseErrorCategoriesReply } from '../../../src/core/judges/parseErrorCategories';
import { startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';
import { testJobHost } from '../../helpers/jobHost';

function host(baseDir: string): JobHost {
  return testJobHost(baseDir);
}

const coh = (annotator: string): Annotation => ({ annotator, coherent: true });
const inc = (annotator: string, errors: ErrorCategory[], mostEvidentError?: ErrorCategory): Annotation => ({ annotator, coherent: false, errors, ...(mostEvidentError ? { mostEvidentError } : {}) });

describe('error-category replies', () => {
  it('parse JSON, a fenced block, labelled lines and a bare list; refuse what does not fit', () => {
    assert.deepEqual(parseErrorCategoriesReply('{"categories": ["Off-topic", "Malformed"], "mostEvidentError": "Off-topic", "rationale": " says \\"dog\\" "}'), {
      status: 'ok',
      categories: ['malformed', 'offTopic'],
      mostEvidentError: 'offTopic',
      rationale: 'says "dog"',
    });
    assert.deepEqual(parseErrorCategoriesReply('Sure:\n```json\n{"categories": ["parroting"], "mostEvidentError": null}\n```'), { status: 'ok', categories: ['parroting'], mostEvidentError: 'parroting' });
    assert.deepEqual(parseErrorCategoriesReply('Categories: On-topic but unverifiable; Dialogue-contradicting\nMost evident error: Dialogue-contradicting\nRationale: "since she was a girl"'), {
      status: 'ok',
      categories: ['dialogueContradicting', 'onTopicButUnverifiable'],
      mostEvidentError: 'dialogueContradicting',
      rationale: '"since she was a girl"',
    });
    assert.deepEqual(parseErrorCategoriesReply('Parroting, Other'), { status: 'ok', categories: ['parroting', 'other'] });
    assert.deepEqual(parseErrorCategoriesReply('None'), { status: 'ok', categories: [] });
    assert.deepEqual(parseErrorCategoriesReply('{"categories": []}'), { status: 'ok', categories: [] });
    for (const bad of ['', 'I cannot tell.', '{"categories": ["Rude"]}', '{"verdict": "bad"}', '{"categories": ["Malformed"], "mostEvidentError": "Parroting"}', 'Categories: Malformed\nMost evident error: Sarcasm']) {
      assert.equal(parseErrorCategoriesReply(bad).status, 'unparsable', bad);
    }
  });
});

describe('error-category judge against the experts (loopback stub judge)', function () {
  this.timeout(60_000);
  let stub: StubServer | undefined;
  after(async () => stub?.close());

  it('stores categories, MEE and rationale, sends the JSON schema when allowed, and gives the hand-computed kappa, precision, recall and F1', async () => {
    const answers: Record<string, string> = {
      r1: '{"categories": ["Malformed"], "mostEvidentError": "Malformed", "rationale": "\\"to-to-unquote\\" is garbled"}',
      r2: 'Categories: Parroting, Malformed\nMost evident error: Parroting\nRationale: repeats "let your baby down"',
      r3: 'None',
      r4: '```json\n{"categories": ["Off-topic"], "mostEvidentError": "Off-topic", "rationale": "kids crossing the street"}\n```',
      r5: '{"categories": [], "mostEvidentError": null, "rationale": "fine"}',
      r6: 'I cannot tell.',
      r7: 'Parroting',
    };
    stub = await startStubOpenAI((req) => {
      const prompt = (req.body.messages as { content: string }[])[0].content;
      const m = /Therapist: (r\d)\n/.exec(prompt);
      return { reply: m ? answers[m[1]] : 'no such response' };
    });
    const lay = inc('Layperson 1', ['dialogueContradicting']);
    const labels: Record<string, Annotation[]> = {
      r1: [inc('Expert 1', ['malformed']), inc('Expert 2', ['malformed']), coh('Expert 3'), lay],
      r2: [inc('Expert 1', ['parroting']), inc('Expert 2', ['parroting', 'malformed'], 'parroting'), inc('Expert 3', ['parroting']), lay],
      r3: [coh('Expert 1'), coh('Expert 2'), coh('Expert 3'), lay],
      r4: [coh('Expert 1'), coh('Expert 2'), inc('Expert 3', ['offTopic']), lay],
      r5: [inc('Expert 1', ['malformed']), inc('Expert 2', ['malformed']), inc('Expert 3', ['malformed']), lay],
      r6: [coh('Expert 1'), coh('Expert 2'), coh('Expert 3')],
      r7: [inc('Expert 1', ['parroting']), coh('Expert 2')],
    };
    const items: DialogueItem[] = Object.entries(labels).map(([text, annotations], i) => ({
      id: `item${i}`,
      context: [{ speaker: 'client', text: `context ${i}` }],
      candidates: [{ id: 'c', text, origin: { kind: 'model' }, annotations, scores: {} }],
    }));
    const dir = mkdtempSync(join(tmpdir(), 'errcat-'));
    const file = join(dir, 'e.dialogues.jsonl');
    writeFileSync(file, items.map((it) => JSON.stringify(it)).join('\n') + '\n');
    const report = await runPlanOnFile(
      { job: 'judge', judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'stub-judge', jsonSchema: true }], bodies: ['instructions-error-explanations'], requests: ['error-categories'], concurrency: 2 },
      file,
      host(dir),
    );
    assert.equal(report.warnings.length, 0, report.warnings.join('\n'));
    assert.equal(stub.requests.length, 7);
    const body = stub.requests[0].body as { response_format?: { type: string; json_schema: { name: string } }; max_tokens: number };
    assert.equal(body.response_format?.type, 'json_schema');
    assert.equal(body.response_format?.json_schema.name, 'error_categories');
    assert.equal(body.max_tokens, 400);

    const judged: DialogueItem[] = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const id = Object.keys(judged[0].candidates[0].scores)[0];
    assert.match(id, /^judge:api:stub-judge:instructions-error-explanations×error-categories@/);
    const s1 = judged[0].candidates[0].scores[id];
    assert.deepEqual([s1.status, s1.value, s1.categories, s1.mostEvidentError, s1.rationale], ['ok', 0, ['malformed'], 'malformed', '"to-to-unquote" is garbled']);
    assert.deepEqual([judged[2].candidates[0].scores[id].value, judged[2].candidates[0].scores[id].categories], [1, []]);
    const s6 = judged[5].candidates[0].scores[id];
    assert.deepEqual([s6.status, s6.value, s6.categories], ['unparsable', null, undefined]);

    // The panel finds the judge among the file's evaluators (scores that are not error-category answers do not count).
    judged[0].candidates[0].scores['metric:len'] = { value: 3 } as never;
    assert.deepEqual(errorCategoryEvaluators(judged), [id]);

    const r = errorCategoryAgreement(judged, id, { group: 'experts' });
    assert.equal(r.labelled, 7);
    assert.equal(r.unscored, 1);
    const by = Object.fromEntries(r.categories.map((c) => [c.category, c]));
    // Malformed over r1 r2 r3 r4 r5 r7: TP r1, FP r2, FN r5, TN r3 r4 r7; p_o = 4/6, p_e = (2/6)² + (4/6)² = 5/9 → κ = 1/4.
    assert.deepEqual([by.malformed.n, by.malformed.truePositive, by.malformed.falsePositive, by.malformed.falseNegative, by.malformed.trueNegative], [6, 1, 1, 1, 3]);
    assert.ok(Math.abs(by.malformed.kappa.kappa! - 0.25) < 1e-12);
    assert.deepEqual([by.malformed.precision, by.malformed.recall, by.malformed.f1], [0.5, 0.5, 0.5]);
    // Parroting: r7 ties 1–1 (left out); TP r2, TN r1 r3 r4 r5 → κ = 1, P = R = F1 = 1.
    assert.deepEqual([by.parroting.n, by.parroting.noMajority, by.parroting.kappa.kappa, by.parroting.precision, by.parroting.recall, by.parroting.f1], [5, 1, 1, 1, 1, 1]);
    // Off-topic: the judge's only flag (r4) is a false positive; the majority never flags → κ = 0, P = 0, R and F1 undefined.
    assert.deepEqual([by.offTopic.n, by.offTopic.falsePositive, by.offTopic.kappa.kappa, by.offTopic.precision, by.offTopic.recall, by.offTopic.f1], [6, 1, 0, 0, null, null]);
    // Dialogue-contradicting: only the layperson says so, and laypeople are not counted → one label throughout, κ undefined.
    assert.deepEqual([by.dialogueContradicting.n, by.dialogueContradicting.kappa.kappa, by.dialogueContradicting.precision], [6, null, null]);
    // MEE over r1–r5 (r7 ties): agreement 3/5; p_e = (2/5)(1/5) + (1/5)(1/5) + (2/5)(2/5) = 7/25 → κ = (15 − 7)/(25 − 7) = 4/9.
    assert.equal(r.mostEvidentError.n, 5);
    assert.equal(r.mostEvidentError.noMajority, 1);
    assert.equal(r.mostEvidentError.agreement, 0.6);
    assert.ok(Math.abs(r.mostEvidentError.kappa.kappa! - 4 / 9) < 1e-12);

    const csv = renderTable(errorCategoryAgreementPlainTable(r, 'stub'), 'csv');
    assert.match(csv, /,Malformed,6,2,2,1,0\.2(5|49999)\d*,0\.5,0\.5,0\.5\n/);
  });
});
