/**
 * The typed message protocol between the extension host and ReflectEval's webviews. Both sides compile
 * against these definitions; nothing else crosses the boundary.
 */
import type { DialogueItem } from '../src/core/model/types';

/** One row of the item list (kept small so 10,000 items stay cheap to send). */
export interface ItemEntry {
  index: number;
  id: string;
  /** Short label: topic and transcript/utterance ids. */
  label: string;
  candidates: number;
  /** Candidates the current annotator has labelled (coherent yes/no). */
  labelled: number;
}

/** A line of the file that could not be read as an item; it is kept verbatim on save. */
export interface ProblemEntry {
  line: number;
  field?: string;
  message: string;
}

// ---------- dialogue editor ----------

export type EditorHostMessage =
  | { type: 'index'; file: string; entries: ItemEntry[]; problems: ProblemEntry[]; annotator: string | null }
  | { type: 'item'; index: number; item: DialogueItem }
  | { type: 'busy'; message: string | null };

export type EditorWebviewMessage =
  | { type: 'ready' }
  | { type: 'select'; index: number }
  | { type: 'setCoherence'; index: number; itemId: string; candidateId: string; coherent: boolean | null }
  | { type: 'focusCandidate'; index: number; candidateId: string }
  | { type: 'command'; command: 'generate' | 'judge' | 'showCorrelation' | 'setAnnotator' };

// ---------- correlation panel ----------

/** One evaluator row as shown in the panel. */
export interface CorrelationRowView {
  evaluatorId: string;
  n: number;
  excluded: number;
  rho: number | null;
  pValue: number | null;
  undefinedReason?: string;
}

export type CorrelationHostMessage =
  | { type: 'table'; file: string | null; rows: CorrelationRowView[]; labelledCandidates: number; totalCandidates: number };

export type CorrelationWebviewMessage = { type: 'ready' };

// ---------- prompt preview ----------

export type PreviewHostMessage =
  | {
      type: 'preview';
      /** The template file being edited. */
      template: string;
      variant: { body: string; request: string };
      /** Where the candidate comes from, e.g. `annomi.dialogues.jsonl · annomi-4-32 · g1`. */
      candidate: string | null;
      prompt: string | null;
      tokens: { count: number; tokenizer: string; approximate: boolean; judge: string } | null;
      error: string | null;
    };

export type PreviewWebviewMessage = { type: 'ready' };

