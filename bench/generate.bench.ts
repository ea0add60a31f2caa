/**
 * `npm run bench -- generate [--rounds N] [--max-new-tokens N]`: the decoding engine on the bundled GPT-2
 * fixture, measured in this one process against @huggingface/transformers' `generate()` on the same ONNX file
 * and prompts. `--size real` measures real-size models instead (gpt2-medium's and bart-large's shapes; see
 * generateReal.ts).
 *
 * Prompts: the fixture's held-out AnnoMI contexts (parity.json cases) and, to have more of them, contexts built
 * from data/annomi/AnnoMI-sample.csv with the seeds' input format. Each prompt is decoded on its own (batch 1,
 * as transformers.js decodes one prompt), `rounds` times; the four runs of a prompt go back to back so that a change in
 * machine load hits both.
 *
 * Ratios printed (goals from issue 3):
 * - greedy tokens/s, ours ÷ transformers.js (≥ 1.0), with a check that both produced the same tokens;
 * - beam search (k = 5, all 5 returned) wall time ÷ greedy wall time (≤ 2.5);
 * - nucleus sampling (p = 0.95, 5 samples) wall time ÷ greedy wall time (≤ 2.0);
 * - share of decoding wall time spent outside `session.run`, per strategy (≤ 10 %).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { decode } from '../src/core/decoding/engine';
import type { GenerationConfig } from '../src/core/decoding/generationConfig';
import { buildModelInput } from '../src/core/templates/modelInput';
import { cwdLocator, loadGenerativeModel } from '../src/core/models/registry';
import type { Turn } from '../src/core/dialogue/types';
import { runReal } from './generateReal';

const folder = resolve(__dirname, '../fixtures/models/reflect-gpt2-tiny');

function arg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

/** Up to `n` contexts from the committed AnnoMI sample: the turns before each of its first therapist reflections. */
function sampleContexts(n: number): Turn[][] {
  const rows = parse(readFileSync(resolve(__dirname, '../data/annomi/AnnoMI-sample.csv')), { columns: true }) as Record<string, string>[];
  const out: Turn[][] = [];
  let dialogue: string | undefined;
  let turns: Turn[] = [];
  for (const r of rows) {
    if (r.transcript_id !== dialogue) {
      dialogue = r.transcript_id;
      turns = [];
    }
    const speaker = r.interlocutor === 'therapist' ? 'therapist' : 'client';
    if (speaker === 'therapist' && r.main_therapist_behaviour === 'reflection' && turns.length >= 4 && out.length < n) out.push([...turns]);
    turns.push({ speaker, text: r.utterance_text });
  }
  return out;
}

interface Timing {
  wallMs: number;
  /** In the model's session.run. */
  runMs: number;
  /** In beam search's onnxruntime step kernel (counted as outside the model's session.run). */
  helperMs: number;
  /** Model session.run calls (decoder passes, the prompt pass included). */
  runs: number;
  tokens: number;
}

