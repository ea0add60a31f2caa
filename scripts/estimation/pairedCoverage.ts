/**
 * Coverage of the paired prediction-powered difference (docs/estimation.md §2.3) against the unpaired one, on
 * generated contexts with a shared context effect (the figures in the docs):
 *
 *   npx tsx scripts/estimation/pairedCoverage.ts [runs]
 *
 * Model: C contexts, context effect u_c ~ N(0, τ²); in each, m_A candidates of group A and m_B of group B with a latent
 * quality z = β_g + u_c + ε (ε ~ N(0, 1); β_A = 0.3, β_B = −0.2); the expert label 1{z + N(0, 0.5²) > 0}; the
 * prediction the share of 3 lay labels 1{z + N(0, 1) > 0}; each candidate expert-labelled with probability π. The
 * truth is the population difference Φ(β_A/s) − Φ(β_B/s), s² = τ² + 1.25.
 */
import erfc from '@stdlib/math-base-special-erfc';
import seedrandom from 'seedrandom';
import { pairedPredictionPoweredDifference, predictionPoweredMeanDifference, type PairedUnit } from '../../src/core/estimation/predictionPowered';

const Phi = (x: number) => 0.5 * erfc(-x / Math.SQRT2);

/** Coverage and mean width of the paired and unpaired 95 % intervals over `runs` generated pools. */
export function pairedCoverage(setting: { contexts: number; perContext: [number, number]; labelled: number; contextSd: number }, runs: number, seed: string) {
  const rng = seedrandom.alea(seed);
  const normal = () => {
    let u = 0;
    while (u === 0) u = rng();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
  };
  const beta = [0.3, -0.2];
  const s = Math.sqrt(setting.contextSd ** 2 + 1.25);
  const truth = Phi(beta[0] / s) - Phi(beta[1] / s);
  const out = { runs: 0, paired: { covered: 0, width: 0 }, unpaired: { covered: 0, width: 0 } };
  for (let r = 0; r < runs; r++) {
    const units: PairedUnit[] = [];
    for (let c = 0; c < setting.contexts; c++) {
      const u = setting.contextSd * normal();
      for (const g of [0, 1] as const) {
        for (let j = 0; j < setting.perContext[g]; j++) {
          const z = beta[g] + u + normal();
          const y = z + 0.5 * normal() > 0 ? 1 : 0;
          let lay = 0;
          for (let k = 0; k < 3; k++) lay += z + normal() > 0 ? 1 : 0;
          units.push({ cluster: String(c), group: g, yhat: lay / 3, ...(rng() < setting.labelled ? { y } : {}) });
        }
      }
    }
    const side = (g: number) => ({
      y: units.filter((x) => x.group === g && x.y !== undefined).map((x) => x.y as number),
      yhat: units.filter((x) => x.group === g && x.y !== undefined).map((x) => x.yhat),
      yhatUnlabelled: units.filter((x) => x.group === g && x.y === undefined).map((x) => x.yhat),
    });
    let p;
    let q;
    try {
      p = pairedPredictionPoweredDifference(units);
      q = predictionPoweredMeanDifference(side(0), side(1));
    } catch {
      continue; // a group without labelled or unlabelled units: no interval (rare)
    }
    out.runs++;
    for (const [k, v] of [['paired', p], ['unpaired', q]] as const) {
      if (v.lower <= truth && truth <= v.upper) out[k].covered++;
      out[k].width += v.upper - v.lower;
    }
  }
  return {
    runs: out.runs,
    truth,
    paired: { coverage: out.paired.covered / out.runs, width: out.paired.width / out.runs },
    unpaired: { coverage: out.unpaired.covered / out.runs, width: out.unpaired.width / out.runs },
  };
}

export const PAIRED_SETTINGS = [
  { contexts: 15, perContext: [5, 5] as [number, number], labelled: 0.3, contextSd: 1 },
  { contexts: 30, perContext: [5, 5] as [number, number], labelled: 0.3, contextSd: 1 },
  { contexts: 30, perContext: [2, 8] as [number, number], labelled: 0.4, contextSd: 1.5 },
  { contexts: 15, perContext: [1, 5] as [number, number], labelled: 0.5, contextSd: 1 },
  { contexts: 60, perContext: [1, 5] as [number, number], labelled: 0.3, contextSd: 1.5 },
  { contexts: 100, perContext: [2, 2] as [number, number], labelled: 0.2, contextSd: 0.5 },
];

if (require.main === module) {
  const runs = Number(process.argv[2] ?? 2000);
  console.log('| contexts | per context A / B | labelled | context sd | paired: coverage / width | unpaired: coverage / width |');
  console.log('|---|---|---|---|---|---|');
  for (const s of PAIRED_SETTINGS) {
    const r = pairedCoverage(s, runs, `paired-${s.contexts}-${s.perContext.join('-')}`);
    console.log(`| ${s.contexts} | ${s.perContext.join(' / ')} | ${s.labelled} | ${s.contextSd} | ${r.paired.coverage.toFixed(3)} / ${r.paired.width.toFixed(3)} | ${r.unpaired.coverage.toFixed(3)} / ${r.unpaired.width.toFixed(3)} |`);
  }
}
