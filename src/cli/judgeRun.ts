/**
 * `reflect-eval judge`: runs a judge matrix (judges × task bodies × requests) over a dialogue file with a
 * progress bar, a response cache and a run manifest written next to the results.
 */
import { writeFileSync } from 'node:fs';
import cliProgress from 'cli-progress';
import { cachedJudge, JudgeCache, type CacheStats } from '../core/judges/cache';
import { runJudge, type Judge } from '../core/judges/judge';
import { createJudge, judgeDescription } from '../core/judges/createJudge';
import { loadPromptLibrary, templateHash } from '../core/judges/prompts';
import { costOf, plannedCalls, type JudgeSpec, type RunConfig } from '../core/judges/runConfig';
import type { DialogueItem } from '../core/dialogue/types';
import { bundledModel, packageVersion } from './paths';

/** What a run did, per judge × body × request; written as the manifest. */
export interface JudgeRunRecord {
  evaluatorId: string;
  judge: string;
  body: string;
  request: string;
  templateHash: string;
  judgements: number;
  calls: number;
  cacheHits: number;
  failures: number;
  usage: { promptTokens: number; completionTokens: number };
  cost: number | null;
}

async function makeJudge(spec: JudgeSpec): Promise<{ judge: Judge; dispose: () => Promise<void> }> {
  const env = spec.apiKeyEnv ?? 'REFLECT_EVAL_API_KEY';
  if (spec.backend !== 'local' && !process.env[env]) throw new Error(`set ${env} to the API key of ${spec.baseURL} (judge ${spec.model})`);
  return createJudge(spec, { apiKey: spec.backend === 'local' ? undefined : process.env[env], bundledModel: bundledModel() });
}

/**
 * Runs every judge × body × request of `config` over `items`, caching replies in `cacheFile` (unless null).
 *
 * @returns the updated items and one record per evaluator
 */
export async function runJudgeMatrix(
  items: DialogueItem[],
  config: RunConfig,
  promptRoots: string[],
  cacheFile: string | null,
  log: (msg: string) => void,
): Promise<{ items: DialogueItem[]; records: JudgeRunRecord[] }> {
  const lib = loadPromptLibrary(...promptRoots);
  for (const body of config.bodies) for (const request of config.requests) templateHash(lib, { body, request });
  const total = plannedCalls(items, config);
  log(`${total} judgements planned (${items.reduce((n, it) => n + it.candidates.length, 0)} candidates × ${config.judges.length} judges × ${config.bodies.length} bodies × ${config.requests.length} requests)`);
  const bar = new cliProgress.SingleBar({ format: 'judging [{bar}] {value}/{total} · {evaluator}', stream: process.stderr, noTTYOutput: true, notTTYSchedule: 5000 }, cliProgress.Presets.shades_classic);
  bar.start(total, 0, { evaluator: '' });
  const records: JudgeRunRecord[] = [];
  let current = items;
  let base = 0;
  try {
    for (const spec of config.judges) {
      const { judge: raw, dispose } = await makeJudge(spec);
      try {
        for (const body of config.bodies) {
          for (const request of config.requests) {
            const stats: CacheStats = { hits: 0, calls: 0 };
            const judge = cacheFile ? cachedJudge(raw, new JudgeCache(cacheFile), judgeDescription(spec)) : raw;
            const res = await runJudge(current, judge, lib, { body, request }, {
              concurrency: config.concurrency ?? 4,
              onProgress: (p) => bar.update(base + p.done, { evaluator: `${raw.id} ${body}×${request}` }),
            });
            if ('stats' in judge) Object.assign(stats, (judge as { stats: CacheStats }).stats);
            else stats.calls = res.calls;
            base += current.reduce((n, it) => n + it.candidates.length, 0);
            current = res.items;
            records.push({
              evaluatorId: res.evaluatorId,
              judge: raw.id,
              body,
              request,
              templateHash: templateHash(lib, { body, request }),
              judgements: res.calls,
              calls: stats.calls,
              cacheHits: stats.hits,
              failures: res.failures,
              usage: res.usage,
              cost: costOf(res.usage, spec.model ? config.prices?.[spec.model] : undefined),
            });
          }
        }
      } finally {
        await dispose();
      }
    }
  } finally {
    bar.stop();
  }
  return { items: current, records };
}

/** Writes the run manifest: judges (no secrets), templates with hashes, parameters, versions, counts, tokens, cost. */
export function writeManifest(path: string, config: RunConfig, records: JudgeRunRecord[], extra: Record<string, unknown>): void {
  const totals = records.reduce(
    (t, r) => ({
      judgements: t.judgements + r.judgements,
      calls: t.calls + r.calls,
      cacheHits: t.cacheHits + r.cacheHits,
      failures: t.failures + r.failures,
      promptTokens: t.promptTokens + r.usage.promptTokens,
      completionTokens: t.completionTokens + r.usage.completionTokens,
      cost: r.cost === null ? t.cost : (t.cost ?? 0) + r.cost,
    }),
    { judgements: 0, calls: 0, cacheHits: 0, failures: 0, promptTokens: 0, completionTokens: 0, cost: null as number | null },
  );
  const manifest = {
    tool: 'reflect-eval',
    version: packageVersion(),
    node: process.version,
    finishedAt: new Date().toISOString(),
    ...extra,
    judges: config.judges.map(judgeDescription),
    bodies: config.bodies,
    requests: config.requests,
    concurrency: config.concurrency ?? 4,
    prices: config.prices ?? {},
    evaluators: records,
    totals,
  };
  writeFileSync(path, JSON.stringify(manifest, null, 2) + '\n');
}
