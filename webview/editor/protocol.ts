/**
 * The typed message protocol between the extension host and the dialogue editor webview. Both sides compile against these
 * definitions; nothing else crosses the boundary.
 */
import type { DialogueItem } from '../../src/core/model/types';

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
