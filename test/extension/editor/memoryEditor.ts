/**
 * The dialogue editor's controller without VS Code: a document held in memory (core's `LineText` and
 * `LineDocument`, parsed as `DialogueFileDocument.parse` does, incrementally after edits in place), the host side of
 * the message layer recording what it sends, and an `EditorHost` that records what the controller asks of VS Code.
 */
import { LineDocument } from '../../../src/core/format/lineDocument';
import { LineText, type LineReplacement } from '../../../src/core/format/lineText';
import { documentItems, formatItems, parseRawLines, serializeItem, type DialogueDocument } from '../../../src/core/format/jsonl';
import { reparseLines } from '../../../src/core/format/lineUpdate';
import { problemLines, type ProblemLine } from '../../../src/core/format/lineReport';
import type { DialogueItem, Score } from '../../../src/core/dialogue/types';
import type { ConflictEntry, EditorCommand, EditorProtocol } from '../../../webview/editor/protocol';
import type { HostEnvelope, WebviewEnvelope } from '../../../webview/shared/messages';
import { HostChannel } from '../../../src/extension/webviewChannel';
import { EditorController, type EditorDocument, type EditorHost } from '../../../src/extension/editor/controller';
import type { EditorNow } from '../../../src/extension/editor/updates';
import type { PlanState } from '../../../src/extension/itemNavigator';
import { DEFAULT_SETUP, type StudySetup } from '../../../src/extension/editor/study';

/** A study item: `n` candidates, the first two with scores, labelled by `Lay-1`. */
export function studyItem(i: number, n = 3): DialogueItem {
  return {
    id: `item-${i}`,
    context: [
      { speaker: 'therapist', text: `How was your week, number ${i}?` },
      { speaker: 'client', text: `I drank more than I wanted to, ${i} times.` },
    ],
    reference: { text: 'You feel it got out of hand.' },
    provenance: { dataset: 'AnnoMI', topic: 'alcohol', transcriptId: `t${i}`, utteranceId: '2' },
    candidates: Array.from({ length: n }, (_, k) => ({
      id: `c${k}`,
      text: `Reflection ${k} of item ${i}.`,
      origin: k === 0 ? { kind: 'human' as const, source: 'ground truth' } : { kind: 'model' as const, model: 'gpt2', decoding: { strategy: 'greedy' as const } },
      annotations: [{ annotator: 'Lay-1', coherent: k % 2 === 0 }],
      scores: (k < 2 ? { 'metric:bleu4.score@impl:nltk-3.8|tok:whitespace|rv:0.1.0': { value: 0.1 * (k + 1), status: 'ok' } } : {}) as Record<string, Score>,
    })),
  };
}

/** The text of a dialogue file of `count` study items. */
export function studyFile(count: number): string {
  return formatItems(Array.from({ length: count }, (_, i) => studyItem(i)));
}

/** A dialogue document in memory, with the document model's parse cache and edits. */
export class MemoryDocument implements EditorDocument {
  private doc: LineDocument;
  private parsed: { version: number; doc: DialogueDocument; pending?: Set<number> | 'all' } | undefined;
  private readonly listeners: ((lines: number[] | undefined) => void)[] = [];
  readonly name = 'study.dialogues.jsonl';
  isClosed = false;
  diskProblemCount = 0;
  /** The next `updateItems` throws this (a line not where the parse says). */
  failNext: Error | undefined;
  parses = 0;

  constructor(text: string) {
    this.doc = new LineDocument(LineText.fromBytes(new TextEncoder().encode(text)));
  }

  get version(): number {
    return this.doc.version;
  }

  get isDirty(): boolean {
    return this.doc.isDirty;
  }

  /** Calls `listener` after every change: the lines changed in place, or undefined for a change of structure. */
  onChange(listener: (lines: number[] | undefined) => void): void {
    this.listeners.push(listener);
  }

  parse(): DialogueDocument {
    const hit = this.parsed;
    if (hit && hit.version === this.version) return hit.doc;
    const inPlace = hit && hit.pending instanceof Set ? reparseLines(hit.doc, [...hit.pending].map((line) => ({ line, text: this.doc.text.line(line) }))) : undefined;
    const doc = inPlace ?? parseRawLines(this.doc.text.rawLines(), this.name, hit?.doc);
    this.parses++;
    this.parsed = { version: this.version, doc };
    return doc;
  }

  items(): DialogueItem[] {
    return documentItems(this.parse());
  }

  /** Replaces lines in place (as a label edit does) and tells the listeners. */
  editLines(edits: LineReplacement[]): void {
    const done = this.doc.edit(edits);
    if (!done) return;
    this.track(done.changed.map((e) => e.line));
  }

  /** Replaces the whole text (as a reload does): a change of structure. */
  replaceText(text: string): void {
    this.doc.reload(LineText.fromBytes(new TextEncoder().encode(text)));
    this.track(undefined);
  }