export async function run(args: string[]): Promise<void> {
  const size = args.includes('--size') ? args[args.indexOf('--size') + 1] : 'fixture';
  if (size === 'real') return runReal(args);
  if (size !== 'fixture') throw new Error(`--size ${size}: expected real or fixture`);
  const rounds = arg(args, '--rounds', 3);
  const maxNewTokens = arg(args, '--max-new-tokens', 32);
  const ours = await loadGenerativeModel(folder, cwdLocator());
  const parity = JSON.parse(readFileSync(join(folder, 'parity.json'), 'utf8')) as { cases: { promptIds: number[] }[] };
  const prompts = [...parity.cases.map((c) => c.promptIds), ...sampleContexts(5).map((ctx) => buildModelInput(ctx, ours.tokenizer).inputIds)];
  const eos = ours.specialTokens.eosTokenIds[0];

  const tjs = await import('@huggingface/transformers');
  tjs.env.allowRemoteModels = false;
  const theirs = await tjs.AutoModelForCausalLM.from_pretrained(folder, { local_files_only: true, dtype: 'fp32', device: 'cpu' });

  /** Ours on one prompt: new tokens (EOS included, as transformers.js counts it). */
  async function oursOne(p: number[], config: GenerationConfig, t: Timing): Promise<number[]> {
    const timer = { runMs: 0, runs: 0, helperMs: 0 };
    const t0 = performance.now();
    // Every strategy pays its own prompt pass: the ratios compare strategies at equal work.
    const [seqs] = await decode(ours, [p], { ...config, maxNewTokens }, { timer, reusePromptPass: false });
    t.wallMs += performance.now() - t0;
    t.runMs += timer.runMs;
    t.runs += timer.runs;
    t.helperMs += timer.helperMs;
    for (const s of seqs) t.tokens += s.tokenIds.length + (s.endedWithEos ? 1 : 0);
    return [...seqs[0].tokenIds, ...(seqs[0].endedWithEos ? [eos] : [])];
  }
  async function theirsOne(p: number[], t: Timing): Promise<number[]> {
    const input = new tjs.Tensor('int64', BigInt64Array.from(p, BigInt), [1, p.length]);
    const mask = new tjs.Tensor('int64', new BigInt64Array(p.length).fill(1n), [1, p.length]);
    const t0 = performance.now();
    const seq = (await theirs.generate({ input_ids: input, attention_mask: mask, max_new_tokens: maxNewTokens, do_sample: false })) as unknown as { tolist(): bigint[][] };
    t.wallMs += performance.now() - t0;
    const ids = seq.tolist()[0].slice(p.length).map(Number);
    t.tokens += ids.length;
    return ids;
  }

  const zero = (): Timing => ({ wallMs: 0, runMs: 0, helperMs: 0, runs: 0, tokens: 0 });
  // Warm-up (session initialisation, JIT), and the token check.
  let same = true;
  for (const p of prompts) {
    const a = await oursOne(p, { strategy: 'greedy' }, zero());
    const b = await theirsOne(p, zero());
    same &&= a.join(' ') === b.join(' ');
    await oursOne(p, { strategy: 'beamSearch', numBeams: 5 }, zero());
    await oursOne(p, { strategy: 'nucleusSampling', topP: 0.95, numReturnSequences: 5 }, zero());
  }

  // Measured rounds: the four runs of a prompt back to back, so that changes in machine load hit all of them.
  const greedy = zero();
  const tjsGreedy = zero();
  const beam = zero();
  const nucleus = zero();
  for (let r = 0; r < rounds; r++) {
    for (const p of prompts) {
      await oursOne(p, { strategy: 'greedy' }, greedy);
      await theirsOne(p, tjsGreedy);
      await oursOne(p, { strategy: 'beamSearch', numBeams: 5 }, beam);
      await oursOne(p, { strategy: 'nucleusSampling', topP: 0.95, numReturnSequences: 5, seed: r }, nucleus);
    }
  }
  await ours.dispose();
  await theirs.dispose();

  const tps = (t: Timing) => (t.tokens / t.wallMs) * 1000;
  const outside = (t: Timing) => (100 * (t.wallMs - t.runMs)) / t.wallMs;
  const rows: [string, string, string, string][] = [
    ['greedy tokens/s: ours ÷ transformers.js generate()', `${(tps(greedy) / tps(tjsGreedy)).toFixed(2)}`, '≥ 1.0', `${tps(greedy).toFixed(0)} vs ${tps(tjsGreedy).toFixed(0)} tokens/s; same tokens: ${same ? 'yes' : 'NO'}`],
    ['beam search k=5 (all 5) wall ÷ greedy wall', (beam.wallMs / greedy.wallMs).toFixed(2), '≤ 2.5', `${beam.wallMs.toFixed(0)} vs ${greedy.wallMs.toFixed(0)} ms; decoder passes ${beam.runs} vs ${greedy.runs}`],
    ['nucleus p=0.95 × 5 samples wall ÷ greedy wall', (nucleus.wallMs / greedy.wallMs).toFixed(2), '≤ 2.0', `${nucleus.wallMs.toFixed(0)} vs ${greedy.wallMs.toFixed(0)} ms; decoder passes ${nucleus.runs} vs ${greedy.runs}`],
    ['outside session.run: greedy', `${outside(greedy).toFixed(1)} %`, '≤ 10 %', `${(greedy.wallMs - greedy.runMs).toFixed(0)} of ${greedy.wallMs.toFixed(0)} ms`],
    ['outside session.run: beam k=5', `${outside(beam).toFixed(1)} %`, '≤ 10 %', `${(beam.wallMs - beam.runMs).toFixed(0)} of ${beam.wallMs.toFixed(0)} ms, of which ${beam.helperMs.toFixed(0)} in the step kernel`],
    ['outside session.run: nucleus × 5', `${outside(nucleus).toFixed(1)} %`, '≤ 10 %', `${(nucleus.wallMs - nucleus.runMs).toFixed(0)} of ${nucleus.wallMs.toFixed(0)} ms`],
  ];
  const w = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c].length), ['measure', 'ratio', 'goal', 'detail'][c].length));
  const line = (r: string[]) => '| ' + r.map((x, c) => x.padEnd(w[c])).join(' | ') + ' |';
  console.log(`generate bench: ${prompts.length} prompts × ${rounds} rounds, maxNewTokens ${maxNewTokens}, fixture ${folder.split('/').pop()}`);
  console.log(line(['measure', 'ratio', 'goal', 'detail']));
  console.log('|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
}
