/**
 * End to end in real VS Code (see harness.ts): finding one's way in a dialogue file (issue 18 item 3) and the plan
 * order (issue 16 item 3). A generated study — four practice items the annotator has labelled (no scores), then
 * twelve items of five candidates scored by a rating judge, 25 of them labelled by the annotator following a plan
 * whose record lies beside the file — is searched, filtered to unlabelled and to judge-vs-humans disagreements,
 * walked with the next-unlabelled key, labelled (the status bar's progress moves), switched to plan order (the
 * estimate and its interval show, and move when the plan's next candidate is labelled), and finally viewed in
 * blind mode (no origin or judge filter, no estimate). Screenshots go to test-output/e2e/navigate-*.png.
 *
 * Run: `npm run build && npx mocha --config test/e2e/.mocharc.json test/e2e/navigate.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import seedrandom from 'seedrandom';
import { filterItems, nextUnlabelled } from '../../src/core/navigation/itemNavigation';
import type { Annotation, Candidate, DialogueItem } from '../../src/core/dialogue/types';
import { planLabels, startLabelPlan, type LabelPlanRecord } from '../../src/core/planning/planner';
import { planListOrder } from '../../src/core/planning/planView';
import { editorFrame, failedAttempt, launchWorkbench, openDialogueFile, out, prerequisitesPresent, runCommand, waitFor, type Workbench } from './harness';

const ANNOTATOR = 'Expert-e2e';
const FILE = 'study.dialogues.jsonl';
const JUDGE = 'judge:local:bundled:reflect-gpt2-tiny:instructions×rating@e2e';
const TARGET = { halfWidth: 0.1 };

function gaussian(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

/** The study (see the module comment): items, the plan record, and each candidate's "true" coherence. */
function buildStudy(): { items: DialogueItem[]; record: LabelPlanRecord } {
  const rng = seedrandom.alea('navigate-e2e');
  const items: DialogueItem[] = [];
  const truth = new Map<string, boolean>();
  for (let i = 0; i < 4; i++) {
    items.push({
      id: `practice-${i}`,
      context: [{ speaker: 'client', text: `Practice context ${i} about the garden.` }],
      candidates: [0, 1, 2, 3, 4].map((j): Candidate => ({ id: `p${j}`, text: `Practice reply ${i}.${j}.`, origin: { kind: 'human', source: 'Practice' }, annotations: [{ annotator: ANNOTATOR, coherent: true, empathy: 4 }], scores: {} })),
    } as DialogueItem);
  }
  for (let i = 0; i < 12; i++) {
    const context = i === 1 || i === 5 ? `I keep drinking every weekend and my partner is upset (${i}).` : `My job is stressful and I sleep badly (${i}).`;
    items.push({
      id: `study-${i}`,
      context: [{ speaker: 'client', text: context }],
      candidates: [0, 1, 2, 3, 4].map((j): Candidate => {
        const z = gaussian(rng) * 1.5;
        const id = `g${j}`;
        truth.set(`study-${i}/${id}`, z + gaussian(rng) * 0.7 > 0);
        const value = Math.max(1, Math.min(5, Math.round(3 + z + gaussian(rng) * 0.8)));
        // A layperson labelled the first four items, disagreeing with the truth on every third candidate.
        const annotations: Annotation[] = i < 4 ? [{ annotator: 'Lay-1', coherent: (j % 3 === 0) !== truth.get(`study-${i}/${id}`) }] : [];
        return { id, text: `Reply ${i}.${j}: it sounds like things are hard.`, origin: { kind: 'model', model: j < 3 ? 'gpt2' : 'bart', source: j < 3 ? 'GPT-2' : 'BART' }, annotations, scores: { [JUDGE]: { value, status: 'ok' } } };
      }),
    } as DialogueItem);
  }
  // The plan starts before any expert label; the annotator then labels what it draws, five batches of five.
  const record = startLabelPlan(items, { evaluator: JUDGE, human: 'experts', target: TARGET, labelsPerCandidate: 1, seed: 1 });
  for (let batch = 0; batch < 5; batch++) {
    for (const o of planLabels(items, record, { target: TARGET }).order.filter((x) => x.status === 'drawn')) {
      const c = items.find((it) => it.id === o.itemId)!.candidates.find((x) => x.id === o.candidateId)!;
      c.annotations.push({ annotator: ANNOTATOR, coherent: truth.get(`${o.itemId}/${o.candidateId}`) });
    }
  }
  return { items, record };
}

