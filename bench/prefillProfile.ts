/**
 * `npx tsx bench/prefillProfile.ts [--only qwen3|llama] [--dtype fp32|q8] [--engine ours|tjs] [--spinning on]
 * [--tokens 969] [--runs 3] [--models DIR]` (`--spinning` is ours'; transformers.js's threads always spin): where a
 * whole judge prompt's prefill spends its time, operator by operator, in our engine or in transformers.js on the same file — the profile behind the judge bench's "prefill ÷
 * transformers.js" row (bench/judgeReal.ts, docs/scale.md).
 *
 * Both engines run onnxruntime-node; this script turns on onnxruntime's own profiler for every session either
 * opens (`enableProfiling`, written to a temporary folder), runs the prefill `--runs` times (ours: `promptLogits` with
 * the prefix cache cleared; theirs: `generate` of one token, as the bench times it), and prints per operator type
 * the kernel time per run, nodes per run and share, and each run's `model_run` time. Run one engine per process
 * (`--engine`), so the two never share the cores or the heap. The profiler adds its own cost: compare the two engines'
 * profiles with each other, not with the bench's timings.
 *
 * Speed is measured here, never asserted in tests.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ortNs from 'onnxruntime-node';
import type { OnnxCausalLM } from '../src/core/models/causalLM';
import { loadGenerativeModel } from '../src/core/models/registry';
import { arg, choiceArg, strArg } from './args';
import { ROOT, SHAPE_NAMES, SHAPES, shapeFolder, tutorialPromptIds } from './realShapes';

interface TraceEvent {
  cat?: string;
  name?: string;
  dur: number;
  args?: { op_name?: string };
}

async function main(): Promise<void> {
  const args = process.argv;
  const shape = choiceArg(args, '--only', SHAPE_NAMES, 'qwen3');
  const dtype = choiceArg(args, '--dtype', ['fp32', 'q8'] as const, 'q8');
  const engine = choiceArg(args, '--engine', ['ours', 'tjs'] as const, 'ours');
  const spinning = strArg(args, '--spinning') === 'on';
  const tokens = arg(args, '--tokens', 969);
  const runs = arg(args, '--runs', 3);
  const folder = shapeFolder(shape, strArg(args, '--models'));

  // Every session either engine opens gets onnxruntime's profiler (one module: both import onnxruntime-node).
  const out = mkdtempSync(join(tmpdir(), 'prefill-profile-'));
  const ort = ((ortNs as unknown as { default?: typeof ortNs }).default ?? ortNs) as typeof ortNs;
  const session = ort.InferenceSession as unknown as { create: (...a: unknown[]) => Promise<unknown> };
  const create = session.create.bind(ort.InferenceSession);
  let opened = 0;
  session.create = (...a: unknown[]) => create(a[0], { ...((a[1] as Record<string, unknown> | undefined) ?? {}), enableProfiling: true, profileFilePrefix: join(out, `session-${opened++}`) });

  const wall: number[] = [];
  if (engine === 'ours') {
    const model = (await loadGenerativeModel(folder, { bundledDir: '', baseDir: ROOT }, { dtype, allowSpinning: spinning })) as OnnxCausalLM;
    const ids = tutorialPromptIds((text) => model.tokenizer.encode(text), tokens);
    for (let r = 0; r < runs; r++) {
      model.prefixCache?.clear();
      const s = performance.now();
      await model.promptLogits(ids);
      wall.push(performance.now() - s);
    }
    await model.dispose();
  } else {
    const tjs = await import('@huggingface/transformers');
    const tokenizer = await tjs.AutoTokenizer.from_pretrained(folder, { local_files_only: true });
    const file = join(folder, 'onnx', dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx');
    const model = await tjs.AutoModelForCausalLM.from_pretrained(folder, { local_files_only: true, dtype, device: 'cpu', use_external_data_format: existsSync(`${file}_data`) });
    const ids = tutorialPromptIds((text) => Array.from(tokenizer.encode(text)), tokens);
    const input = new tjs.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]);
    const mask = new tjs.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]);
    for (let r = 0; r < runs; r++) {
      const s = performance.now();
      await model.generate({ inputs: input, attention_mask: mask, max_new_tokens: 1, do_sample: false });
      wall.push(performance.now() - s);
    }
    await model.dispose();
  }

  // The profile is written when the session is released (dispose above).
  for (const name of readdirSync(out).filter((f) => f.endsWith('.json')).sort()) {
    const events = JSON.parse(readFileSync(join(out, name), 'utf8')) as TraceEvent[];
    const modelRuns = events.filter((e) => e.cat === 'Session' && e.name === 'model_run');
    if (modelRuns.length === 0) continue;
    const time = new Map<string, number>();
    const count = new Map<string, number>();
    for (const e of events) {
      if (e.cat !== 'Node' || !e.name?.endsWith('_kernel_time')) continue;
      const op = e.args?.op_name ?? '?';
      time.set(op, (time.get(op) ?? 0) + e.dur);
      count.set(op, (count.get(op) ?? 0) + 1);
    }
    const total = [...time.values()].reduce((a, b) => a + b, 0);
    const n = modelRuns.length;
    process.stdout.write(`${SHAPES[shape]} ${dtype}, ${engine}, threads ${engine === 'tjs' || spinning ? '' : 'not '}spinning, ${tokens} tokens: wall ${wall.map((w) => w.toFixed(0)).join(', ')} ms; model_run ${modelRuns.map((e) => (e.dur / 1000).toFixed(0)).join(', ')} ms (profiled)\n`);
    process.stdout.write(`${'operator'.padEnd(30)}${'ms / run'.padStart(10)}${'nodes / run'.padStart(13)}${'share'.padStart(8)}\n`);
    for (const [op, us] of [...time].sort((a, b) => b[1] - a[1]).slice(0, 14)) {
      process.stdout.write(`${op.padEnd(30)}${(us / 1000 / n).toFixed(1).padStart(10)}${String(Math.round((count.get(op) ?? 0) / n)).padStart(13)}${`${((100 * us) / total).toFixed(1)} %`.padStart(8)}\n`);
    }
  }
}

void main().catch((e) => {
  process.stderr.write(`${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
