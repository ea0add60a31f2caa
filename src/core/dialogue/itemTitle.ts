/**
 * A short title that tells dialogue items apart in a list (issue 18 item 2): many items of one transcript used to
 * read alike (`AnnoMI · t0/u?`).
 */
import type { DialogueItem } from './types';

/** Words of the last client turn a title quotes at most. */
const QUOTED_WORDS = 6;

/**
 * The first words of the last client turn of `item.context` (or of its last turn when no client speaks), at most
 * {@link QUOTED_WORDS} words, with `…` when cut; `''` for an empty context.
 */
export function lastClientWords(item: Pick<DialogueItem, 'context'>, words = QUOTED_WORDS): string {
  const turns = item.context ?? [];
  const turn = [...turns].reverse().find((t) => t.speaker === 'client') ?? turns[turns.length - 1];
  const all = (turn?.text ?? '').trim().split(/\s+/).filter(Boolean);
  return all.length > words ? `${all.slice(0, words).join(' ')}…` : all.join(' ');
}

/**
 * The item's list title: where it is in its source transcript, then the first words of its last client turn, e.g.
 * `t4/u32 · “Maybe having less wine in the…”` (AnnoMI transcript 4, reference utterance 32). Without an utterance
 * id the turn index of the response stands in (`t0 · turn 12`: the response is the 12th turn); without a transcript
 * id, the item id. The distinguishing part comes first so that a narrow list still tells items apart.
 */
export function itemTitle(item: Pick<DialogueItem, 'id' | 'context' | 'provenance'>, distinction?: string): string {
  const { where, words } = itemTitleParts(item, distinction);
  return words ? `${where} · “${words}”` : where;
}

/** An item's title in two parts: where it is (plus `distinction`), and the first words of its last client turn. */
export interface ItemTitleParts {
  where: string;
  words: string;
}

/** {@link itemTitle} in its two parts, for a list that shows them on two lines. */
export function itemTitleParts(item: Pick<DialogueItem, 'id' | 'context' | 'provenance'>, distinction?: string): ItemTitleParts {
  const p = item.provenance;
  const turns = item.context?.length ?? 0;
  const where =
    p?.transcriptId !== undefined && p.transcriptId !== ''
      ? `t${p.transcriptId}${p.utteranceId !== undefined && p.utteranceId !== '' ? `/u${p.utteranceId}` : ` · turn ${turns}`}`
      : item.id;
  return { where: distinction ? `${where} · ${distinction}` : where, words: lastClientWords(item) };
}

/**
 * Titles of every item of a file ({@link itemTitle}), told apart where two would read the same (one context
 * annotated in two stages, say): each of those gets the value of the first provenance field whose text differs
 * within its group (`t0 · turn 3 · GPT-2 stage · “…”`), or else its id. Same order as `items`.
 */
export function itemTitles(items: readonly Pick<DialogueItem, 'id' | 'context' | 'provenance'>[]): string[] {
  return itemTitleList(items).map(({ where, words }) => (words ? `${where} · “${words}”` : where));
}

/** {@link itemTitles} in two parts each (see {@link itemTitleParts}). */
export function itemTitleList(items: readonly Pick<DialogueItem, 'id' | 'context' | 'provenance'>[]): ItemTitleParts[] {
  const parts = items.map((it) => itemTitleParts(it));
  const plain = parts.map((t) => `${t.where}\u0000${t.words}`);
  const groups = new Map<string, number[]>();
  plain.forEach((t, i) => groups.set(t, [...(groups.get(t) ?? []), i]));
  const out = [...parts];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const text = (i: number, key: string) => {
      const v = items[i].provenance?.[key];
      return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
    };
    const keys = [...new Set(members.flatMap((i) => Object.keys(items[i].provenance ?? {})))];
    const key = keys.find((k) => new Set(members.map((i) => text(i, k))).size === members.length && members.every((i) => text(i, k) !== ''));
    for (const i of members) out[i] = itemTitleParts(items[i], key ? text(i, key) : items[i].id);
  }
  return out;
}

/** The longer description of an item a tooltip shows: id, dataset and topic. */
export function itemDescription(item: Pick<DialogueItem, 'id' | 'provenance'>): string {
  const p = item.provenance;
  return [item.id, p?.dataset, p?.topic].filter(Boolean).join(' · ');
}
