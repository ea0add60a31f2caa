/**
 * `npm run bench -- annomi [AnnoMI.csv] [referenceDialogues]`: what `stats annomi` spends on the turns-in-window
 * statistic (GEM 2022 footnote 5), the tokenizer of the bundled generator: all therapist utterances of the file's
 * high-quality dialogues through the per-dialogue counter (DialogueWindows: each turn tokenized about three
 * times), and on the first `referenceDialogues` (default 8) dialogues the ratio to the path it replaced —
 * encoding the whole context and bisecting it for every utterance — with the counts checked equal.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseAnnoMI, selectDialogues, windowTurnCounts, type AnnoMIDialogue } from '../src/core/datasets/annomi';
import type { TextTokenizer } from '../src/core/models/tokenizer';
import { renderContext } from '../src/core/templates/modelInput';
import type { TherapistBehaviour } from '../src/core/dialogue/types';
import { loadTokenizer } from '../src/core/models/tokenizer';

/** The search `stats annomi` used before: encode the whole context first, then bisect over window-sized and larger strings. */
function previousTurnsInWindow(context: { speaker: 'client' | 'therapist'; text: string }[], tokenizer: TextTokenizer, behaviour: TherapistBehaviour, max: number): number {
  const fits = (n: number) => tokenizer.encode(renderContext(context.slice(context.length - n), behaviour)).length <= max;
  if (fits(context.length)) return context.length;
  let lo = 0;
  let hi = context.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

function previous(dialogues: AnnoMIDialogue[], tokenizer: TextTokenizer): number[] {
  const out: number[] = [];
  for (const d of dialogues) {
    const turns = d.utterances.map((u) => ({ speaker: u.speaker, text: u.text }));
    d.utterances.forEach((u, i) => {
      if (i === 0 || u.speaker !== 'therapist' || !u.behaviour) return;
      const code = (['question', 'therapist_input', 'reflection', 'other'].includes(u.behaviour) ? u.behaviour : 'other') as TherapistBehaviour;
      out.push(previousTurnsInWindow(turns.slice(0, i), tokenizer, code, 384));
    });
  }
  return out;
}

export async function run(args: string[]): Promise<void> {
  const shared = '/work/shared/data/AnnoMI-simple.csv';
  const csv = args[0] ?? (existsSync(shared) ? shared : join(__dirname, '../data/annomi/AnnoMI-sample.csv'));
  const refDialogues = Number(args[1] ?? 8);
  const dialogues = selectDialogues(parseAnnoMI(readFileSync(csv, 'utf8'), basename(csv)), { quality: 'high' });
  const tokenizer = await loadTokenizer(join(__dirname, '../fixtures/models/reflect-gpt2-tiny'));
  let t0 = performance.now();
  const all = windowTurnCounts(dialogues, tokenizer);
  const allMs = performance.now() - t0;
  console.log(`${basename(csv)}: ${dialogues.length} dialogues, ${all.length} therapist utterances`);
  console.log(`turns in window, all utterances (per-dialogue counter)   ${allMs.toFixed(0).padStart(7)} ms`);
  const some = dialogues.slice(0, refDialogues);
  t0 = performance.now();
  const fast = windowTurnCounts(some, tokenizer).map((m) => m.turns);
  const fastMs = performance.now() - t0;
  t0 = performance.now();
  const slow = previous(some, tokenizer);
  const slowMs = performance.now() - t0;
  const same = slow.length === fast.length && slow.every((n, i) => n === fast[i]);
  console.log(`first ${some.length} dialogues (${fast.length} utterances): counter ${fastMs.toFixed(0)} ms, previous search ${slowMs.toFixed(0)} ms: ${(slowMs / fastMs).toFixed(1)}× (same counts: ${same})`);
}
