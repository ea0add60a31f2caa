/**
 * End to end in real VS Code (see harness.ts): keyboard-first labelling in the dialogue editor. Labels two
 * candidates with the keyboard only (one coherent with empathy 4; one incoherent with two errors and a most
 * evident error), typed without pauses; undoes and redoes; saves with Ctrl+S and checks the file on disk; then
 * blind mode, the comparison view, and the analyses panel. Screenshots go to test-output/e2e/labelling-*.png.
 *
 * Run: `npm run build && npx mocha --config test/e2e/.mocharc.json test/e2e/labelling.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { blindCandidateId, blindOrder } from '../../src/core/labels/annotatorView';
import type { Annotation, Candidate, DialogueItem, ErrorCategory } from '../../src/core/dialogue/types';
import { editorFrame, failedAttempt, frameWith, keysLive, labelsApplied, launchWorkbench, openDialogueFile, out, QUICK_INPUT, prerequisitesPresent, root, runCli, runCommand, waitFor, type Workbench } from './harness';

const ANNOTATOR = 'Lay-e2e';
const ERROR_JUDGE = 'judge:api:stub-errors:instructions-error-explanations×error-categories@e2e';
const FILE = 'study.dialogues.jsonl';

/**
 * A small study: four AnnoMI contexts, each with its reference and five generated candidates (greedy, two beam
 * hypotheses, two nucleus samples), labelled by three other annotators by a fixed rule.
 */
function buildStudy(file: string): void {
  runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '4', '--seed', '3', '-o', file]);
  const items: DialogueItem[] = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const errors: ErrorCategory[] = ['malformed', 'parroting', 'offTopic', 'dialogueContradicting', 'onTopicButUnverifiable'];
  items.forEach((item, i) => {
    const generated: Candidate[] = [
      { id: 'g-greedy', text: `So you feel it is time to change (${i}).`, origin: { kind: 'model', model: 'gpt2', decoding: { strategy: 'greedy' } }, annotations: [], scores: {} },
      ...[0, 1].map((r): Candidate => ({ id: `g-beam-${r}`, text: `It sounds like you want things to be different ${i}.${r}.`, origin: { kind: 'model', model: 'gpt2', decoding: { strategy: 'beamSearch', numBeams: 5, beamRank: r } }, annotations: [], scores: {} })),
      ...[0, 1].map((s): Candidate => ({ id: `g-nucleus-${s}`, text: `You you the the drink ${i}.${s}?`, origin: { kind: 'model', model: 'gpt2', decoding: { strategy: 'nucleusSampling', topP: 0.8, sampleIndex: s } }, annotations: [], scores: {} })),
    ];
    item.candidates.push(...generated);
    item.candidates.forEach((c, j) => {
      const others: Annotation[] = ['Expert-1', 'Lay-1', 'Lay-2'].map((annotator, k) => {
        const coherent = c.origin.kind === 'human' || (c.id.startsWith('g-beam') && (i + k) % 3 !== 0) || (c.id === 'g-greedy' && k === 0);
        if (coherent) return { annotator, coherent: true, empathy: (((i + j + k) % 5) + 1) as 1 | 2 | 3 | 4 | 5 };
        const e1 = errors[(i + j) % errors.length];
        const e2 = errors[(i + j + k + 1) % errors.length];
        return { annotator, coherent: false, errors: e1 === e2 ? [e1] : [e1, e2], ...(e1 === e2 ? {} : { mostEvidentError: k === 2 ? e2 : e1 }) };
      });
      c.annotations.push(...others);
      // An error-category judge's answers (the agreement panel compares them with the experts' error labels).
      const categories: ErrorCategory[] = c.origin.kind === 'human' || c.id.startsWith('g-beam') ? [] : c.id === 'g-greedy' ? ['parroting'] : [errors[(i + j) % errors.length]];
      c.scores[ERROR_JUDGE] = { status: 'ok', value: categories.length ? 0 : 1, categories, ...(categories.length ? { mostEvidentError: categories[0] } : {}) } as never;
    });
  });
  writeFileSync(file, items.map((it) => JSON.stringify(it)).join('\n') + '\n');
}

