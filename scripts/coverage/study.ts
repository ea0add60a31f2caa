/**
 * The coverage study's engine: truths per cell, simulations in chunks (one worker thread each, at most two), and the
 * tally of every method. `run.ts` drives it and writes the report; the unit test runs a small version.
 */
import { generateStudy } from './generate';
import { altTestMeasures, binaryMeasures, nullMeasures, testMeasures, plannerMeasures, ratingMeasures, repeatabilityMeasures, type BinaryTruth, type MeasureSettings, type Outcomes, type RatingTruth } from './methods';
import type { Scenario } from './scenarios';
import { binaryTruth, calibrateAltTest, ratingTruth, repeatabilityTruth } from './truth';

/** What the simulations of a cell must be compared with. */
export type Truth = { binary?: BinaryTruth; rating?: RatingTruth; repeatability?: number; altNoise?: number };

/** Contexts of the large study a truth is computed on (10 candidates each). */
export const TRUTH_CONTEXTS = 100_000;

/** The truth of a scenario (the large study is seeded by the scenario's id, so the truth is reproducible). */
export function scenarioTruth(s: Scenario, contexts = TRUTH_CONTEXTS): Truth {
  switch (s.family) {
    case 'binary':
    case 'ceiling':
      return { binary: binaryTruth(s.design, contexts, `truth/${s.id}`) };
    case 'rating':
      return { rating: ratingTruth(s.design, contexts, `truth/${s.id}`) };
    case 'repeatability':
      return { repeatability: repeatabilityTruth(s.design, contexts, `truth/${s.id}`) };
    case 'alt-test':
      return { altNoise: calibrateAltTest(s.design, s.epsilon ?? 0.2, Math.max(2000, contexts / 5)) };
    default:
      return {};
  }
}

/** Per method: studies with a defined result, hits (covered, or rejected), undefined results, summed width; tests counted per test. */
export interface Tally {
  defined: number;
  hits: number;
  undefined: number;
  widthSum: number;
}

export type Tallies = Record<string, Tally>;

export function addOutcomes(t: Tallies, o: Outcomes): void {
  for (const [k, v] of Object.entries(o)) {
    const e = (t[k] ??= { defined: 0, hits: 0, undefined: 0, widthSum: 0 });
    if (v === null) {
      e.undefined++;
      continue;
    }
    if (v.of !== undefined) {
      e.defined += v.of;
      e.hits += v.count ?? 0;
      continue;
    }
    e.defined++;
    if (v.hit) e.hits++;
    if (v.width !== undefined) e.widthSum += v.width;
  }
}

export function mergeTallies(into: Tallies, from: Tallies): void {
  for (const [k, v] of Object.entries(from)) {
    const e = (into[k] ??= { defined: 0, hits: 0, undefined: 0, widthSum: 0 });
    e.defined += v.defined;
    e.hits += v.hits;
    e.undefined += v.undefined;
    e.widthSum += v.widthSum;
  }
}

/** Settings of a run. */
export interface StudySettings {
  resamples: number;
  level: number;
  alpha: number;
  /** Prefix of every seed (the study is a pure function of it). */
  seed: string;
}

export const STUDY_DEFAULTS: StudySettings = { resamples: 1000, level: 0.95, alpha: 0.05, seed: 'coverage-1' };

/** Simulations [start, end) of one scenario. */
export function runChunk(s: Scenario, truth: Truth, start: number, end: number, settings: StudySettings = STUDY_DEFAULTS): Tallies {
  const tallies: Tallies = {};
  for (let r = start; r < end; r++) {
    const seed = `${settings.seed}/${s.id}/${r}`;
    const st: MeasureSettings = { resamples: settings.resamples, level: settings.level, alpha: settings.alpha, seed };
    let o: Outcomes;
    switch (s.family) {
      case 'binary':
        o = binaryMeasures(generateStudy(s.design, seed), truth.binary as BinaryTruth, st, { plain: s.plain });
        break;
      case 'ceiling': {
        const all = binaryMeasures(generateStudy(s.design, seed), truth.binary as BinaryTruth, { ...st, intervals: ['percentile', 'expanded-bca'] }, { ceilingOnly: true, methods: [] });
        o = all;
        break;
      }
      case 'null':
        o = nullMeasures(generateStudy(s.design, seed), st);
        break;
      case 'tests':
        o = testMeasures(generateStudy(s.design, seed), generateStudy({ ...s.design, evaluator: { signal: 0, contextSd: 0.6, noiseSd: 1, shape: 'continuous' } }, `${seed}/null`), st);
        break;
      case 'rating':
        o = ratingMeasures(generateStudy(s.design, seed), truth.rating as RatingTruth, st);
        break;
      case 'repeatability':
        o = repeatabilityMeasures(generateStudy(s.design, seed), truth.repeatability as number, st);
        break;
      case 'planner-single':
      case 'planner-pair':
        o = plannerMeasures(generateStudy(s.design, seed), st, s.family === 'planner-pair');
        break;
      case 'alt-test': {
        const study = generateStudy({ ...s.design, evaluator: { ...s.design.evaluator, noiseSd: truth.altNoise as number } }, seed);
        o = altTestMeasures(study, Int8Array.from(study.a), { ...st, epsilon: s.epsilon ?? 0.2 });
        break;
      }
    }
    addOutcomes(tallies, o);
  }
  return tallies;
}