  private track(lines: number[] | undefined): void {
    if (this.parsed) {
      if (!lines) this.parsed.pending = 'all';
      else if (this.parsed.pending !== 'all') this.parsed.pending = new Set([...(this.parsed.pending ?? []), ...lines]);
    }
    for (const l of this.listeners) l(lines);
  }

  updateItems(update: (item: DialogueItem) => DialogueItem | undefined): number {
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = undefined;
      throw err;
    }
    const doc = this.parse();
    const edits: LineReplacement[] = [];
    for (const line of doc.itemLines) {
      const entry = doc.lines[line];
      if (entry.kind !== 'item') continue;
      const next = update(entry.item);
      if (next) edits.push({ line, text: serializeItem(next) });
    }
    this.editLines(edits);
    return edits.length;
  }

  problemLines(): ProblemLine[] {
    return problemLines(this.parse());
  }

  async readDiskProblems(): Promise<boolean> {
    return false;
  }

  conflicts(): ConflictEntry[] {
    return [];
  }

  async resolveConflict(): Promise<void> {}
}

/** What the controller asked of VS Code. */
export interface HostLog {
  commands: EditorCommand[];
  errors: string[];
  selections: { itemIndex: number; candidateId: string | null }[];
  diagnostics: number;
}

/**
 * A controller on a memory document, with its channel's messages recorded and a way to play the webview.
 * `typedAnnotator`: what the user types when `setAnnotator` asks (absent: they cancel).
 */
export function editorOn(text: string, settings: { annotator: string | null; blind: boolean } = { annotator: 'Lay-1', blind: false }, study: { setup: StudySetup } = { setup: DEFAULT_SETUP }, typedAnnotator?: string) {
  const document = new MemoryDocument(text);
  const sent: HostEnvelope[] = [];
  const channel = new HostChannel<EditorProtocol>((msg) => void sent.push(structuredClone(msg)), (err) => log.errors.push(err.message));
  const log: HostLog = { commands: [], errors: [], selections: [], diagnostics: 0 };
  const host: EditorHost = {
    settings: () => settings,
    setup: () => study.setup,
    requestSpecs: () => ({}),
    plan: () => null,
    setDiagnostics: () => void log.diagnostics++,
    showError: (message) => void log.errors.push(message),
    runCommand: async (command) => {
      log.commands.push(command);
      if (command === 'setAnnotator' && typedAnnotator !== undefined) settings.annotator = typedAnnotator;
    },
    activate: () => undefined,
    webviewReady: () => undefined,
    revealLine: async () => undefined,
    selected: (itemIndex, candidateId) => void log.selections.push({ itemIndex, candidateId }),
    focused: () => undefined,
    progress: () => undefined,
    trace: () => undefined,
  };
  const controller = new EditorController(document, host, channel, { setTimeout: () => 0, clearTimeout: () => undefined });
  document.onChange((lines) => controller.documentChanged(lines));
  let seq = 0;
  const webview = {
    /** Sends a notification as the webview would; returns its number. */
    notify<K extends keyof EditorProtocol['toHost']>(type: K, params: EditorProtocol['toHost'][K]): number {
      channel.receive({ type, seq: ++seq, params } satisfies WebviewEnvelope);
      return seq;
    },
    /** Sends a request as the webview would; returns its number. */
    request<K extends keyof EditorProtocol['requests']>(type: K, params: EditorProtocol['requests'][K] extends { params: infer P } ? P : never): number {
      channel.receive({ type, seq: ++seq, params, request: true } satisfies WebviewEnvelope);
      return seq;
    },
  };
  return { document, controller, channel, sent, log, settings, webview, study };
}

/** The kinds of the messages sent after message number `after` (all, by default). */
export function kinds(sent: HostEnvelope[], after = 0): string[] {
  return sent.filter((m) => m.seq > after).map((m) => m.type);
}

/** The last message sent that `pick` accepts. */
export function lastOf(sent: HostEnvelope[], pick: (m: HostEnvelope) => boolean): HostEnvelope | undefined {
  return [...sent].reverse().find(pick);
}

/** Lets the channel's queue run. */
export const settle = () => new Promise((r) => setTimeout(r, 5));

/** The document and settings now, as the controller builds them for `decide`. */
export function nowOf(document: MemoryDocument, settings: { annotator: string | null; blind: boolean } = { annotator: 'Lay-1', blind: false }, plan: () => PlanState = () => null, setup: StudySetup = DEFAULT_SETUP): EditorNow & { problemCalls: number } {
  const now = {
    version: document.version,
    doc: document.parse(),
    file: document.name,
    annotator: settings.annotator,
    blind: settings.blind,
    diskProblems: document.diskProblemCount,
    problemCalls: 0,
    problems: () => {
      now.problemCalls++;
      return document.problemLines();
    },
    requestSpecs: {},
    plan,
    setup,
  };
  return now;
}
