/**
 * AnnoMI importer (Wu et al., "Anno-MI: A Dataset of Expert-Annotated Counselling Dialogues", ICASSP 2022;
 * public domain). Reads `AnnoMI-simple.csv` or `AnnoMI-full.csv` and turns therapist utterances of a chosen
 * behaviour into dialogue items whose context is every preceding turn of the same transcript.
 */
import { parse } from 'csv-parse/sync';
import seedrandom from 'seedrandom';
import type { TextTokenizer } from '../models/tokenizer';
import { shuffled } from '../stats/shuffle';
import { DialogueWindows, MAX_CONTEXT_TOKENS } from '../templates/modelInput';
import type { Candidate, DialogueItem, TherapistBehaviour, Turn } from '../dialogue/types';

/** Columns the importer needs; both the simple and the full AnnoMI releases have them. */
export const ANNOMI_REQUIRED_COLUMNS = [
  'transcript_id',
  'mi_quality',
  'topic',
  'utterance_id',
  'interlocutor',
  'utterance_text',
  'main_therapist_behaviour',
] as const;

/** One utterance row of AnnoMI. */
export interface AnnoMIUtterance {
  transcriptId: string;
  miQuality: string;
  topic: string;
  utteranceId: number;
  speaker: 'therapist' | 'client';
  text: string;
  /** `main_therapist_behaviour` for therapist turns, `client_talk_type` for client turns (when present). */
  behaviour?: string;
  /** 1-based CSV line of the row (header is line 1). */
  csvLine: number;
}

/** A transcript: its utterances in `utterance_id` order. */
export interface AnnoMIDialogue {
  transcriptId: string;
  miQuality: string;
  topic: string;
  utterances: AnnoMIUtterance[];
}

/** Error in an AnnoMI file, naming the file and, where known, the line and column. */
export class AnnoMIFormatError extends Error {
  constructor(
    readonly file: string,
    message: string,
    readonly line?: number,
    readonly column?: string,
  ) {
    super(`${file}${line !== undefined ? `:${line}` : ''}${column ? ` (column "${column}")` : ''}: ${message}`);
    this.name = 'AnnoMIFormatError';
  }
}

const BEHAVIOURS: readonly string[] = ['reflection', 'question', 'therapist_input', 'other'];

/**
 * Parses an AnnoMI CSV into dialogues. When the full release lists an utterance more than once (several
 * annotators), the first row is used.
 *
 * @param csvText - file contents
 * @param file - file name for error messages
 * @throws AnnoMIFormatError on an empty file, missing columns, or a row with a bad `interlocutor`/`utterance_id`
 */
