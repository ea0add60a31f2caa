/**
 * `reflect-eval`: the headless command line on the same core as the VS Code extension.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { correlationTable, formatCorrelationTable } from '../core/analysis/correlationTable';
import { importAnnoMI, parseAnnoMI, selectDialogues, therapistLabelDistribution, windowStats, type AnnoMISelection } from '../core/annomi/annomi';
import { assertWritable, readDialogueFile, writeItemsBack, writeTextAtomic } from '../core/format/files';
import { documentItems, formatItems, type DialogueDocument } from '../core/format/jsonl';
import { generateCandidates } from '../core/generation/generate';
import { MAX_CONTEXT_TOKENS } from '../core/generation/modelInput';
import { runJudge, type Judge } from '../core/judges/judge';
import { localOnnxJudge } from '../core/judges/localJudge';
import { loadPromptLibrary } from '../core/judges/prompts';
import { validateRunConfig, type JudgeSpec, type RunConfig } from '../core/judges/runConfig';
import { OnnxCausalLM } from '../core/models/causalLM';
import { isHubId, resolveCausalLM } from '../core/models/modelSource';
import { loadTokenizer } from '../core/models/tokenizer';
import type { DialogueItem, TherapistBehaviour } from '../core/model/types';
import { runJudgeMatrix, writeManifest } from './judgeRun';
import { BUNDLED_MODEL_ID } from '../core/judges/createJudge';
import { bundledAnnoMISample, bundledModel, bundledPrompts, packageVersion } from './paths';

const BEHAVIOURS = ['reflection', 'question', 'therapist_input', 'other'];
/** The demo caps candidates at 48 tokens: the tiny bundled model tends to loop, and AnnoMI reflections are short. */
const DEMO_MAX_NEW_TOKENS = 48;

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

function log(msg: string): void {
  process.stderr.write(msg + '\n');
}

/** Reads a dialogue file and reports its problems; exits when it holds no usable item and has problems. */
function openDialogues(path: string): { doc: DialogueDocument; items: DialogueItem[] } {
  const doc = readDialogueFile(path);
  for (const p of doc.problems) log(`${p.file}:${p.line}${p.field ? ` ${p.field}` : ''}: ${p.message} (line kept as is)`);
  return { doc, items: documentItems(doc) };
}

function selection(opts: Record<string, unknown>, file: string): AnnoMISelection {
  return {
    behaviour: opts.behaviour as TherapistBehaviour,
    quality: opts.quality as 'high' | 'low' | 'all',
    topic: opts.topic as string | undefined,
    sample: opts.sample as number | undefined,
    seed: opts.seed as string,
    onePerDialogue: opts.onePerDialogue as boolean,
    referenceAsCandidate: opts.referenceCandidate as boolean,
    sourceFile: basename(file),
  };
}

function annomiOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--behaviour <label>', 'therapist behaviour of the target utterances').choices(BEHAVIOURS).default('reflection'))
    .addOption(new Option('--quality <q>', 'MI quality of the dialogues').choices(['high', 'low', 'all']).default('high'))
    .option('--topic <text>', 'keep dialogues whose topic contains this text');
}

/** Loads `ref`, or the bundled model (named `bundled:reflect-gpt2-tiny` in outputs) when `ref` is undefined. */
async function loadModel(ref: string | undefined): Promise<OnnxCausalLM> {
  log(`loading model ${ref ?? BUNDLED_MODEL_ID}`);
  return ref ? OnnxCausalLM.load(ref) : OnnxCausalLM.load(bundledModel(), { id: BUNDLED_MODEL_ID });
}

function generateStep(items: DialogueItem[], model: OnnxCausalLM, maxNewTokens: number): Promise<DialogueItem[]> {
  return generateCandidates(model, items, { strategy: 'greedy', maxNewTokens }, {
    onProgress: (p) => log(`generated ${p.itemsDone}/${p.itemsTotal} contexts, ${p.tokensGenerated} tokens, ${((p.tokensGenerated / p.elapsedMs) * 1000).toFixed(1)} tokens/s`),
  });
}

async function judgeStep(items: DialogueItem[], judge: Judge, promptsDir: string[], body: string, request: string, concurrency = 1): Promise<DialogueItem[]> {
  const lib = loadPromptLibrary(...promptsDir);
  let last = 0;
  const res = await runJudge(items, judge, lib, { body, request }, {
    concurrency,
    onProgress: (p) => {
      if (p.done === p.total || p.done - last >= 10) {
        last = p.done;
        log(`judged ${p.done}/${p.total} candidates (${p.failures} without a usable score)`);
      }
    },
  });
  log(`evaluator ${res.evaluatorId}: ${res.calls} calls`);
  return res.items;
}

