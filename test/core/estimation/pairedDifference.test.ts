/**
 * The paired prediction-powered difference (groups answering the same contexts; our derivation, ppi_py has none):
 * its coverage measured on generated contexts with a shared context effect, where the truth is known; with every
 * unit its own context it reduces to the unpaired variance; λ minimises the estimated variance.
 */
import assert from 'node:assert/strict';
import { pairedPredictionPoweredDifference, studentUpperQuantile, type PairedUnit } from '../../../src/core/estimation/predictionPowered';
import { pairedCoverage, PAIRED_SETTINGS } from '../../../scripts/estimation/pairedCoverage';

describe('paired prediction-powered difference', function () {
  this.timeout(120_000);

  it('covers the population difference in at least 93 % of 600 generated pools (few contexts, unbalanced groups), where the unpaired interval falls to 0.89 in one', () => {
    const few = pairedCoverage(PAIRED_SETTINGS[0], 600, 'test-a');
    const unbalanced = pairedCoverage(PAIRED_SETTINGS[3], 600, 'test-b');
    for (const r of [few, unbalanced]) assert.ok(r.paired.coverage >= 0.93, `paired coverage ${r.paired.coverage}`);
    // The unbalanced setting is where ignoring the contexts fails: a check that the simulation can tell.
    assert.ok(unbalanced.unpaired.coverage < 0.92, `unpaired coverage ${unbalanced.unpaired.coverage}`);
  });

  it('with every unit its own context, has the unpaired (count-divided) variance up to the small-sample factor, and its λ minimises it', () => {
    const units: PairedUnit[] = [];
    let k = 0;
    for (const g of [0, 1] as const) for (let i = 0; i < 40; i++) {
      const yhat = ((i * 7 + g * 3) % 11) / 10;
      units.push({ cluster: `u${k++}`, group: g, yhat, ...(i % 3 === 0 ? { y: yhat > 0.5 ? 1 : (i % 2) } : {}) });
    }
    const r = pairedPredictionPoweredDifference(units, { lambda: 0.4 });
    // unpaired variance at λ = 0.4
    const part = (g: number) => {
      const L = units.filter((u) => u.group === g && u.y !== undefined);
      const U = units.filter((u) => u.group === g && u.y === undefined);
      const v = (xs: number[]) => {
        const m = xs.reduce((a, b) => a + b, 0) / xs.length;
        return xs.reduce((a, b) => a + (b - m) ** 2, 0) / xs.length;
      };
      return v(U.map((u) => 0.4 * u.yhat)) / U.length + v(L.map((u) => (u.y as number) - 0.4 * u.yhat)) / L.length;
    };
    const C = units.length;
    const clusterRobust = (part(0) + part(1)) * (C / (C - 1));
    assert.ok(r.standardError ** 2 >= clusterRobust - 1e-12, 'never below the cluster-robust variance');
    assert.ok(Math.abs(r.standardError ** 2 - clusterRobust) / clusterRobust < 0.15, `jackknife and sandwich agree roughly: ${r.standardError ** 2} vs ${clusterRobust}`);
    const tuned = pairedPredictionPoweredDifference(units);
    for (const l of [0, 0.2, 0.5, 0.8, 1]) {
      const other = pairedPredictionPoweredDifference(units, { lambda: l });
      assert.ok(tuned.lambda >= 0 && tuned.lambda <= 1);
      // the tuned λ minimises the cluster-robust part; the reported se is max(sandwich, jackknife), so compare loosely
      assert.ok(tuned.standardError <= other.standardError * 1.1, `λ ${tuned.lambda}: se ${tuned.standardError} vs ${other.standardError} at ${l}`);
    }
  });

  it('uses the t quantile with contexts − 1 degrees of freedom', () => {
    assert.ok(Math.abs(studentUpperQuantile(0.025, 14) - 2.1447866879169273) < 1e-9);
    assert.ok(Math.abs(studentUpperQuantile(0.025, 1e6) - 1.959966) < 1e-5);
    assert.throws(() => pairedPredictionPoweredDifference([{ cluster: 'a', group: 0, yhat: 1, y: 1 }, { cluster: 'a', group: 1, yhat: 1 }]), /needs labelled and unlabelled/);
  });
});