describe('Finding your way and the plan order in the dialogue editor (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  const { items, record } = buildStudy();
  const scales = new Map([[JUDGE, { min: 1, max: 5, integer: true }]]);
  /** The candidate labelled through next-unlabelled (it changes what the plan counts). */
  let labelledByKey: { itemIndex: number; candidateId: string } | null = null;

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      writeFileSync(join(ws, FILE), items.map((it) => JSON.stringify(it)).join('\n') + '\n');
      writeFileSync(join(ws, 'study.label-plan.json'), JSON.stringify(record, null, 2) + '\n');
    }, { 'reflectEval.annotator': ANNOTATOR });
    page = wb.page;
  });

  after(async function () {
    await wb?.close('navigate-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('navigate');
  });

  const count = (frame: Frame) => frame.textContent('#nav-count').then((t) => t ?? '');
  const status = (p: Page) => p.locator('.statusbar-item', { hasText: /\d+\/\d+ labelled/ }).first();
  const labelledByMe = (its: readonly DialogueItem[]) => its.reduce((n, it) => n + it.candidates.filter((c) => c.annotations.some((a) => a.annotator === ANNOTATOR && typeof a.coherent === 'boolean')).length, 0);

  it('searches the contexts and filters to the items with candidates I have not labelled', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE);
    await frame.waitForSelector('#candidates .candidate', { timeout: 60_000 });
    await waitFor('the item count', async () => /^16 items$/.test(await count(frame)), 60_000);
    // Progress in the status bar while the editor is active: 20 practice + 25 planned labels of 80 candidates.
    const mine = labelledByMe(items);
    assert.equal(mine, 45);
    await waitFor('the progress in the status bar', async () => new RegExp(`^\\S*\\s*${mine}/80 labelled$`).test(((await status(p).textContent({ timeout: 5_000 })) ?? '').trim()), 60_000);
    assert.match((await frame.textContent('#nav-progress')) ?? '', new RegExp(`you ${mine}/80 · Lay-1 20/80`));

    await frame.click('#nav-search');
    await p.keyboard.type('weekend');
    await waitFor('two items found', async () => /^2 of 16 items$/.test(await count(frame)), 30_000);
    assert.deepEqual(await frame.locator('#item-list-rows .item-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.itemIndex)), ['5', '9']);
    // Letters typed in the search field are not labelling keys: nothing was labelled.
    assert.equal(await p.locator('.tab.active.dirty').count(), 0);
    await p.screenshot({ path: join(out, 'navigate-search.png') });
    await frame.fill('#nav-search', '');
    await waitFor('every item again', async () => /^16 items$/.test(await count(frame)), 30_000);

    await frame.selectOption('#nav-mine', 'unlabelled');
    const unlabelled = filterItems(items, { mine: 'unlabelled' }, { annotator: ANNOTATOR, blind: false, scales });
    assert.equal(unlabelled.length, 12);
    await waitFor('the unlabelled items', async () => (await count(frame)) === `${unlabelled.length} of 16 items`, 30_000);
    assert.equal(await frame.locator('.item-row[data-item-index="0"]').count(), 0, 'the practice items are hidden');
  });

  it('goes to the next unlabelled candidate with U, and the status bar counts the label made there', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    // The practice item 0 is still shown (the filter hides it from the list): U goes to the first listed item's first unlabelled candidate.
    assert.equal(await frame.textContent('#item h2'), 'practice-0');
    await frame.click('#item h2');
    const focusedBefore = await frame.getAttribute('.candidate.focused', 'data-candidate-id');
    const listed = filterItems(items, { mine: 'unlabelled' }, { annotator: ANNOTATOR, blind: false, scales });
    const expected = nextUnlabelled(items, listed, { itemIndex: 0, candidateId: focusedBefore }, ANNOTATOR)!;
    await p.keyboard.press('u');
    await waitFor('the next unlabelled item', async () => (await frame.textContent('#item h2')) === items[expected.itemIndex].id, 30_000);
    await waitFor('its unlabelled candidate focused', async () => (await frame.getAttribute('.candidate.focused', 'data-candidate-id')) === expected.candidateId, 30_000);
    assert.equal(await frame.getAttribute('.candidate.focused', 'data-status'), 'unlabelled');
    const before = ((await status(p).textContent()) ?? '').trim();
    await p.keyboard.press('y');
    await frame.waitForSelector(`.candidate[data-candidate-id="${expected.candidateId}"][data-coherent="yes"]`, { timeout: 30_000 });
    // With the "unlabelled by me" filter on, the status bar also counts what is to go by the rule for U (issue 41 item 3).
    await waitFor('the status bar progress after the label', async () => /46\/80 labelled · 34 to go \(filtered\)$/.test(((await status(p).textContent()) ?? '').trim()), 30_000);
    assert.match(before, /45\/80 labelled · 35 to go \(filtered\)$/);
    labelledByKey = { itemIndex: expected.itemIndex, candidateId: expected.candidateId as string };
    items[expected.itemIndex].candidates.find((c) => c.id === expected.candidateId)!.annotations.push({ annotator: ANNOTATOR, coherent: true });
    // The button does what the key does: on to the next one.
    const second = nextUnlabelled(items, listed, expected, ANNOTATOR)!;
    await frame.click('#nav-next-unlabelled');
    await waitFor('the following unlabelled candidate', async () => (await frame.getAttribute('.candidate.focused', 'data-candidate-id')) === second.candidateId && (await frame.textContent('#item h2')) === items[second.itemIndex].id, 30_000);
    await p.screenshot({ path: join(out, 'navigate-next-unlabelled.png') });
  });

  it('filters to candidates where the judge and the human majority disagree, with the reason on hover', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    await frame.selectOption('#nav-mine', '');
    await frame.check('#nav-judge-disagree');
    const expected = filterItems(items, { judgeHumansDisagree: true }, { annotator: ANNOTATOR, blind: false, scales });
    assert.ok(expected.length > 0 && expected.length < 16, `the study has judge-vs-humans disagreements in some items (${expected.length})`);
    await waitFor('the disagreeing items', async () => (await count(frame)) === `${expected.length} of 16 items`, 30_000);
    await frame.click(`.item-row[data-item-index="${expected[0]}"]`);
    await waitFor('the item', async () => (await frame.textContent('#item h2')) === items[expected[0]].id, 30_000);
    const title = await frame.locator('.mark.judge-disagree').first().getAttribute('title', { timeout: 30_000 });
    assert.match(title ?? '', /midpoint 3: (in)?coherent\) vs the human majority (in)?coherent \(\d+ coherent, \d+ incoherent\)/);
    await frame.uncheck('#nav-judge-disagree');
    await waitFor('every item again', async () => /^16 items$/.test(await count(frame)), 30_000);
  });

  it('lists items in plan order with the estimate, its interval and labels to go, updated when the plan’s next candidate is labelled', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    const plan = planLabels(items, record, { target: TARGET });
    assert.ok(plan.estimate.value !== null, 'the study has an estimate after 25 planned labels');
    await frame.selectOption('#nav-order', 'plan');
    await waitFor('the plan state', async () => /^Plan: rho −?\d\.\d{3}, 95 % interval \[−?\d\.\d{3}, −?\d\.\d{3}\] · (about \d+ labels to go|target reached: you can stop) \(target half-width 0\.1\)$/.test((await frame.textContent('#nav-plan')) ?? ''), 60_000);
    const text = (await frame.textContent('#nav-plan')) ?? '';
    assert.ok(text.includes(plan.estimate.value!.toFixed(3).replace('-', '−')), `${text} shows the estimate ${plan.estimate.value}`);
    assert.match((await frame.getAttribute('#nav-plan', 'title')) ?? '', new RegExp(`planned labels counted ${plan.counts.planned},`));
    const order = planListOrder(plan, items);
    assert.equal(await frame.getAttribute('#item-list-rows .item-row:first-child', 'data-item-index'), String(order[0]));
    await p.screenshot({ path: join(out, 'navigate-plan.png') });

    // Label the plan's next candidate: the planned count goes up by one and the state line follows.
    const next = plan.order.find((o) => o.status === 'drawn' && !o.labelled)!;
    assert.equal(next.itemId, items[order[0]].id);
    await frame.click('#item-list-rows .item-row:first-child');
    await waitFor('the plan’s first item', async () => (await frame.textContent('#item h2')) === next.itemId, 30_000);
    await frame.click(`.candidate[data-candidate-id="${next.candidateId}"] .candidate-text`);
    await p.keyboard.press('n');
    await frame.waitForSelector(`.candidate[data-candidate-id="${next.candidateId}"][data-coherent="no"]`, { timeout: 30_000 });
    items.find((it) => it.id === next.itemId)!.candidates.find((c) => c.id === next.candidateId)!.annotations.push({ annotator: ANNOTATOR, coherent: false });
    const after = planLabels(items, record, { target: TARGET });
    assert.ok(after.counts.planned > plan.counts.planned);
    await waitFor('the plan state after the label', async () => new RegExp(`planned labels counted ${after.counts.planned},`).test((await frame.getAttribute('#nav-plan', 'title')) ?? ''), 60_000);
    if (after.estimate.value !== null) assert.ok(((await frame.textContent('#nav-plan')) ?? '').includes(after.estimate.value.toFixed(3).replace('-', '−')));
    assert.ok(labelledByKey);
  });

  it('in blind mode offers no origin or judge filter, says so, and hides the plan’s estimate', async () => {
    const p = page as Page;
    await runCommand(p, 'ReflectEval: Toggle Blind Labelling Mode');
    const frame = await editorFrame(p);
    await frame.waitForSelector('#nav-blind-note:not([hidden])', { timeout: 60_000 });
    assert.equal(await frame.isHidden('#nav-origin'), true);
    assert.equal(await frame.isHidden('#nav-judge-disagree-label'), true);
    await waitFor('the plan state without the estimate', async () => /^Plan: estimate hidden in blind mode · /.test((await frame.textContent('#nav-plan')) ?? ''), 30_000);
    assert.doesNotMatch((await frame.textContent('#nav-plan')) ?? '', /rho|interval/);
    assert.equal(await frame.locator('.mark.judge-disagree').count(), 0);
    await p.screenshot({ path: join(out, 'navigate-blind.png') });
    await runCommand(p, 'ReflectEval: Toggle Blind Labelling Mode');
  });
});
