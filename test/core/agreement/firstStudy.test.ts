import assert from 'node:assert/strict';
import { firstStudyAnalysis } from '../../../src/core/agreement/firstStudy';
import { firstStudyCsv } from '../../../src/core/agreement/firstStudyCsv';
import { decodingStrategy } from '../../../src/core/dialogue/strategy';
import type { Annotation, Candidate, CandidateOrigin, DialogueItem, ErrorCategory } from '../../../src/core/dialogue/types';

const gpt2 = (topP: number): CandidateOrigin => ({ kind: 'model', source: 'GPT-2', decoding: { strategy: 'nucleusSampling', topP } });
const yes = (annotator: string): Annotation => ({ annotator, coherent: true });
const no = (annotator: string, ...errors: ErrorCategory[]): Annotation => ({ annotator, coherent: false, errors });
const cand = (id: string, origin: CandidateOrigin, annotations: Annotation[], extra: Partial<Candidate> = {}): Candidate => ({ id, text: id, origin, annotations, scores: {}, ...extra });

describe('firstStudyAnalysis', () => {
  it('labels strategies as model × method × parameters; the reference is ground truth', () => {
    assert.equal(decodingStrategy(gpt2(0.4)).label, 'GPT-2 nucleus p=0.4');
    assert.equal(decodingStrategy({ kind: 'model', model: '/models/bart-large', decoding: { strategy: 'beamSearch', numBeams: 5, beamRank: 2 } }).label, 'bart-large beam k=5');
    assert.equal(decodingStrategy({ kind: 'model', model: 'bundled:reflect-gpt2-tiny', decoding: { strategy: 'greedy' } }).label, 'bundled:reflect-gpt2-tiny greedy');
    assert.equal(decodingStrategy({ kind: 'model', model: 'gpt2', decoding: { strategy: 'nucleusSampling', topP: 0.9, temperature: 0.7 } }).label, 'gpt2 nucleus p=0.9 T=0.7');
    assert.equal(decodingStrategy({ kind: 'api', source: 'GPT-3' }).label, 'GPT-3');
    assert.equal(decodingStrategy({ kind: 'human', source: 'Human' }).label, 'ground truth');
  });

  it('majority-votes coherence, propagates a representative label to its cluster, counts duplicate origins, and votes MEEs', () => {
    const item: DialogueItem = {
      id: 'i1',
      context: [{ speaker: 'client', text: 'hi' }],
      candidates: [
        cand('ref', { kind: 'human', source: 'Human' }, [yes('A'), yes('B'), no('C', 'malformed')]),
        // representative, incoherent with a consensus error: Off-topic is common to all three
        cand('r1', gpt2(0.4), [no('A', 'offTopic'), no('B', 'malformed', 'offTopic'), no('C', 'offTopic', 'parroting')], {
          cluster: { id: 'k1', representative: true, size: 2 },
          mostEvidentErrorNote: 'kept',
        }),
        cand('m1', gpt2(0.4), [], { cluster: { id: 'k1', representative: false, size: 2 }, duplicateOrigins: [gpt2(0.6)] }),
        // incoherent by 2 of 3, MEEs differ: Malformed vs Parroting → no majority vote
        cand('x', gpt2(0.6), [no('A', 'malformed'), no('B', 'parroting'), yes('C')]),
      ],
    };
    const a = firstStudyAnalysis([item], { minResponses: 2 });
    const m1 = a.responses.find((r) => r.candidateId === 'm1')!;
    assert.equal(m1.majority, 'incoherent');
    assert.equal(m1.majorityError, 'hallucinatory');
    assert.equal(m1.propagatedFrom, 'r1');
    assert.deepEqual(m1.strategies, ['GPT-2 nucleus p=0.4', 'GPT-2 nucleus p=0.6']);
    const rate = (s: string) => a.coherenceRates.find((r) => r.strategy === s)!;
    assert.equal(a.coherenceRates[0].strategy, 'ground truth');
    assert.deepEqual([rate('ground truth').labelled, rate('ground truth').rate, rate('ground truth').shown], [1, 1, false]);
    assert.deepEqual([rate('GPT-2 nucleus p=0.4').labelled, rate('GPT-2 nucleus p=0.4').incoherent, rate('GPT-2 nucleus p=0.4').propagated], [2, 2, 1]);
    assert.deepEqual([rate('GPT-2 nucleus p=0.6').labelled, rate('GPT-2 nucleus p=0.6').rate, rate('GPT-2 nucleus p=0.6').shown], [2, 0, true]);
    const err = a.errorDistribution.rows.find((r) => r.strategy === 'GPT-2 nucleus p=0.6')!;
    assert.deepEqual([err.counts.hallucinatory, err.counts.noMajority, err.shares.noMajority], [1, 1, 0.5]);
    assert.equal(a.propagation.propagatedResponses, 1);
    // plain data: survives a JSON round trip unchanged
    assert.deepEqual(JSON.parse(JSON.stringify(a)), a);
    assert.match(firstStudyCsv(a), /^table,group,row,column,value\n/);
  });

  it('a 3–3 tie among six annotators is "no majority"; the majority group and propagation are options', () => {
    const six = ['Expert 1', 'Expert 2', 'Expert 3', 'Layperson 1', 'Layperson 2', 'Layperson 3'];
    const item: DialogueItem = {
      id: 'i2',
      context: [],
      candidates: [
        // experts say coherent, laypeople incoherent (Parroting): a tie over all six
        cand('t', gpt2(0.8), six.map((a) => (a.startsWith('Expert') ? yes(a) : no(a, 'parroting'))), { cluster: { id: 'c', representative: true, size: 2 } }),
        cand('u', gpt2(0.8), [], { cluster: { id: 'c', representative: false, size: 2 } }),
      ],
    };
    const all = firstStudyAnalysis([item]);
    assert.equal(all.responses[0].majority, 'noMajority');
    assert.equal(all.responses[1].majority, 'unlabelled'); // a tie is not a label to propagate
    const lay = firstStudyAnalysis([item], { majorityGroup: 'laypeople', minResponses: 1 });
    assert.deepEqual([lay.responses[0].majority, lay.responses[0].majorityError, lay.responses[1].propagatedFrom], ['incoherent', 'parroting', 't']);
    assert.equal(lay.coherenceRates[0].incoherent, 2);
    const noProp = firstStudyAnalysis([item], { majorityGroup: 'laypeople', propagateClusters: false });
    assert.equal(noProp.responses[1].majority, 'unlabelled');
    assert.deepEqual(all.responses[0].coherence, { all: { coherent: 3, labelled: 6 }, laypeople: { coherent: 0, labelled: 3 }, experts: { coherent: 3, labelled: 3 } });
    assert.deepEqual(all.agreement.map((t) => t.group), ['all', 'laypeople', 'experts']);
  });
});
