/**
 * `npx tsx bench/suffixCost.ts [--only qwen3|llama] [--dtype fp32|q8] [--models DIR] [--cached 0,800,1600]
 * [--computed 1,16,64,128] [--spinning on] [--first]`: what one prompt costs when its
 * beginning is already in the prefix cache — the profile behind the judge bench's two prefix-reuse ratios (judging a
 * context's 26 candidates ÷ one, and the 12-variant matrix ÷ its unshared-token floor; bench/judgeReal.ts).
 *
 * On the random-weight real-size model that `npm run bench:models` builds, with one real judge prompt's tokens, it
 * times `promptLogits` of a prompt whose first P tokens are cached and whose last n are computed (P ∈ {0, 800,
 * 1,600}, n ∈ {1, 16, 64, 128}), best of 3, and splits the wall time into onnxruntime's `session.run` (the model's
 * arithmetic, the hand-over of the cached prefix and the copy of the outputs) and the rest (finding the prefix,
 * laying the cached keys and values out as one tensor, keeping the new ones). A line t = a + b·n fitted per P says
 * what a prompt costs beyond its tokens: the matrix's floor prices every token at the whole-prompt prefill's speed
 * and nothing per prompt, so with 702 prompts of ~60 unshared tokens each, a is what separates the two.
 *
 * The timed prompt follows another prompt through the same P cached tokens, as every prompt of a matrix but a
 * context's first does, so the prefix is already laid out and kept (`PrefixCache.materializeSplit`); `--first` times
 * the first prompt through it instead, which lays it out.
 *
 * `--spinning on` lets onnxruntime's threads spin-wait between operators, as transformers.js's do (ours do not by
 * default; docs/generation.md); `--cached 0 --computed 969` times a whole judge prompt's prefill, the bench's prefill
 * row, under either setting.
 *
 * Speed is measured here, never asserted in tests.
 */
import type { OnnxCausalLM } from '../src/core/models/causalLM';
import type { RunTimer } from '../src/core/models/languageModel';
import { loadGenerativeModel } from '../src/core/models/registry';
import { choiceArg, strArg } from './args';
import { ROOT, SHAPE_NAMES, SHAPES, shapeFolder, tutorialPromptIds } from './realShapes';

/** A suffix's first token is moved within the first this-many ids, so that no earlier prompt began the same way. */
const FIRST_TOKEN_IDS = 1000;

async function main(): Promise<void> {
  const args = process.argv;
  const shape = choiceArg(args, '--only', SHAPE_NAMES, 'qwen3');
  const dtype = choiceArg(args, '--dtype', ['fp32', 'q8'] as const, 'fp32');
  const spinning = strArg(args, '--spinning') === 'on';
  const first = args.includes('--first');
  const cachedSizes = (strArg(args, '--cached') ?? '0,800,1600').split(',').map(Number);
  const computedSizes = (strArg(args, '--computed') ?? '1,16,64,128').split(',').map(Number);
  const folder = shapeFolder(shape, strArg(args, '--models'));
  const model = (await loadGenerativeModel(folder, { bundledDir: '', baseDir: ROOT }, { dtype, allowSpinning: spinning })) as OnnxCausalLM;
  const cache = model.prefixCache;
  if (!cache) throw new Error(`${folder}: no prefix cache (cache mode ${JSON.stringify(model.cacheMode)})`);
  const ids = tutorialPromptIds((text) => model.tokenizer.encode(text), Math.max(...cachedSizes) + Math.max(...computedSizes));
  await model.promptLogits(ids.slice(0, 64)); // warm-up
  const rows: string[][] = [];
  for (const P of cachedSizes) {
    const fit: { n: number; ms: number }[] = [];
    for (const n of computedSizes) {
      let best: { wall: number; run: number } | undefined;
      for (let r = 0; r < 3; r++) {
        cache.clear();
        const prefix = ids.slice(0, P);
        if (P > 0) await model.promptLogits(prefix);
        // A suffix no earlier prompt began with (its first token differs each time), so exactly n tokens are computed.
        const suffix = ids.slice(P, P + n).map((t, i) => (i === 0 ? (t + 17 * (r + 1)) % FIRST_TOKEN_IDS : t));
        // Another prompt through the prefix first, parting from the timed one at its first token.
        if (P > 0 && !first) await model.promptLogits([...prefix, (suffix[0] + FIRST_TOKEN_IDS / 2) % FIRST_TOKEN_IDS]);
        const timer: RunTimer = { runMs: 0, runs: 0 };
        const s = performance.now();
        await model.promptLogits([...prefix, ...suffix], timer);
        const wall = performance.now() - s;
        if (!best || wall < best.wall) best = { wall, run: timer.runMs };
      }
      const b = best as { wall: number; run: number };
      fit.push({ n, ms: b.wall });
      rows.push([String(P), String(n), b.wall.toFixed(1), b.run.toFixed(1), (b.wall - b.run).toFixed(1), (b.wall / n).toFixed(2)]);
    }
    if (fit.length < 2) continue;
    // Least squares t = a + b·n over the sizes.
    const mn = fit.reduce((s, f) => s + f.n, 0) / fit.length;
    const mt = fit.reduce((s, f) => s + f.ms, 0) / fit.length;
    const slope = fit.reduce((s, f) => s + (f.n - mn) * (f.ms - mt), 0) / fit.reduce((s, f) => s + (f.n - mn) ** 2, 0);
    rows.push([String(P), 'fit', `a = ${(mt - slope * mn).toFixed(1)} ms per prompt`, `b = ${slope.toFixed(2)} ms per token`, '', '']);
  }
  await model.dispose();
  const head = ['cached P', 'computed n', 'wall ms', 'session.run ms', 'outside ms', 'ms / computed token'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
  process.stdout.write(`${SHAPES[shape]} ${dtype}, threads ${spinning ? '' : 'not '}spinning: one prompt with P tokens cached${first ? ' (the first through them)' : ''} and n computed (best of 3)\n${line(head)}\n${rows.map(line).join('\n')}\n`);
}

void main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
