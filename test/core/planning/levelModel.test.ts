/**
 * The kernel working model's leave-one-out predictions and the grid of settings the bound and the plans choose from
 * (docs/labelling-plan.md, §2 and "What the design alone can buy").
 */
import assert from 'node:assert/strict';
import { gridSettings, KernelLevelModel, LEVEL_MODEL_GRID, leaveOneOutLogScore } from '../../../src/core/design/levelModel';
import { monotonePool } from './generatedPool';

describe('labelling plan: the kernel model left one out', function () {
  this.timeout(120_000);

  it('the kernel model predicts a labelled candidate from all the others exactly as a refit without it', () => {
    const { coords, y } = monotonePool(40, 'kernel-loo');
    const settings = { bandwidth: 0.2, prior: 2 };
    const model = new KernelLevelModel(coords, 4, settings);
    y.forEach((k, i) => model.add(i, k));
    const row = new Float64Array(4);
    const refit = new Float64Array(4);
    let score = 0;
    for (let i = 0; i < y.length; i++) {
      const other = new KernelLevelModel(coords, 4, settings);
      y.forEach((k, j) => j !== i && other.add(j, k));
      other.predict(i, refit);
      model.predictLeavingOut(i, y[i], row);
      for (let k = 0; k < 4; k++) assert.ok(Math.abs(row[k] - refit[k]) < 1e-12, `candidate ${i}, level ${k}`);
      score += Math.log(refit[y[i]]);
    }
    const units = y.map((_, i) => i);
    assert.ok(Math.abs(leaveOneOutLogScore(model, units, y) - score / y.length) < 1e-12);
    assert.equal(leaveOneOutLogScore(model, [], []), -Infinity);
    assert.throws(() => leaveOneOutLogScore(model, [0, 1], [0]), /2 candidates but 1 levels/);
  });

  it('the grid is every bandwidth with every prior, bandwidth-major; a bad grid is refused', () => {
    const grid = gridSettings(LEVEL_MODEL_GRID);
    assert.equal(grid.length, 15);
    assert.deepEqual(grid.slice(0, 4), [{ bandwidth: 0.05, prior: 0.5 }, { bandwidth: 0.05, prior: 2 }, { bandwidth: 0.05, prior: 8 }, { bandwidth: 0.1, prior: 0.5 }]);
    assert.throws(() => gridSettings({ bandwidths: [], priors: [1] }), /at least one bandwidth and one prior/);
    assert.throws(() => gridSettings({ bandwidths: [0.1, -1], priors: [1] }), /positive finite numbers \(got -1\)/);
  });
});