describe('Keyboard-first labelling in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let file = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      file = join(ws, FILE);
      buildStudy(file);
      runCli(['import', 'annotations', join(root, 'data/annotations/synthetic-annotations.csv'), '--reference', '-o', join(ws, SYNTHETIC)]);
    }, { 'reflectEval.annotator': ANNOTATOR });
    page = wb.page;
  });

  after(async function () {
    await wb?.close('labelling-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('labelling');
  });

  const mine = (c: Candidate) => c.annotations.find((a) => a.annotator === ANNOTATOR);
  const onDisk = (): DialogueItem[] => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const card = (frame: Frame, id: string) => frame.locator(`.candidate[data-candidate-id="${id}"]`);

  it('labels two candidates with the keyboard only, typed without pauses, and saves them with Ctrl+S', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE);
    await frame.waitForSelector('#candidates .candidate.focused', { timeout: 60_000 });
    const first = onDisk()[0];
    const [c1, c2] = first.candidates.map((c) => c.id);
    // Focus goes to the first candidate this annotator has not finished: the first one.
    assert.equal(await frame.getAttribute('.candidate.focused', 'data-candidate-id'), c1);
    // The webview has keyboard focus after opening; from here on only the keyboard is used.
    await keysLive(frame);
    // The legend names the keys (the generic key commands read as the MI preset's keys).
    assert.match((await frame.textContent('#legend')) ?? '', /^Y coherent\s*N incoherent/);
    await p.screenshot({ path: join(out, 'labelling-start.png') });
    for (const key of ['y', '4', 'j', 'n', '1', '3', 'Shift+3']) await p.keyboard.press(key);
    await frame.waitForSelector(`.candidate[data-candidate-id="${c1}"][data-status="complete"][data-coherent="yes"]`, { timeout: 30_000 });
    await frame.waitForSelector(`.candidate[data-candidate-id="${c2}"][data-status="complete"][data-coherent="no"]`, { timeout: 30_000 });
    assert.equal(await card(frame, c1).locator('[data-empathy="4"]').getAttribute('aria-checked'), 'true');
    assert.equal(await card(frame, c2).locator('[data-error][aria-pressed="true"]').count(), 2);
    assert.equal(await card(frame, c2).locator('[data-error][data-mee]').getAttribute('data-error'), 'parroting');
    // Focus is visible on the second candidate.
    assert.equal(await frame.getAttribute('.candidate.focused', 'data-candidate-id'), c2);
    assert.equal(await frame.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.candidateId), c2);
    await p.screenshot({ path: join(out, 'labelling-keyboard.png') });

    // Undo the last key (the MEE mark), redo it: each key press is one edit. Undo acts on the document, so first
    // every key shown must have reached it.
    await labelsApplied(frame);
    await p.keyboard.press('Control+z');
    await frame.waitForSelector(`.candidate[data-candidate-id="${c2}"][data-status="needsMostEvidentError"]`, { timeout: 30_000 });
    await p.keyboard.press('Control+Shift+z');
    await frame.waitForSelector(`.candidate[data-candidate-id="${c2}"][data-status="complete"]`, { timeout: 30_000 });

    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    await labelsApplied(frame);
    await p.keyboard.press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    const saved = await waitFor('both labels on disk', async () => {
      const item = onDisk()[0];
      const a1 = mine(item.candidates[0]);
      const a2 = mine(item.candidates[1]);
      return a1?.coherent === true && a2?.mostEvidentError ? [a1, a2] : undefined;
    }, 30_000);
    const strip = ({ updatedAt, ...rest }: Annotation) => (assert.match(String(updatedAt), /^\d{4}-\d\d-\d\dT/), rest);
    assert.deepEqual(strip(saved[0]), { annotator: ANNOTATOR, coherent: true, empathy: 4 });
    assert.deepEqual(strip(saved[1]), { annotator: ANNOTATOR, coherent: false, errors: ['malformed', 'parroting'], mostEvidentError: 'parroting' });
    // Nobody else's labels changed.
    assert.deepEqual(onDisk()[0].candidates[0].annotations.filter((a) => a.annotator !== ANNOTATOR), first.candidates[0].annotations);
  });

  it('moves on to the next item past the last candidate, and flips coherence without losing the errors', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    const items = onDisk();
    const last = items[0].candidates[items[0].candidates.length - 1].id;
    // From the second candidate to the last, and one more: the next item. Typed without pauses.
    for (let i = 0; i < items[0].candidates.length - 2; i++) await p.keyboard.press('j');
    await waitFor('the last candidate focused', async () => (await frame.getAttribute('.candidate.focused', 'data-candidate-id')) === last, 30_000);
    await p.keyboard.press('j');
    await p.keyboard.press('j');
    await waitFor('the second item', async () => (await frame.textContent('#item h2')) === items[1].id, 30_000);
    await waitFor('the second candidate of the second item focused', async () => (await frame.getAttribute('.candidate.focused', 'data-candidate-id')) === items[1].candidates[1].id, 30_000);
    await p.keyboard.press('Shift+K');
    await waitFor('back to the first item', async () => (await frame.textContent('#item h2')) === items[0].id, 30_000);
    // The first item's first unfinished candidate is the third.
    const c2 = items[0].candidates[1].id;
    await waitFor('focus on the third candidate', async () => (await frame.getAttribute('.candidate.focused', 'data-candidate-id')) === items[0].candidates[2].id, 30_000);
    await p.keyboard.press('k');
    await p.keyboard.press('y');
    await frame.waitForSelector(`.candidate[data-candidate-id="${c2}"][data-status="needsEmpathy"]`, { timeout: 30_000 });
    await p.keyboard.press('n');
    await frame.waitForSelector(`.candidate[data-candidate-id="${c2}"][data-status="complete"][data-coherent="no"]`, { timeout: 30_000 });
    assert.equal(await card(frame, c2).locator('[data-error][aria-pressed="true"]').count(), 2, 'errors restored');
  });

  it('labels the 18 candidates of three more items by keyboard alone, 25 keys a second', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    const items = onDisk();
    // Every candidate of items 2–4, in order: coherent with empathy 5, or incoherent with two errors and an MEE.
    const keys: string[] = ['Shift+J'];
    const expected: Record<string, Partial<Annotation>> = {};
    items.slice(1).forEach((item, i) => {
      item.candidates.forEach((c, j) => {
        if ((i + j) % 2 === 0) {
          keys.push('y', '5');
          expected[`${item.id}/${c.id}`] = { coherent: true, empathy: 5 };
        } else {
          keys.push('n', '2', '4', 'Shift+4');
          expected[`${item.id}/${c.id}`] = { coherent: false, errors: ['dialogueContradicting', 'offTopic'], mostEvidentError: 'offTopic' };
        }
        keys.push('j');
      });
    });
    // 40 ms apart: faster than anyone types. With no pause at all (a key every few ms), 2 of about 8 runs on a busy
    // machine lost one candidate's keys somewhere between Chromium and the keybinding service; not yet explained.
    for (const key of keys) {
      await p.keyboard.press(key);
      await p.waitForTimeout(40);
    }
    // Past the last candidate of the last item, focus stays there.
    const last = items[items.length - 1];
    await waitFor('the last item shown', async () => (await frame.textContent('#item h2')) === last.id, 60_000);
    await waitFor('every candidate of the last item labelled', async () => (await frame.locator('.candidate[data-status="complete"]').count()) === last.candidates.length, 60_000);
    // The cards show each key at once; the extension applies them to the document in order, and a save made
    // while some are still on their way writes the ones applied so far (the tab is dirty again after it). Save
    // until the tab stays clean. A label applied while VS Code was writing must not be taken for a change made
    // on disk by someone else (externalChanges.ts): that once merged a candidate to `errors [dialogueContradicting]`
    // with `mostEvidentError offTopic`, a state no key sequence makes.
    await labelsApplied(frame);
    await p.keyboard.press('Control+s');
    const got: Record<string, Partial<Annotation>> = {};
    await waitFor('18 labels on disk', async () => {
      if (await p.locator('.tab.active.dirty').count()) {
        await p.keyboard.press('Control+s');
        return undefined;
      }
      for (const item of onDisk().slice(1)) {
        for (const c of item.candidates) {
          const { updatedAt: _, annotator: __, ...rest } = mine(c) ?? ({ annotator: '' } as Annotation);
          got[`${item.id}/${c.id}`] = rest;
        }
      }
      return Object.values(got).every((a) => a.coherent !== undefined) || undefined;
    }, 60_000, 1000).catch(() => undefined);
    assert.deepEqual(got, expected);
    assert.match((await frame.textContent(`.item-row[data-item-index="3"] .item-count`)) ?? '', /✓ 6\/6/);
    await p.screenshot({ path: join(out, 'labelling-20.png') });
  });

  it('takes the free text of Other without treating the typed letters and digits as keys', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    const id = (await frame.getAttribute('.candidate.focused', 'data-candidate-id'))!;
    const itemId = (await frame.textContent('#item h2'))!;
    await p.keyboard.press('n');
    await p.keyboard.press('6');
    await frame.waitForSelector(`.candidate[data-candidate-id="${id}"] .other-text:focus`, { timeout: 30_000 });
    const text = 'says y, n and 1 2 3 twice; j k';
    await p.keyboard.type(text);
    await p.keyboard.press('Enter');
    await waitFor('focus back on the candidate', async () => (await frame.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.candidateId)) === id, 30_000);
    await labelsApplied(frame);
    await p.keyboard.press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    const a = await waitFor('the Other text on disk', async () => {
      const c = onDisk().find((it) => it.id === itemId)!.candidates.find((x) => x.id === id)!;
      return mine(c)?.otherText ? mine(c) : undefined;
    }, 30_000);
    assert.equal(a.otherText, text);
    assert.equal(a.coherent, false);
    assert.ok(a.errors?.includes('other'));
    assert.equal(await frame.locator(`.candidate[data-candidate-id="${id}"] .other-text`).inputValue(), text);
    assert.equal(await frame.getAttribute('.candidate.focused', 'data-candidate-id'), id, 'j and k typed in the field did not move focus');
  });

  it('labels the candidate clicked or revealed just before a key, typed with no pause (keys applied in the host)', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    await labelsApplied(frame);
    const itemId = (await frame.textContent('#item h2'))!;
    const cards = await frame.$$eval('#candidates .candidate', (cs) => cs.map((c) => ({ id: (c as HTMLElement).dataset.candidateId!, coherent: (c as HTMLElement).dataset.coherent ?? '' })));
    const hostLabels = () => frame.evaluate(() => Number(document.body.dataset.hostLabels ?? 0));
    const before = await hostLabels();
    // The item messages the keys bring: after a label, only the candidate that changed, not the whole item.
    type ItemMessages = { itemMessages: { view: boolean; candidates: number; bytes: number }[] };
    await frame.evaluate(() => {
      const w = window as unknown as ItemMessages;
      w.itemMessages = [];
      // The message layer's envelope (webview/shared/messages.ts): the item message is its `params`.
      window.addEventListener('message', (e: MessageEvent<{ type: string; params?: { view?: unknown; candidates?: unknown[] } }>) => {
        if (e.data?.type === 'item') w.itemMessages.push({ view: e.data.params?.view !== undefined, candidates: e.data.params?.candidates?.length ?? -1, bytes: JSON.stringify(e.data).length });
      });
    });
    // Click a card and press a key at once: even cards are cleared, odd ones flipped. The click moves focus in the
    // webview; the key reaches the extension host through VS Code's keybinding service.
    const expected = new Map<string, string>();
    for (const [k, c] of cards.entries()) {
      const key = k % 2 === 0 ? 'Delete' : c.coherent === 'yes' ? 'n' : 'y';
      expected.set(c.id, k % 2 === 0 ? 'none' : c.coherent === 'yes' ? 'no' : 'yes');
      await card(frame, c.id).locator('.candidate-text').click();
      await p.keyboard.press(key);
    }
    // The last key may still be on its way to the webview when the loop ends (labelsApplied only covers labels
    // the webview shows): wait until every card shows what is expected, or a while, then assert card by card.
    const shown = () => Promise.all(cards.map(async (c) => ((await card(frame, c.id).getAttribute('data-coherent')) ?? '') === expected.get(c.id)));
    await waitFor('every key shown on its card', async () => (await shown()).every(Boolean), 30_000).catch(() => undefined);
    await labelsApplied(frame);
    const itemMessages = await frame.evaluate(() => (window as unknown as ItemMessages).itemMessages);
    const inHost = (await hostLabels()) - before;
    // On a failure: how many keys the host applied, and how many edits reached the webview (a key lost on its way
    // to VS Code's keybinding service shows as fewer of both; a key on the wrong card does not).
    const seen = `keys applied in the host ${inHost}, item messages ${itemMessages.length}`;
    for (const c of cards) assert.equal((await card(frame, c.id).getAttribute('data-coherent')) ?? '', expected.get(c.id), `${itemId}/${c.id} (${seen})`);
    assert.ok(itemMessages.length > 0);
    assert.deepEqual(itemMessages.map((m) => [m.view, m.candidates]), itemMessages.map(() => [false, 1]), JSON.stringify(itemMessages));
    assert.ok(inHost > 0, 'no key was applied in the host');
    console.log(`      ${inHost} of ${cards.length} keys after a click applied in the host`);
    // "Next unlabelled" then a key at once: the key labels the candidate it moved to.
    const from = (await frame.getAttribute('.candidate.focused', 'data-candidate-id'))!;
    await p.keyboard.press('u');
    await p.keyboard.press('y');
    await waitFor('focus moved by U', async () => (await frame.getAttribute('.candidate.focused', 'data-candidate-id')) !== from || (await frame.textContent('#item h2')) !== itemId, 30_000);
    await labelsApplied(frame);
    assert.equal(await frame.getAttribute('.candidate.focused', 'data-coherent'), 'yes', 'the key labelled the candidate U went to');
    if ((await frame.textContent('#item h2')) === itemId) assert.equal((await card(frame, from).getAttribute('data-coherent')) ?? '', expected.get(from));
  });

  it('hides origins, scores and the reference in blind mode and shows the candidates in the annotator\'s order', async () => {
    const p = page as Page;
    await runCommand(p, 'ReflectEval: Toggle Blind Labelling Mode');
    const frame = await editorFrame(p);
    await frame.waitForSelector('#item h3:has-text("blind")', { timeout: 30_000 });
    const shownId = await frame.textContent('#item h2');
    const item = onDisk().find((it) => it.id === shownId)!;
    const shown = await frame.$$eval('#candidates .candidate', (els) => els.map((e) => (e as HTMLElement).dataset.candidateId));
    assert.deepEqual(shown, blindOrder(item.id, item.candidates.map((c) => c.id), ANNOTATOR).map((id) => blindCandidateId(item.id, id, ANNOTATOR)));
    assert.equal(await frame.locator('.candidate-origin').count(), 0);
    assert.equal(await frame.locator('#reference').count(), 0);
    assert.ok(!((await frame.textContent('#item')) ?? '').includes('AnnoMI reference'));
    await p.screenshot({ path: join(out, 'labelling-blind.png') });
    await runCommand(p, 'ReflectEval: Toggle Blind Labelling Mode');
    await frame.waitForSelector('#reference', { timeout: 30_000 });
  });

  it('shows every annotator\'s labels side by side in the comparison view, only then', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    assert.equal(await frame.locator('table.comparison').count(), 0, 'others\' labels are hidden by default');
    await runCommand(p, "ReflectEval: Toggle Comparison View (All Annotators' Labels)");
    await frame.waitForSelector('table.comparison tr[data-annotator="Expert-1"]', { timeout: 30_000 });
    const c1 = onDisk()[0].candidates[0].id;
    const rows = await card(frame, c1).locator('table.comparison tr[data-annotator]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.annotator));
    assert.deepEqual(rows, [ANNOTATOR, 'Expert-1', 'Lay-1', 'Lay-2']);
    await p.screenshot({ path: join(out, 'labelling-comparison.png') });
    await runCommand(p, "ReflectEval: Toggle Comparison View (All Annotators' Labels)");
    await waitFor('the comparison hidden', async () => (await frame.locator('table.comparison').count()) === 0, 30_000);
  });

  it('shows the agreement and error analyses with charts, the same numbers as reflect-eval agreement, following the active file', async () => {
    const p = page as Page;
    // The study file in front (a retry of this test starts with the synthetic table active), without the CSV files
    // an earlier attempt exported (the save dialog would ask to overwrite them).
    await openDialogueFile(p, FILE);
    for (const table of ['agreement', 'coherence-rate']) rmSync(join((wb as Workbench).workspace, `${table}.csv`), { force: true });
    // Save the flips of the previous test, so the file on disk (read by the CLI) is what the editor holds.
    await labelsApplied(await editorFrame(p));
    await (await editorFrame(p)).locator('.candidate.focused').press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    const cspViolations: string[] = [];
    p.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    await runCommand(p, 'ReflectEval: Show Agreement & Error Analyses');
    const panel = await frameWith(p, '#kappa table', 'the analyses panel');
    await samePanelAsCli(panel, file);
    // The error-category judge against the experts' error labels: the kappas `agreement --errors-vs` prints.
    const errorsCli = JSON.parse(runCli(['agreement', file, '--errors-vs', ERROR_JUDGE, '--bootstrap', '--json']))[0].errorCategories;
    const kappaCells = await panel.$$eval(`#error-categories tr[data-evaluator="${ERROR_JUDGE}"]`, (trs) => trs.map((tr) => [(tr as HTMLElement).dataset.row, tr.querySelector<HTMLElement>('td[data-kappa]')?.dataset.kappa]));
    const expectedKappas = [...errorsCli.categories.map((c: { category: string; kappa: { kappa: number | null } }) => [c.category, c.kappa.kappa]), ['mostEvidentError', errorsCli.mostEvidentError.kappa.kappa]].map(([k, v]) => [k, v === null ? '' : String(v)]);
    assert.deepEqual(kappaCells, expectedKappas);
    assert.match((await panel.textContent('#error-categories')) ?? '', /--errors-vs/);
    await p.screenshot({ path: join(out, 'labelling-analyses-study.png') });
    await panel.locator('#error-categories-section').screenshot({ path: join(out, 'labelling-error-categories.png') });

    // The synthetic annotation table (18 annotators): the panel follows the file that becomes active.
    await openDialogueFile(p, SYNTHETIC);
    await waitFor('the panel on the synthetic table', async () => ((await panel.textContent('#title')) ?? '').includes(SYNTHETIC), 60_000);
    await samePanelAsCli(panel, join((wb as Workbench).workspace, SYNTHETIC));
    assert.equal(await panel.locator('#kappa thead th').count(), 7, 'all, laypeople and experts: IAA and #Sub each');
    // The charts are drawn (under the webview's CSP, with no violation reported).
    for (const id of ['coherence-chart', 'error-chart']) {
      const painted = await panel.$eval(`canvas#${id}`, (c) => {
        const canvas = c as HTMLCanvasElement;
        const px = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
        return n;
      });
      assert.ok(painted > 1000, `${id}: ${painted} painted pixels`);
    }
    assert.deepEqual(cspViolations, []);
    await p.screenshot({ path: join(out, 'labelling-analyses.png') });
    await panel.locator('#coherence-section').screenshot({ path: join(out, 'labelling-figure3.png') });
    await panel.locator('#errors-section').screenshot({ path: join(out, 'labelling-figure4.png') });
    await panel.locator('#kappa-section').screenshot({ path: join(out, 'labelling-table4.png') });

    // CSV export of one table: the rows of `reflect-eval agreement --csv` for that table.
    const ws = (wb as Workbench).workspace;
    for (const table of ['agreement', 'coherence-rate'] as const) {
      await panel.click(`button.csv[data-table="${table}"]`);
      const input = p.locator(QUICK_INPUT);
      await input.waitFor({ timeout: 30_000 });
      // Type over the proposed name only once the dialog has filled it in (it would be appended to otherwise).
      await waitFor('the proposed file name', async () => (await input.inputValue()).endsWith(`synthetic.${table}.csv`), 30_000);
      await input.fill(join(ws, `${table}.csv`));
      await p.waitForTimeout(300); // the simple file dialog validates the typed path
      await p.keyboard.press('Enter');
      const exported = await waitFor(`${table}.csv`, async () => existsSync(join(ws, `${table}.csv`)) && readFileSync(join(ws, `${table}.csv`), 'utf8'), 30_000);
      runCli(['agreement', join(ws, SYNTHETIC), '--csv', join(ws, 'all.csv'), '--force']);
      const all = readFileSync(join(ws, 'all.csv'), 'utf8').split('\n');
      assert.equal(exported, [all[0], ...all.filter((l) => l.startsWith(`${table},`))].join('\n') + '\n');
    }

    // Labelling updates the panel: one more annotation, and undo takes it back.
    const annotations = async () => Number(/(\d+) annotations/.exec((await panel.textContent('#summary')) ?? '')?.[1]);
    const n = await annotations();
    const frame = await frameWith(p, `#file:text-is("${SYNTHETIC}")`, 'the synthetic table in the editor');
    // Focus in the analyses panel: the editor's legend does not show its keys as live.
    await panel.click('#summary');
    await waitFor('the editor\'s keys shown as not live', async () => (await frame.$('body.keys-live')) === null, 30_000);
    await p.keyboard.press('Control+1'); // View: Focus First Editor Group, i.e. the dialogue editor
    await keysLive(frame);
    await p.keyboard.press('y');
    await waitFor('the panel to count the new label', async () => (await annotations()) === n + 1, 30_000);
    await p.keyboard.press('Control+z');
    await waitFor('the panel to follow the undo', async () => (await annotations()) === n, 30_000);
  });
});