export function parseAnnoMI(csvText: string, file: string): AnnoMIDialogue[] {
  let records: string[][];
  try {
    records = parse(csvText, { relax_column_count: false, skip_empty_lines: true, bom: true });
  } catch (err) {
    const e = err as Error & { lines?: number };
    throw new AnnoMIFormatError(file, `not a readable CSV file: ${e.message}`, e.lines);
  }
  if (records.length === 0) throw new AnnoMIFormatError(file, 'the file is empty; expected an AnnoMI CSV with a header row');
  const header = records[0].map((h) => h.trim());
  const missing = ANNOMI_REQUIRED_COLUMNS.filter((c) => !header.includes(c));
  if (missing.length === ANNOMI_REQUIRED_COLUMNS.length) {
    throw new AnnoMIFormatError(file, `this is not an AnnoMI file: none of its columns (${ANNOMI_REQUIRED_COLUMNS.join(', ')}) is in the header`, 1);
  }
  if (missing.length > 0) throw new AnnoMIFormatError(file, `missing AnnoMI column(s): ${missing.join(', ')}`, 1);
  const col = Object.fromEntries(header.map((h, i) => [h, i])) as Record<string, number>;
  const talkType = col['client_talk_type'];

  const byTranscript = new Map<string, AnnoMIDialogue>();
  const seen = new Set<string>();
  for (let r = 1; r < records.length; r++) {
    const row = records[r];
    const csvLine = r + 1;
    const get = (c: string) => row[col[c]] ?? '';
    const speaker = get('interlocutor').trim();
    if (speaker !== 'therapist' && speaker !== 'client') {
      throw new AnnoMIFormatError(file, `interlocutor must be "therapist" or "client", got ${JSON.stringify(speaker)}`, csvLine, 'interlocutor');
    }
    const utteranceId = Number(get('utterance_id'));
    if (!Number.isInteger(utteranceId) || utteranceId < 0) {
      throw new AnnoMIFormatError(file, `utterance_id must be a non-negative integer, got ${JSON.stringify(get('utterance_id'))}`, csvLine, 'utterance_id');
    }
    const transcriptId = get('transcript_id').trim();
    if (!transcriptId) throw new AnnoMIFormatError(file, 'transcript_id is empty', csvLine, 'transcript_id');
    const key = `${transcriptId}\u0000${utteranceId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let dialogue = byTranscript.get(transcriptId);
    if (!dialogue) {
      dialogue = { transcriptId, miQuality: get('mi_quality').trim(), topic: get('topic').trim(), utterances: [] };
      byTranscript.set(transcriptId, dialogue);
    }
    const rawBehaviour = speaker === 'therapist' ? get('main_therapist_behaviour').trim() : talkType !== undefined ? (row[talkType] ?? '').trim() : '';
    dialogue.utterances.push({
      transcriptId,
      miQuality: dialogue.miQuality,
      topic: dialogue.topic,
      utteranceId,
      speaker,
      text: get('utterance_text'),
      behaviour: rawBehaviour && rawBehaviour !== 'n/a' ? rawBehaviour : undefined,
      csvLine,
    });
  }
  const dialogues = [...byTranscript.values()];
  for (const d of dialogues) d.utterances.sort((a, b) => a.utteranceId - b.utteranceId);
  return dialogues.sort((a, b) => Number(a.transcriptId) - Number(b.transcriptId) || a.transcriptId.localeCompare(b.transcriptId));
}

/** Which dialogues and targets to import. */
export interface AnnoMISelection {
  /** Therapist behaviour of the target utterances (default `reflection`). */
  behaviour?: TherapistBehaviour;
  /** MI quality of the dialogues: `high` (default), `low`, or `all`. */
  quality?: 'high' | 'low' | 'all';
  /** Keep only dialogues whose topic contains this text (case-insensitive). */
  topic?: string;
  /** Sample this many items; all when omitted. */
  sample?: number;
  /** Seed of the sampler (default 0). */
  seed?: number | string;
  /** At most one item per dialogue (as the seeds sample 15 contexts from 15 dialogues). Default true when sampling. */
  onePerDialogue?: boolean;
  /** Add the reference as a human candidate, as the seeds annotate it alongside model outputs (default true). */
  referenceAsCandidate?: boolean;
  /** Base name of the source file, recorded in provenance. */
  sourceFile?: string;
}

/** Dialogues matching the quality and topic filters. */
export function selectDialogues(dialogues: AnnoMIDialogue[], sel: AnnoMISelection = {}): AnnoMIDialogue[] {
  const quality = sel.quality ?? 'high';
  const topic = sel.topic?.toLowerCase();
  return dialogues.filter((d) => (quality === 'all' || d.miQuality === quality) && (!topic || d.topic.toLowerCase().includes(topic)));
}

function toTurn(u: AnnoMIUtterance): Turn {
  const turn: Turn = { speaker: u.speaker, text: u.text, utteranceId: String(u.utteranceId) };
  if (u.behaviour) turn.behaviour = u.behaviour;
  return turn;
}

/** The item for target utterance `index` of `dialogue`: context = all preceding turns. */
export function itemFor(dialogue: AnnoMIDialogue, index: number, sel: AnnoMISelection = {}): DialogueItem {
  const target = dialogue.utterances[index];
  const candidates: Candidate[] = [];
  if (sel.referenceAsCandidate ?? true) {
    candidates.push({ id: 'ref', text: target.text, origin: { kind: 'human', source: 'AnnoMI reference' }, annotations: [], scores: {} });
  }
  return {
    id: `annomi-${dialogue.transcriptId}-${target.utteranceId}`,
    context: dialogue.utterances.slice(0, index).map(toTurn),
    reference: { text: target.text, behaviour: target.behaviour },
    provenance: {
      dataset: 'AnnoMI',
      transcriptId: dialogue.transcriptId,
      utteranceId: String(target.utteranceId),
      topic: dialogue.topic,
      miQuality: dialogue.miQuality,
      ...(sel.sourceFile ? { sourceFile: sel.sourceFile } : {}),
    },
    candidates,
  };
}

/**
 * Items for every therapist utterance of the chosen behaviour with at least one preceding turn, in the
 * selected dialogues; optionally a seeded sample of N, at most one per dialogue.
 *
 * Sampling (when `sample` is set): with `onePerDialogue` (the default), dialogues that have at least one
 * target are shuffled with the seed, the first N are kept, and one target is drawn uniformly in each;
 * otherwise all targets are shuffled and the first N kept. The result is in transcript order.
 *
 * @throws RangeError if `sample` is not a positive integer or asks for more items than exist
 */
export function importAnnoMI(dialogues: AnnoMIDialogue[], sel: AnnoMISelection = {}): DialogueItem[] {
  const behaviour = sel.behaviour ?? 'reflection';
  if (!BEHAVIOURS.includes(behaviour)) throw new RangeError(`unknown therapist behaviour "${behaviour}" (known: ${BEHAVIOURS.join(', ')})`);
  const chosen = selectDialogues(dialogues, sel);
  const targets = chosen.map((d) => ({
    dialogue: d,
    indices: d.utterances.flatMap((u, i) => (u.speaker === 'therapist' && u.behaviour === behaviour && i > 0 ? [i] : [])),
  }));
  const all = () => targets.flatMap((t) => t.indices.map((i) => ({ dialogue: t.dialogue, index: i })));
  let picked: { dialogue: AnnoMIDialogue; index: number }[];
  if (sel.sample === undefined) {
    picked = all();
  } else {
    const n = sel.sample;
    if (!Number.isInteger(n) || n <= 0) throw new RangeError(`sample must be a positive integer, got ${n}`);
    const rng = seedrandom(String(sel.seed ?? 0));
    if (sel.onePerDialogue ?? true) {
      const withTargets = targets.filter((t) => t.indices.length > 0);
      if (n > withTargets.length) {
        throw new RangeError(`asked for ${n} items at most one per dialogue, but only ${withTargets.length} selected dialogues have a ${behaviour}`);
      }
      picked = shuffled(withTargets, rng)
        .slice(0, n)
        .map((t) => ({ dialogue: t.dialogue, index: t.indices[Math.floor(rng() * t.indices.length)] }));
    } else {
      const pool = all();
      if (n > pool.length) throw new RangeError(`asked for ${n} items but only ${pool.length} ${behaviour} targets are selected`);
      picked = shuffled(pool, rng).slice(0, n);
    }
    const order = new Map(chosen.map((d, i) => [d, i]));
    picked.sort((a, b) => order.get(a.dialogue)! - order.get(b.dialogue)! || a.index - b.index);
  }
  return picked.map((p) => itemFor(p.dialogue, p.index, sel));
}

/** Counts and proportions of therapist behaviour labels (GEM 2022 Table 2). */
export interface LabelDistribution {
  dialogues: number;
  therapistUtterances: number;
  counts: Record<string, number>;
  proportions: Record<string, number>;
}

/** Therapist-label distribution over `dialogues`; unlabelled therapist turns count as `(none)`. */
export function therapistLabelDistribution(dialogues: AnnoMIDialogue[]): LabelDistribution {
  const counts: Record<string, number> = {};
  let total = 0;
  for (const d of dialogues) {
    for (const u of d.utterances) {
      if (u.speaker !== 'therapist') continue;
      const label = u.behaviour ?? '(none)';
      counts[label] = (counts[label] ?? 0) + 1;
      total++;
    }
  }
  const proportions = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, total ? v / total : 0]));
  return { dialogues: dialogues.length, therapistUtterances: total, counts, proportions };
}

/** How many context turns fit in the model input window (GEM 2022 §3.2, footnote 5: "on average N = 14"). */
export interface WindowStats {
  /** Therapist utterances with at least one preceding turn that were measured. */
  examples: number;
  /** Mean number of whole turns kept by the left-truncated window. */
  meanTurns: number;
  medianTurns: number;
  /** Share of examples whose whole context fits (no truncation). */
  untruncatedShare: number;
}

/** One therapist utterance measured by {@link windowTurnCounts}. */
export interface WindowTurnCount {
  behaviour: TherapistBehaviour;
  /** Whole context turns that fit in the window. */
  turns: number;
  /** Context turns before the utterance (all of them fit when `turns` equals it). */
  contextTurns: number;
}

/**
 * For every labelled therapist utterance with at least one preceding turn, the number of whole context turns
 * that fit in a `maxContextTokens` window of `tokenizer` (each dialogue tokenized once, {@link DialogueWindows}).
 */
export function windowTurnCounts(dialogues: AnnoMIDialogue[], tokenizer: TextTokenizer, maxContextTokens = MAX_CONTEXT_TOKENS): WindowTurnCount[] {
  const out: WindowTurnCount[] = [];
  for (const d of dialogues) {
    const windows = new DialogueWindows(d.utterances.map(toTurn), tokenizer);
    d.utterances.forEach((u, i) => {
      if (i === 0 || u.speaker !== 'therapist' || !u.behaviour) return;
      const code = (BEHAVIOURS.includes(u.behaviour) ? u.behaviour : 'other') as TherapistBehaviour;
      out.push({ behaviour: u.behaviour as TherapistBehaviour, turns: windows.turnsInWindow(i, code, maxContextTokens), contextTurns: i });
    });
  }
  return out;
}

/** Summarises {@link windowTurnCounts} for utterances of `behaviour` (or all with `'any'`). */
export function summariseWindowCounts(measured: readonly WindowTurnCount[], behaviour: TherapistBehaviour | 'any' = 'any'): WindowStats {
  const chosen = measured.filter((m) => behaviour === 'any' || m.behaviour === behaviour);
  const counts = chosen.map((m) => m.turns);
  const untruncated = chosen.filter((m) => m.turns === m.contextTurns).length;
  const sorted = [...counts].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return {
    examples: counts.length,
    meanTurns: counts.length ? counts.reduce((s, n) => s + n, 0) / counts.length : 0,
    medianTurns: sorted.length === 0 ? 0 : sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2,
    untruncatedShare: counts.length ? untruncated / counts.length : 0,
  };
}

/**
 * Measures, for every therapist utterance of `behaviour` (or of any behaviour with `'any'`) with at least one
 * preceding turn, the number of whole context turns that fit in a `maxContextTokens` window of `tokenizer`.
 */
export function windowStats(
  dialogues: AnnoMIDialogue[],
  tokenizer: TextTokenizer,
  options: { behaviour?: TherapistBehaviour | 'any'; maxContextTokens?: number } = {},
): WindowStats {
  return summariseWindowCounts(windowTurnCounts(dialogues, tokenizer, options.maxContextTokens ?? MAX_CONTEXT_TOKENS), options.behaviour ?? 'any');
}
