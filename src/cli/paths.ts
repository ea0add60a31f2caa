import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The ReflectEval package root (holds `package.json` named `reflect-eval`), found upward from this file. */
export function packageRoot(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'reflect-eval') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the reflect-eval package root above ${start}`);
    dir = up;
  }
}

/** The bundled offline generator (built by `scripts/fixtures/build_gpt2_fixture.py`). */
export function bundledModel(): string {
  return join(packageRoot(), 'fixtures', 'models', 'reflect-gpt2-tiny');
}

/** The folder of the bundled models (`bundled:<name>` is `<folder>/<name>`). */
export function bundledModels(): string {
  return join(packageRoot(), 'fixtures', 'models');
}

/** The bundled judge prompt templates. */
export function bundledPrompts(): string {
  return join(packageRoot(), 'prompts');
}

/** The committed AnnoMI sample used by the demo and the tests. */
export function bundledAnnoMISample(): string {
  return join(packageRoot(), 'data', 'annomi', 'AnnoMI-sample.csv');
}

/** ReflectEval's version from package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** ReflectEval's own data (WordNet, follow-ups, the AnnoMI sample, EvalReflections). */
export function bundledData(): string {
  return join(packageRoot(), 'data');
}
