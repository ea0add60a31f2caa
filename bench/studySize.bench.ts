/**
 * `npm run bench -- studySize [AnnoMI.csv] [--write compact.dialogues.jsonl]`: the size of the dialogue file a full study writes in
 * today's format — every AnnoMI reflection context × the GEM 2022 grid (26 candidates per context: greedy, beam-5
 * all, nucleus p ∈ {0.4, 0.6, 0.8, 0.95} × 5) × 12 judge variants (3 bodies × 2 requests × 2 judges) and 5 metric
 * outputs (BLEU-4, ROUGE-L f/p/r, METEOR) — built in memory with score objects shaped as the jobs write them, and
 * formatted with the real writer. The size is what decides whether VS Code hands the file to an extension (50 MB).
 * It then prints the size of the same study compacted (`reflect-eval compact`, docs/format.md "Compact files").
 * Pass ../shared/data/AnnoMI-full.csv for the full 1,256 contexts; the committed sample has fewer, and the size is
 * then also extrapolated per context.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importAnnoMI, parseAnnoMI } from '../src/core/datasets/annomi';
import type { Candidate, DialogueItem, Score } from '../src/core/dialogue/types';
import { compactDocument } from '../src/core/format/compact';
import { formatItems, parseDocument } from '../src/core/format/jsonl';

const VS_CODE_SYNC_LIMIT = 50 * 1024 * 1024;

function grid(): Record<string, unknown>[] {
  const settings: Record<string, unknown>[] = [{ strategy: 'greedy' }];
  for (let i = 0; i < 5; i++) settings.push({ strategy: 'beam', numBeams: 5, beamRank: i, lengthPenalty: 1, earlyStopping: true });
  for (const topP of [0.4, 0.6, 0.8, 0.95]) for (let s = 0; s < 5; s++) settings.push({ strategy: 'nucleus', topP, temperature: 1, sampleIndex: s, seed: 2166136261 + s });
  return settings.map((d) => ({ ...d, maxNewTokens: 128, behaviour: 'reflection', maxContextTokens: 384 }));
}

function metricScores(at: string): Record<string, Score> {
  const v = { value: 0.123456789012345, status: 'ok' as const, at };
  return {
    'metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0': { ...v, signature: 'impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0' },
    'metric:rougeL.f@impl:rouge-score-0.1.2|tok:default|stem:none|rv:0.1.0': { ...v },
    'metric:rougeL.precision@impl:rouge-score-0.1.2|tok:default|stem:none|rv:0.1.0': { ...v },
    'metric:rougeL.recall@impl:rouge-score-0.1.2|tok:default|stem:none|rv:0.1.0': { ...v },
    'metric:meteor.score@impl:nltk-3.8|mode:tokens|tok:whitespace+lower|alpha:0.9|beta:3|gamma:0.5|stem:porter-nltk-3.8|wn:3.0|rv:0.1.0': { ...v },
  } as Record<string, Score>;
}

function judgeScores(at: string): Record<string, Score> {
  const out: Record<string, Score> = {};
  for (const judge of ['api:gpt-4o-2024-08-06', 'local:bundled:reflect-gpt2-tiny']) {
    for (const body of ['instructions', 'instructions-tutorial', 'instructions-error-explanations']) {
      for (const request of ['rating', 'scoring']) {
        const signature = judge.startsWith('api')
          ? `backend:openai-chat|url:https://api.openai.com/v1|model:gpt-4o-2024-08-06|temperature:0|maxTokens:16|logprobs:true|body:${body}|request:${request}|tmpl:61b35994153b|rv:0.1.0`
          : `backend:local|model:bundled:reflect-gpt2-tiny|answers:logprob|fit:oldest-turns-first|body:${body}|request:${request}|tmpl:61b35994153b|rv:0.1.0`;
        out[`judge:${judge}:${body}×${request}@61b35994153b~d334babf`] = {
          value: request === 'rating' ? 4 : 73,
          status: 'ok',
          raw: request === 'rating' ? '4' : '73',
          expected: 3.8637205371294177,
          signature,
          judge,
          variant: { body, request },
          templateHash: '61b35994153b',
          at,
        } as unknown as Score;
      }
    }
  }
  return out;
}

export async function run(args: string[]): Promise<void> {
  const csv = args.find((a) => a.endsWith('.csv')) ?? join(__dirname, '..', 'data', 'annomi', 'AnnoMI-sample.csv');
  const at = '2026-11-25T19:57:13.313Z';
  const items: DialogueItem[] = importAnnoMI(parseAnnoMI(readFileSync(csv, 'utf8'), csv), { behaviour: 'reflection', quality: 'all' });
  const settings = grid();
  for (const it of items) {
    const ref = it.candidates[0];
    const generated: Candidate[] = settings.map((decoding, i) => ({
      id: `g${i + 1}`,
      text: ref?.text ?? 'So you feel that drinking makes it harder to think straight.',
      origin: { kind: 'model', model: 'bundled:reflect-gpt2-tiny', decoding, createdAt: at },
      annotations: [],
      scores: { ...metricScores(at), ...judgeScores(at) },
    }) as unknown as Candidate);
    it.candidates.push(...generated);
  }
  const text = formatItems(items);
  const bytes = Buffer.byteLength(text);
  const perContext = bytes / items.length;
  const scoreBytes = items.reduce((n, it) => n + it.candidates.reduce((m, c) => m + Buffer.byteLength(JSON.stringify(c.scores)), 0), 0);
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  console.log(`${csv}: ${items.length} reflection contexts × ${settings.length} grid candidates (+ the reference) × (12 judge variants + 5 metric outputs)`);
  console.log(`file: ${mb(bytes)} (${Math.round(perContext / 1024)} KB per context); scores are ${((100 * scoreBytes) / bytes).toFixed(0)} % of it`);
  if (items.length < 1000) console.log(`1,256 contexts (the issue's full AnnoMI study): ≈ ${mb(perContext * 1256)} at this size per context`);
  console.log(`VS Code hands extensions files up to ${mb(VS_CODE_SYNC_LIMIT)}: this file is ${(bytes / VS_CODE_SYNC_LIMIT).toFixed(1)}× the limit`);
  // The same study after `reflect-eval compact` (evaluators once in a header line, each score as its value), with
  // the scores' times spread over a run as a real one writes them (each judge score its own millisecond).
  let tick = Date.parse(at);
  for (const it of items) for (const c of it.candidates) for (const s of Object.values(c.scores)) s.at = new Date(tick++).toISOString();
  const long = formatItems(items);
  const doc = parseDocument(Buffer.from(long, 'utf8'), 'study.dialogues.jsonl');
  for (const [label, options] of [['compact', {}], ['compact --keep-raw --keep-times', { keepRaw: true, keepTimes: true }]] as const) {
    const compact = compactDocument(doc, options);
    const n = compact.bytes.length;
    if (label === 'compact' && args.includes('--write')) {
      const path = args[args.indexOf('--write') + 1];
      writeFileSync(path, compact.bytes);
      console.log(`wrote ${path}`);
    }
    console.log(`${label}: ${mb(n)} (${Math.round(n / items.length / 1024)} KB per context; ${((100 * n) / Buffer.byteLength(long)).toFixed(0)} % of the long form)${items.length < 1000 ? `, ≈ ${mb((n / items.length) * 1256)} for 1,256 contexts` : ''}; ${(n / VS_CODE_SYNC_LIMIT).toFixed(2)}× VS Code's limit`);
  }
}
