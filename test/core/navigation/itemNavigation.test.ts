import assert from 'node:assert/strict';
import type { Annotation, Candidate, DialogueItem } from '../../../src/core/dialogue/types';
import {
  annotatorDisagreement,
  blindSafeFilter,
  describeJudgeHumanDisagreement,
  filterItems,
  humanMajority,
  judgeHumanDisagreements,
  judgeSide,
  labelProgress,
  labelProgressAfter,
  nextUnlabelled,
  originGroups,
  type FilterContext,
} from '../../../src/core/navigation/itemNavigation';

const RATING = 'judge:local:bundled:m:instructions×rating@abc';
const SCORING = 'judge:local:bundled:m:instructions×scoring@abc';
const BLEU = 'metric:bleu4.score@x';
const scales = new Map([
  [RATING, { min: 1, max: 5, integer: true }],
  [SCORING, { min: 0, max: 100 }],
  [BLEU, { min: 0, max: 1 }],
]);

const ann = (annotator: string, coherent?: boolean): Annotation => ({ annotator, ...(coherent === undefined ? {} : { coherent }) });
function cand(id: string, text: string, source: string, annotations: Annotation[] = [], scores: Candidate['scores'] = {}): Candidate {
  return { id, text, origin: source === 'human' ? { kind: 'human' } : { kind: 'model', source }, annotations, scores };
}
function item(id: string, context: string, candidates: Candidate[], reference?: string): DialogueItem {
  return { id, context: [{ speaker: 'client', text: context }], candidates, ...(reference ? { reference: { text: reference } } : {}) } as DialogueItem;
}

const items: DialogueItem[] = [
  item('a', 'I drink too much on weekends', [
    cand('ref', 'You are worried about drinking.', 'human', [ann('Expert-1', true), ann('Me', true)]),
    cand('g1', 'The the the.', 'GPT-2', [ann('Expert-1', false), ann('Lay-1', true)], { [RATING]: { value: 5, status: 'ok' } }),
  ], 'A gold reflection about alcohol'),
  item('b', 'My sister never calls', [
    cand('g1', 'You feel left out.', 'GPT-2', [ann('Expert-1', true), ann('Lay-1', true), ann('Lay-2', false)], { [RATING]: { value: 1, status: 'ok' }, [BLEU]: { value: 0.01, status: 'ok' } }),
    cand('g2', 'Tell me about weekends.', 'BART', [ann('Me')]),
  ]),
  item('c', 'Work is fine', [cand('g1', 'Fine.', 'BART', [ann('Me', false)], { [SCORING]: { value: 50, status: 'ok' } })]),
];
const ctx = (over: Partial<FilterContext> = {}): FilterContext => ({ annotator: 'Me', blind: false, scales, ...over });

