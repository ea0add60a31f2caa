import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wardClusters } from '../../../src/core/dedup/agglomerative';

interface Case {
  name: string;
  vectors: number[][];
  cuts: { threshold: number; labels: number[]; nClusters: number }[];
  distances: number[];
}
const ref = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'sklearn-agglomerative.json'), 'utf8')) as { sklearn: string; cases: Case[] };

/** Labels renumbered by first appearance, so two partitions compare equal whatever their label names. */
function canonical(labels: readonly number[]): number[] {
  const map = new Map<number, number>();
  return labels.map((l) => {
    if (!map.has(l)) map.set(l, map.size);
    return map.get(l)!;
  });
}

describe(`wardClusters: identical partitions to scikit-learn ${ref.sklearn} AgglomerativeClustering(distance_threshold)`, () => {
  it(`every case and threshold of the committed vectors (${ref.cases.length} cases)`, () => {
    let cuts = 0;
    let maxRel = 0;
    for (const c of ref.cases) {
      for (const cut of c.cuts) {
        const got = wardClusters(c.vectors, cut.threshold);
        assert.deepEqual(got.labels, canonical(cut.labels), `${c.name} at ${cut.threshold}`);
        assert.equal(got.count, cut.nClusters, `${c.name} at ${cut.threshold}`);
        cuts++;
      }
      const got = wardClusters(c.vectors, 0.7).heights;
      const want = [...c.distances].sort((a, b) => a - b);
      assert.equal(got.length, want.length);
      got.forEach((h, i) => {
        maxRel = Math.max(maxRel, Math.abs(h - want[i]) / Math.max(1e-300, Math.abs(want[i])));
      });
    }
    assert.ok(cuts > 200, `${cuts} cuts`);
    assert.ok(maxRel < 1e-12, `merge heights differ from scipy's by ${maxRel} (relative)`);
  });

  it('keeps a merge below the threshold and not one at it (sklearn: distance >= t splits)', () => {
    const pair = [[0, 0], [0.75, 0]];
    assert.deepEqual(wardClusters(pair, 0.75).labels, [0, 1]);
    assert.deepEqual(wardClusters(pair, 0.7500000000000001).labels, [0, 0]);
    assert.deepEqual(wardClusters(pair, 0).labels, [0, 1]);
  });

  it('handles 0 and 1 vectors and rejects a bad threshold or ragged vectors', () => {
    assert.deepEqual(wardClusters([], 0.7), { labels: [], count: 0, heights: [] });
    assert.deepEqual(wardClusters([[1, 2]], 0.7).labels, [0]);
    assert.throws(() => wardClusters([[1], [2]], -1), /threshold/);
    assert.throws(() => wardClusters([[1], [2]], Number.NaN), /threshold/);
    assert.throws(() => wardClusters([[1, 2], [2]], 1), /dimensions/);
  });
});
