/**
 * `npm run bench -- <name> [args…]`: runs `bench/<name>.bench.ts`. Benchmarks print ratios measured in this one
 * process (ours vs a reference run on the same inputs), so they compare like with like on any machine; speed is
 * never asserted in tests.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const available = readdirSync(__dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.replace(/\.bench\.ts$/, ''))
  .sort();

async function main(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  if (!name || !available.includes(name)) {
    console.error(`usage: npm run bench -- <${available.join('|') || 'none yet'}> [args…]`);
    process.exitCode = 2;
    return;
  }
  const mod = (await import(pathToFileURL(join(__dirname, `${name}.bench.ts`)).href)) as { run(args: string[]): Promise<void> };
  await mod.run(args);
}

void main();
