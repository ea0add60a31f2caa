/**
 * The one rule for `U` (issue 41 item 3; src/core/navigation/itemNavigation.ts `nextToLabel`): the next candidate,
 * in the current order (file order, a plan's), that passes the filters and search and that the annotator has not
 * labelled in the current dimension — and the "to go" count under the same rule. Hand-made cases for each factor
 * (order × filter × search × dimension × annotator), then random studies checked against a direct reading of the rule.
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import type { Annotation, Candidate, DialogueItem } from '../../../src/core/dialogue/types';
import {
  candidatePasses,
  candidateSequence,
  COHERENCE_SCOPE,
  nextInSequence,
  nextToLabel,
  type ItemFilter,
  type LabelScope,
  type ListPosition,
} from '../../../src/core/navigation/itemNavigation';
import { MI_RUBRIC } from '../../../src/core/rubric/presets';

const EMPATHY: LabelScope = { rubric: MI_RUBRIC, dimension: 'empathy' };
const cand = (id: string, text: string, source: string, annotations: Annotation[] = []): Candidate => ({ id, text, origin: { kind: 'model', source }, annotations, scores: {} }) as Candidate;
const item = (id: string, context: string, candidates: Candidate[]): DialogueItem => ({ id, context: [{ speaker: 'client', text: context }], candidates }) as DialogueItem;
const ctx = (annotator: string | null, scope?: LabelScope) => ({ annotator, blind: false, scales: new Map(), scope });
const rule = (annotator: string | null, filter: ItemFilter = {}, scope?: LabelScope) => ({ annotator, scope, passes: (it: DialogueItem, c: Candidate) => candidatePasses(it, c, filter, ctx(annotator, scope)) });
const at = (itemIndex: number, candidateId: string): ListPosition => ({ itemIndex, candidateId });

// Me: a/1 coherent (empathy 4), a/2 incoherent (no empathy asked), b/1 nothing, b/2 coherent without empathy, c/1 nothing.
const items: DialogueItem[] = [
  item('a', 'I drink on weekends', [cand('1', 'You drink.', 'GPT-2', [{ annotator: 'Me', coherent: true, empathy: 4 }]), cand('2', 'Bananas.', 'BART', [{ annotator: 'Me', coherent: false }]), cand('3', 'You worry about weekends.', 'GPT-2', [{ annotator: 'Other', coherent: true }])]),
  item('b', 'My sister never calls', [cand('1', 'She is distant.', 'BART'), cand('2', 'You miss her.', 'GPT-2', [{ annotator: 'Me', coherent: true }])]),
  item('c', 'Work is fine', [cand('1', 'Work is fine for you.', 'GPT-2')]),
];
const fileOrder = candidateSequence(items, [0, 1, 2]);

describe('the one rule for U: next candidate to label, and labels to go', () => {
  it('file order: the next candidate I have not labelled in the coherence answer, wrapping, my own last; to go counts the same', () => {
    assert.deepEqual(fileOrder.map((p) => `${items[p.itemIndex].id}/${p.candidateId}`), ['a/1', 'a/2', 'a/3', 'b/1', 'b/2', 'c/1']);
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '1'), rule('Me')), { next: at(0, '3'), toGo: 3 });
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '3'), rule('Me')).next, at(1, '1'));
    assert.deepEqual(nextToLabel(items, fileOrder, at(2, '1'), rule('Me')).next, at(0, '3'), 'wraps past the end');
    // Where the only candidate to go is the one I am on, it comes back to it.
    const one = candidateSequence(items, [2]);
    assert.deepEqual(nextToLabel(items, one, at(2, '1'), rule('Me')), { next: at(2, '1'), toGo: 1 });
    // From an item without a candidate focused: its first candidate to go, inclusive.
    assert.deepEqual(nextToLabel(items, fileOrder, { itemIndex: 1, candidateId: null }, rule('Me')).next, at(1, '1'));
  });

  it('annotator: another annotator’s label does not count as mine; without an annotator nothing is due', () => {
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '1'), rule('Other')), { next: at(0, '2'), toGo: 5 });
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '1'), rule(null)), { next: null, toGo: 0 });
  });

  it('dimension: in empathy, a candidate I called incoherent needs nothing, one I called coherent without empathy is due', () => {
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '1'), rule('Me', {}, EMPATHY)), { next: at(0, '3'), toGo: 4 });
    assert.deepEqual(nextToLabel(items, fileOrder, at(1, '1'), rule('Me', {}, EMPATHY)).next, at(1, '2'), 'b/2 has a coherence answer but no empathy');
    assert.deepEqual(nextToLabel(items, fileOrder, at(1, '1'), rule('Me', {}, COHERENCE_SCOPE)).next, at(2, '1'));
  });

  it('filters: a candidate that does not match the origin or labelled filter is skipped, even in a listed item', () => {
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '1'), rule('Me', { origin: 'BART' })), { next: at(1, '1'), toGo: 1 });
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '1'), rule('Me', { origin: 'GPT-2' })), { next: at(0, '3'), toGo: 2 });
    // "annotators disagree" holds for no candidate here: nothing to go.
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '1'), rule('Me', { annotatorsDisagree: true })), { next: null, toGo: 0 });
  });

  it('search: every word in the item’s context or id, or in this candidate’s text — not another candidate’s', () => {
    // "worry" is in a/3's text only: a/1 (mine) and b's candidates do not match.
    assert.deepEqual(nextToLabel(items, fileOrder, at(2, '1'), rule('Me', { text: 'worry' })), { next: at(0, '3'), toGo: 1 });
    // "sister" is in b's context: both its candidates match; b/2 is labelled.
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '1'), rule('Me', { text: 'SISTER' })), { next: at(1, '1'), toGo: 1 });
    assert.deepEqual(nextToLabel(items, fileOrder, at(0, '1'), rule('Me', { text: 'sister bananas' })), { next: null, toGo: 0 });
  });

  it('plan order: the plan’s candidates first in its order (across items), then the rest of the listed items', () => {
    const plan = candidateSequence(items, [0, 1, 2], { planned: [{ itemId: 'c', candidateId: '1' }, { itemId: 'a', candidateId: '3' }, { itemId: 'zz', candidateId: '1' }, { itemId: 'b', candidateId: '9' }] });
    assert.deepEqual(plan.map((p) => `${items[p.itemIndex].id}/${p.candidateId}${p.planned ? '*' : ''}`), ['c/1*', 'a/3*', 'a/1', 'a/2', 'b/1', 'b/2'], 'unknown ids are left out, each candidate once');
    assert.deepEqual(nextToLabel(items, plan, null, rule('Me')), { next: at(2, '1'), toGo: 3 });
    assert.deepEqual(nextToLabel(items, plan, at(2, '1'), rule('Me')).next, at(0, '3'), 'the next drawn candidate, in another item, before a/1');
    assert.deepEqual(nextToLabel(items, plan, at(0, '3'), rule('Me')).next, at(1, '1'));
    // From a candidate the plan no longer names (just labelled: it dropped out), back to the plan's first, not on from its item.
    assert.deepEqual(nextToLabel(items, plan, at(0, '1'), rule('Me')).next, at(2, '1'));
    assert.deepEqual(nextToLabel(items, plan, at(1, '2'), rule('Me')).next, at(2, '1'));
    // Once the plan's candidates are labelled, on through the rest of the list from where I am.
    const done = candidateSequence(items, [0, 1, 2], { planned: [{ itemId: 'a', candidateId: '1' }] });
    assert.deepEqual(nextToLabel(items, done, at(0, '2'), rule('Me')).next, at(0, '3'));
    // A planned candidate of an item the filter hides is not in the sequence.
    assert.deepEqual(candidateSequence(items, [0, 1], { planned: [{ itemId: 'c', candidateId: '1' }] })[0], at(0, '1'));
    // Blind mode's candidate order within an item.
    assert.deepEqual(candidateSequence(items, [1], { candidateOrder: () => ['2', '1'] }), [at(1, '2'), at(1, '1')]);
  });

  it('nextInSequence walks back with direction −1 (Shift+F3), wrapping', () => {
    const all = () => true;
    assert.deepEqual(nextInSequence(items, fileOrder, at(1, '1'), all, -1), at(0, '3'));
    assert.deepEqual(nextInSequence(items, fileOrder, at(0, '1'), all, -1), at(2, '1'));
    assert.deepEqual(nextInSequence(items, fileOrder, at(0, '1'), (it) => it.id === 'b', -1), at(1, '2'));
    assert.equal(nextInSequence(items, fileOrder, at(0, '1'), () => false, -1), null);
  });

  it('random studies: pressing U and labelling visits exactly the candidates due, in sequence order from where I was, and to go falls by one each time', () => {
    const rng = seedrandom('next-to-label');
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
    const words = ['garden', 'drink', 'sister', 'work', 'sleep'];
    for (let trial = 0; trial < 300; trial++) {
      const study: DialogueItem[] = Array.from({ length: 1 + Math.floor(rng() * 5) }, (_, i) =>
        item(`i${i}`, `context ${pick(words)}`, Array.from({ length: 1 + Math.floor(rng() * 4) }, (_, j) => {
          const annotations: Annotation[] = [];
          for (const who of ['Me', 'Other']) if (rng() < 0.4) annotations.push({ annotator: who, ...(rng() < 0.8 ? { coherent: rng() < 0.5 } : {}), ...(rng() < 0.5 ? { empathy: 3 } : {}) } as Annotation);
          return cand(`c${j}`, `reply ${pick(words)}`, pick(['GPT-2', 'BART']), annotations);
        })),
      );
      const annotator = pick(['Me', 'Other', 'Third']);
      const scope = pick([undefined, EMPATHY]);
      const filter: ItemFilter = { ...(rng() < 0.4 ? { origin: pick(['GPT-2', 'BART']) } : {}), ...(rng() < 0.4 ? { text: pick(words) } : {}) };
      const listed = study.map((_, i) => i).filter(() => rng() < 0.8).sort(() => rng() - 0.5);
      const planned = rng() < 0.5 ? study.flatMap((it) => it.candidates.map((c) => ({ itemId: it.id, candidateId: c.id }))).filter(() => rng() < 0.5).sort(() => rng() - 0.5) : undefined;
      const seq = candidateSequence(study, listed, { planned });
      const r = rule(annotator, filter, scope);
      // The rule read directly: unlabelled by the annotator in the dimension, and passing filter and search.
      const labelled = (c: Candidate) => {
        const a = c.annotations.find((x) => x.annotator === annotator);
        if (!scope) return c.annotations.some((x) => x.annotator === annotator && typeof x.coherent === 'boolean');
        return !!a && (a.coherent === false || typeof a.empathy === 'number');
      };
      const hay = (it: DialogueItem, c: Candidate) => [it.id, it.context[0].text, c.text].join('\n').toLowerCase();
      const due = seq.filter((p) => {
        const it = study[p.itemIndex];
        const c = it.candidates.find((x) => x.id === p.candidateId)!;
        return !labelled(c) && (!filter.origin || c.origin?.source === filter.origin) && (!filter.text || hay(it, c).includes(filter.text));
      });
      const from = seq.length && rng() < 0.8 ? pick(seq) : null;
      // Expected, step by step: from a position the plan does not name, the plan's first candidate still due; else the
      // first due after here, wrapping (here itself last).
      const expected: ListPosition[] = [];
      const left = new Set(due);
      for (let h = from; left.size; ) {
        const k = h ? seq.indexOf(h) : -1;
        const planFirst = h && !h.planned ? seq.find((p) => p.planned && left.has(p)) : undefined;
        const n = planFirst ?? [...seq.slice(k + 1), ...seq.slice(0, k + 1)].find((p) => left.has(p))!;
        expected.push({ itemIndex: n.itemIndex, candidateId: n.candidateId });
        left.delete(n);
        h = n;
      }
      let here: ListPosition | null = from;
      const visited: ListPosition[] = [];
      for (let n = due.length; ; n--) {
        const { next, toGo } = nextToLabel(study, seq, here, r);
        assert.equal(toGo, n, `trial ${trial}: to go`);
        if (!next) break;
        visited.push(next);
        const c = study[next.itemIndex].candidates.find((x) => x.id === next.candidateId)!;
        const mine = c.annotations.find((x) => x.annotator === annotator);
        if (mine) Object.assign(mine, { coherent: true, empathy: 4 });
        else c.annotations.push({ annotator, coherent: true, empathy: 4 } as Annotation);
        here = next;
      }
      assert.deepEqual(visited, expected, `trial ${trial}: ${JSON.stringify({ seq, from, due })}`);
    }
  });
});
