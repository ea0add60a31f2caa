/**
 * The random-weight models of today's small open instruct models' shapes that `npm run bench:models` builds into
 * `.bench-models/` (scripts/bench/build_real_size_models.py), and the long prompt the profiles time on them
 * (bench/judgeReal.ts, bench/suffixCost.ts, bench/prefillProfile.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..');

/** `--only` name → folder under `.bench-models/`. */
export const SHAPES = { qwen3: 'qwen3-0.6b-shape', llama: 'llama-3.2-1b-shape' } as const;
export type Shape = keyof typeof SHAPES;
export const SHAPE_NAMES = Object.keys(SHAPES) as Shape[];

/**
 * The folder of a built shape under `models` (default `.bench-models/`).
 *
 * @throws Error naming the folder and the command that builds it, when it has no config.json
 */
export function shapeFolder(shape: Shape, models = join(ROOT, '.bench-models')): string {
  const folder = resolve(models, SHAPES[shape]);
  if (!existsSync(join(folder, 'config.json'))) throw new Error(`${folder} is missing: build it with npm run bench:models -- --only ${shape}`);
  return folder;
}

/**
 * `count` tokens of real prompt text: the judge's tutorial body, encoded and repeated until long enough (the token
 * values do not change a model's speed; their number does).
 */
export function tutorialPromptIds(encode: (text: string) => number[], count: number): number[] {
  const body = readFileSync(join(ROOT, 'prompts', 'bodies', 'instructions-tutorial.mustache'), 'utf8');
  const once = encode(body);
  if (once.length === 0) throw new Error('the tutorial body encodes to no tokens');
  let ids: number[] = [];
  while (ids.length < count) ids = ids.concat(once);
  return ids.slice(0, count);
}