describe('item navigation: filters, disagreement, progress, next unlabelled', () => {
  it('finds every word of a text query in context, candidate text or id, ignoring case; the reference only when not blind', () => {
    assert.deepEqual(filterItems(items, { text: 'WEEKENDS' }, ctx()), [0, 1]);
    assert.deepEqual(filterItems(items, { text: 'weekends sister' }, ctx()), [1]);
    assert.deepEqual(filterItems(items, { text: 'fine' }, ctx()), [2]);
    assert.deepEqual(filterItems(items, { text: 'gold alcohol' }, ctx()), [0]);
    assert.deepEqual(filterItems(items, { text: 'gold alcohol' }, ctx({ blind: true })), []);
    assert.deepEqual(filterItems(items, { text: '   ' }, ctx()), [0, 1, 2]);
  });

  it('filters by origin, and by labelled / unlabelled for the viewing annotator (a coherence answer counts; an empty annotation does not)', () => {
    assert.deepEqual(originGroups(items), ['BART', 'GPT-2', 'human']);
    assert.deepEqual(filterItems(items, { origin: 'human' }, ctx()), [0]);
    assert.deepEqual(filterItems(items, { origin: 'BART' }, ctx()), [1, 2]);
    assert.deepEqual(filterItems(items, { mine: 'unlabelled' }, ctx()), [0, 1]);
    assert.deepEqual(filterItems(items, { mine: 'labelled' }, ctx()), [0, 2]);
    // One candidate must meet every candidate condition: item a's human candidate is labelled by Me.
    assert.deepEqual(filterItems(items, { origin: 'human', mine: 'unlabelled' }, ctx()), []);
    assert.deepEqual(filterItems(items, { origin: 'GPT-2', mine: 'unlabelled' }, ctx()), [0, 1]);
    assert.deepEqual(filterItems(items, { mine: 'labelled' }, ctx({ annotator: null })), []);
  });

  it('says annotators disagree when one said coherent and another incoherent', () => {
    assert.deepEqual(annotatorDisagreement(items[0].candidates[1]), { coherent: ['Lay-1'], incoherent: ['Expert-1'] });
    assert.equal(annotatorDisagreement(items[0].candidates[0]), null);
    assert.equal(annotatorDisagreement(items[1].candidates[1]), null, 'an annotation without an answer is no disagreement');
    assert.deepEqual(filterItems(items, { annotatorsDisagree: true }, ctx()), [0, 1]);
  });

  it('judge vs humans: the score on the other side of its scale midpoint from a strict human majority', () => {
    assert.equal(judgeSide(4, { min: 1, max: 5 }), 'coherent');
    assert.equal(judgeSide(2, { min: 1, max: 5 }), 'incoherent');
    assert.equal(judgeSide(3, { min: 1, max: 5 }), null, 'the midpoint is neither side');
    assert.equal(judgeSide(0.7, { min: 0, max: 1 }), 'coherent');
    assert.equal(judgeSide(5, undefined), null);
    assert.equal(judgeSide(-3, { min: -Infinity, max: 0 }), null, 'an open scale has no midpoint');
    assert.deepEqual(humanMajority(items[0].candidates[1]), { side: null, coherent: 1, incoherent: 1 });
    // Item a, g1: judge 5 (coherent) but humans tie 1–1: no disagreement.
    assert.deepEqual(judgeHumanDisagreements(items[0].candidates[1], scales), []);
    // Item b, g1: humans 2–1 coherent, judge 1 of 1–5 (incoherent): disagree; the metric is not a judge.
    const d = judgeHumanDisagreements(items[1].candidates[0], scales);
    assert.equal(d.length, 1);
    assert.deepEqual({ ...d[0] }, { evaluatorId: RATING, value: 1, scale: { min: 1, max: 5, integer: true }, midpoint: 3, judge: 'incoherent', humans: 'coherent', coherent: 2, incoherent: 1 });
    assert.match(describeJudgeHumanDisagreement(d[0], () => 'rating judge'), /^rating judge: 1 on 1–5 \(midpoint 3: incoherent\) vs the human majority coherent \(2 coherent, 1 incoherent\)$/);
    // Item c: judge exactly on the midpoint (50 of 0–100) against an incoherent majority: no disagreement.
    assert.deepEqual(judgeHumanDisagreements(items[2].candidates[0], scales), []);
    // Without a known scale the judge is never counted.
    assert.deepEqual(judgeHumanDisagreements(items[1].candidates[0], new Map()), []);
    // A failed score is not counted.
    assert.deepEqual(judgeHumanDisagreements({ ...items[1].candidates[0], scores: { [RATING]: { value: null, status: 'error' } } }, scales), []);
    assert.deepEqual(filterItems(items, { judgeHumansDisagree: true }, ctx()), [1]);
  });

  it('in blind mode refuses the origin and judge-vs-humans filters, and blindSafeFilter drops them', () => {
    assert.throws(() => filterItems(items, { origin: 'GPT-2' }, ctx({ blind: true })), /blind mode hides origins and scores: the origin filter/);
    assert.throws(() => filterItems(items, { judgeHumansDisagree: true }, ctx({ blind: true })), /judgeHumansDisagree/);
    assert.deepEqual(filterItems(items, { annotatorsDisagree: true, judgeHumansDisagree: false }, ctx({ blind: true })), [0, 1]);
    assert.deepEqual(blindSafeFilter({ text: 'x', origin: 'GPT-2', judgeHumansDisagree: true, mine: 'unlabelled' }, true), { filter: { text: 'x', mine: 'unlabelled' }, dropped: ['origin', 'judgeHumansDisagree'] });
    assert.deepEqual(blindSafeFilter({ origin: 'GPT-2' }, false).dropped, []);
  });

  it('counts labelled / total per annotator (one count per candidate, however many annotations)', () => {
    const p = labelProgress(items, 'Me');
    assert.equal(p.candidates, 5);
    assert.equal(p.mine, 2);
    assert.deepEqual(p.annotators, [
      { annotator: 'Expert-1', labelled: 3 },
      { annotator: 'Lay-1', labelled: 2 },
      { annotator: 'Me', labelled: 2 },
      { annotator: 'Lay-2', labelled: 1 },
    ]);
    const twice = [item('x', 'c', [cand('g', 't', 'B', [ann('Me', true), ann('Me', false)])])];
    assert.equal(labelProgress(twice, 'Me').mine, 1);
    assert.equal(labelProgress(items, 'New').mine, 0);
    assert.equal(labelProgress(items, null).mine, null);
  });

  it('next unlabelled: later candidates of the item, then later items in list order, wrapping around', () => {
    // Me: a/ref labelled, a/g1 not, b/g1 not, b/g2 not (no answer), c/g1 labelled.
    assert.deepEqual(nextUnlabelled(items, [0, 1, 2], { itemIndex: 0, candidateId: 'ref' }, 'Me'), { itemIndex: 0, candidateId: 'g1' });
    assert.deepEqual(nextUnlabelled(items, [0, 1, 2], { itemIndex: 0, candidateId: 'g1' }, 'Me'), { itemIndex: 1, candidateId: 'g1' });
    assert.deepEqual(nextUnlabelled(items, [0, 1, 2], { itemIndex: 1, candidateId: 'g2' }, 'Me'), { itemIndex: 0, candidateId: 'g1' }, 'wraps past the end');
    // In another list order (filtered and sorted), only listed items count.
    assert.deepEqual(nextUnlabelled(items, [2, 0], { itemIndex: 2, candidateId: 'g1' }, 'Me'), { itemIndex: 0, candidateId: 'g1' });
    assert.deepEqual(nextUnlabelled(items, [2], { itemIndex: 2, candidateId: 'g1' }, 'Me'), null);
    // Display order (blind mode's shuffle) decides what "later" means within an item.
    assert.deepEqual(nextUnlabelled(items, [1], { itemIndex: 1, candidateId: 'g2' }, 'Me', (it) => it.candidates.map((c) => c.id).reverse()), { itemIndex: 1, candidateId: 'g1' });
    // From an item outside the list: the first listed one.
    assert.deepEqual(nextUnlabelled(items, [1, 0], { itemIndex: 2, candidateId: 'g1' }, 'Me'), { itemIndex: 1, candidateId: 'g1' });
    // Its own item's earlier candidates come last.
    const one = [item('x', 'c', [cand('p', 't', 'B'), cand('q', 't', 'B', [ann('Me', true)])])];
    assert.deepEqual(nextUnlabelled(one, [0], { itemIndex: 0, candidateId: 'q' }, 'Me'), { itemIndex: 0, candidateId: 'p' });
    assert.equal(nextUnlabelled(items, [0, 1, 2], null, null), null);
  });
  it('labelProgressAfter: the progress after replacing items equals labelProgress of the new list (annotators come and go)', () => {
    const relabel = (it: DialogueItem, f: (c: Candidate) => Candidate['annotations']): DialogueItem => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: f(c) })) });
    const cases: [number, DialogueItem][] = [
      [1, relabel(items[1], (c) => [...c.annotations.filter((a) => a.annotator !== 'Me'), ann('Me', true)])],
      [0, relabel(items[0], (c) => c.annotations.filter((a) => a.annotator !== 'Expert-1'))],
      [2, relabel(items[2], () => [ann('New-1', false), ann('New-1', true)])],
      [2, { ...items[2], candidates: [...items[2].candidates, cand('g9', 'More.', 'BART', [ann('Lay-2', true)])] }],
    ];
    for (const viewer of ['Me', 'Nobody', null]) {
      for (const [i, next] of cases) {
        const after = items.map((it, k) => (k === i ? next : it));
        assert.deepEqual(labelProgressAfter(labelProgress(items, viewer), [items[i]], [next], viewer), labelProgress(after, viewer), `${viewer} / item ${i}`);
      }
    }
  });
});