const SYNTHETIC = 'synthetic.dialogues.jsonl';

/** Asserts that the panel shows exactly the kappas, subjects and rates `reflect-eval agreement --json` gives for `path`. */
async function samePanelAsCli(panel: Frame, path: string): Promise<void> {
  const cli = JSON.parse(runCli(['agreement', path, '--json']));
  await waitFor('the panel to show the file', async () => {
    const cells = await panel.$$eval('#kappa td[data-kappa]', (els) => els.map((e) => (e as HTMLElement).dataset.kappa));
    const expected = (cli.agreement as { rows: { kappa: number | null }[] }[]).filter((t) => t.rows.length > 0);
    return cells.length === expected.reduce((n, t) => n + t.rows.length, 0) || undefined;
  }, 30_000);
  for (const t of cli.agreement as { group: string; rows: { key: string; kappa: number | null; subjects: number }[] }[]) {
    for (const r of t.rows) {
      const cell = panel.locator(`#kappa tr[data-key="${r.key}"] td[data-group="${t.group}"]`);
      assert.equal(await cell.getAttribute('data-kappa'), r.kappa === null ? '' : String(r.kappa), `${t.group} ${r.key}`);
      assert.equal(await cell.locator('xpath=following-sibling::td[1]').getAttribute('data-subjects'), String(r.subjects));
    }
  }
  const rates = await panel.$$eval('#coherence tr[data-strategy]', (els) => els.map((e) => [(e as HTMLElement).dataset.strategy, e.querySelector<HTMLElement>('td[data-rate]')?.dataset.rate]));
  const expected = (cli.coherenceRates as { strategy: string; rate: number | null; shown: boolean }[]).filter((r) => r.shown).map((r) => [r.strategy, r.rate === null ? '' : String(r.rate)]);
  assert.deepEqual(rates, expected);
  const chart = JSON.parse((await panel.getAttribute('canvas#coherence-chart', 'data-values')) ?? '[]');
  assert.deepEqual(chart.map((x: { strategy: string }) => x.strategy), expected.map((x) => x[0]));
  const errors = JSON.parse((await panel.getAttribute('canvas#error-chart', 'data-values')) ?? '[]');
  assert.deepEqual(errors.map((x: { strategy: string }) => x.strategy), (cli.errorDistribution.rows as { strategy: string; shown: boolean }[]).filter((r) => r.shown).map((r) => r.strategy));
}