/** Builds the `reflect-eval` program. */
export function buildProgram(): Command {
  const program = new Command('reflect-eval')
    .description('Generate, judge and correlate counselling reflections (ReflectEval)')
    .version(packageVersion())
    .showHelpAfterError();

  const imp = program.command('import').description('import dialogues into a *.dialogues.jsonl file');
  annomiOptions(
    imp
      .command('annomi <csv>')
      .description('AnnoMI (Wu et al., ICASSP 2022): every therapist utterance of a behaviour becomes an item whose context is all preceding turns'),
  )
    .option('--sample <n>', 'sample N items with a seed', positiveInt)
    .option('--seed <seed>', 'seed of the sampler', '0')
    .option('--no-one-per-dialogue', 'allow several sampled items from one dialogue')
    .option('--no-reference-candidate', 'do not add the reference as a human candidate')
    .requiredOption('-o, --out <file>', 'output file (*.dialogues.jsonl)')
    .option('--force', 'overwrite the output file')
    .action((csv: string, opts: Record<string, unknown>) => {
      const out = resolve(opts.out as string);
      assertWritable(out, Boolean(opts.force));
      const dialogues = parseAnnoMI(readFileSync(csv, 'utf8'), basename(csv));
      const items = importAnnoMI(dialogues, selection(opts, csv));
      writeTextAtomic(out, formatItems(items));
      log(`wrote ${items.length} items to ${out}`);
    });

  const stats = program.command('stats').description('dataset statistics');
  annomiOptions(stats.command('annomi <csv>').description('therapist-label distribution of the selected dialogues (GEM 2022 Table 2) and turns per model input window (footnote 5)'))
    .option('--model <folderOrHubId>', "tokenizer of this generator (default: the bundled model)")
    .option('--max-context-tokens <n>', 'window size in tokens', positiveInt, MAX_CONTEXT_TOKENS)
    .option('--json', 'print JSON')
    .action(async (csv: string, opts: Record<string, unknown>) => {
      const dialogues = selectDialogues(parseAnnoMI(readFileSync(csv, 'utf8'), basename(csv)), selection(opts, csv));
      const dist = therapistLabelDistribution(dialogues);
      const ref = (opts.model as string | undefined) ?? bundledModel();
      const folder = isHubId(ref) ? (await resolveCausalLM(ref)).folder : resolve(ref);
      const tokenizer = await loadTokenizer(folder);
      const max = opts.maxContextTokens as number;
      const all = windowStats(dialogues, tokenizer, { behaviour: 'any', maxContextTokens: max });
      const target = windowStats(dialogues, tokenizer, { behaviour: opts.behaviour as TherapistBehaviour, maxContextTokens: max });
      if (opts.json) {
        process.stdout.write(JSON.stringify({ labels: dist, window: { maxContextTokens: max, allTherapistTurns: all, [String(opts.behaviour)]: target } }, null, 2) + '\n');
        return;
      }
      const lines = [`${dist.dialogues} dialogues (quality: ${opts.quality}${opts.topic ? `, topic: ${opts.topic}` : ''}), ${dist.therapistUtterances} therapist utterances`, '', 'label             count  share'];
      for (const [label, count] of Object.entries(dist.counts).sort((a, b) => b[1] - a[1])) {
        lines.push(`${label.padEnd(16)} ${String(count).padStart(6)}  ${(dist.proportions[label] * 100).toFixed(1).padStart(5)}%`);
      }
      lines.push('', `turns in a ${max}-token window (tokenizer: ${(opts.model as string | undefined) ?? 'bundled reflect-gpt2-tiny'})`);
      lines.push(`  all therapist turns (${all.examples}): mean ${all.meanTurns.toFixed(2)}, median ${all.medianTurns}, whole context fits ${(all.untruncatedShare * 100).toFixed(1)}%`);
      lines.push(`  ${opts.behaviour} targets (${target.examples}): mean ${target.meanTurns.toFixed(2)}, median ${target.medianTurns}, whole context fits ${(target.untruncatedShare * 100).toFixed(1)}%`);
      process.stdout.write(lines.join('\n') + '\n');
    });

  program
    .command('generate <file>')
    .description('generate one greedy candidate per item with a local ONNX model')
    .option('--model <folderOrHubId>', 'model folder (HF/Optimum ONNX layout) or hub id (default: the bundled model)')
    .option('--max-new-tokens <n>', 'tokens to generate at most', positiveInt, 128)
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const { doc, items } = openDialogues(file);
      const model = await loadModel(opts.model as string | undefined);
      try {
        const updated = await generateStep(items, model, opts.maxNewTokens as number);
        const n = writeItemsBack(doc, updated, resolve((opts.out as string | undefined) ?? file));
        log(`updated ${n} items`);
      } finally {
        await model.dispose();
      }
    });

  program
    .command('judge <file>')
    .description('score every candidate with LLM judges under ICMI 2023 prompt variants (one judge from flags, or a matrix from --config)')
    .option('--config <run.json>', 'judges × bodies × requests, concurrency and prices (see docs/judging.md); overrides the single-judge flags')
    .addOption(new Option('--backend <kind>', 'judge backend').choices(['local', 'openai']).default('local'))
    .option('--model <name>', 'local: model folder or hub id (default: bundled); openai: model name')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (openai backend)', 'https://api.openai.com/v1')
    .option('--body <name>', 'task body template', 'instructions')
    .option('--request <name>', 'assessment request template', 'rating')
    .option('--prompts <dir>', 'a prompts folder that overrides the bundled templates')
    .option('--concurrency <n>', 'judgements in flight at once', positiveInt, 4)
    .option('--cache <file>', 'response cache (default: .reflect-eval-cache/judge-cache.jsonl beside the file)')
    .option('--no-cache', 'call the judge even for prompts it has answered before')
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const { doc, items } = openDialogues(file);
      const prompts = [bundledPrompts(), ...(opts.prompts ? [resolve(opts.prompts as string)] : [])];
      let config: RunConfig;
      if (opts.config) {
        const configFile = resolve(opts.config as string);
        let parsed: unknown;
        try {
          parsed = JSON.parse(readFileSync(configFile, 'utf8'));
        } catch (err) {
          throw new Error(`${configFile}: not valid JSON: ${(err as Error).message}`);
        }
        config = validateRunConfig(parsed, configFile);
      } else {
        const spec: JudgeSpec =
          opts.backend === 'openai'
            ? { backend: 'openai-chat', model: opts.model as string, baseURL: opts.baseUrl as string, apiKeyEnv: process.env.REFLECT_EVAL_API_KEY ? 'REFLECT_EVAL_API_KEY' : 'OPENAI_API_KEY' }
            : { backend: 'local', ...(opts.model ? { model: opts.model as string } : {}) };
        if (spec.backend !== 'local' && !spec.model) throw new Error('--model is required with --backend openai');
        config = { judges: [spec], bodies: [opts.body as string], requests: [opts.request as string], concurrency: opts.concurrency as number };
      }
      const cacheFile = opts.cache === false ? null : typeof opts.cache === 'string' ? resolve(opts.cache) : join(dirname(resolve(file)), '.reflect-eval-cache', 'judge-cache.jsonl');
      const { items: updated, records } = await runJudgeMatrix(items, config, prompts, cacheFile, log);
      const out = resolve((opts.out as string | undefined) ?? file);
      const n = writeItemsBack(doc, updated, out);
      for (const r of records) log(`${r.evaluatorId}: ${r.judgements} judgements, ${r.calls} calls, ${r.cacheHits} from cache, ${r.failures} without a usable score`);
      const manifest = out.replace(/(\.dialogues)?\.jsonl$/, '') + '.judge-manifest.json';
      writeManifest(manifest, config, records, { file: basename(out), prompts: prompts, cache: cacheFile });
      log(`updated ${n} items; manifest ${manifest}`);
    });

  program
    .command('correlate <file>')
    .description("Spearman's rho of every evaluator against the human coherence score (annotators who said coherent)")
    .option('--json', 'print JSON')
    .action((file: string, opts: Record<string, unknown>) => {
      const { items } = openDialogues(file);
      const rows = correlationTable(items);
      if (opts.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      else process.stdout.write((rows.length ? formatCorrelationTable(rows) : 'no evaluator scores in this file') + '\n');
    });

  program
    .command('demo')
    .description('offline demo: import 15 AnnoMI contexts, generate greedy candidates with the bundled model, judge them with the local judge')
    .option('-o, --out <file>', 'output file', 'demo/annomi-demo.dialogues.jsonl')
    .option('--sample <n>', 'contexts to import', positiveInt, 15)
    .option('--seed <seed>', 'sampling seed', '0')
    .option('--csv <file>', 'AnnoMI CSV (default: the bundled sample)')
    .action(async (opts: Record<string, unknown>) => {
      const out = resolve(opts.out as string);
      mkdirSync(dirname(out), { recursive: true });
      const csv = (opts.csv as string | undefined) ?? bundledAnnoMISample();
      const dialogues = parseAnnoMI(readFileSync(csv, 'utf8'), basename(csv));
      let items = importAnnoMI(dialogues, { sample: opts.sample as number, seed: opts.seed as string, sourceFile: basename(csv) });
      log(`imported ${items.length} AnnoMI reflection contexts from ${csv}`);
      // One model serves as generator and as local judge.
      const model = await loadModel(undefined);
      try {
        items = await generateStep(items, model, DEMO_MAX_NEW_TOKENS);
        items = await judgeStep(items, localOnnxJudge(model), [bundledPrompts()], 'instructions', 'rating');
      } finally {
        await model.dispose();
      }
      writeTextAtomic(out, formatItems(items));
      log(`wrote ${out}: ${items.length} items, ${items.reduce((n, it) => n + it.candidates.length, 0)} candidates. Open it in VS Code with ReflectEval.`);
    });
  return program;
}

/** Runs the CLI; exits non-zero with the error message on failure. */
export async function main(argv: string[] = process.argv): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    log(`reflect-eval: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
