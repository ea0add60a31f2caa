/**
 * Running a job on items held in memory: the sink both hosts build on. The CLI keeps the file's items in memory,
 * applies every update a job hands over, and writes the changed lines back at the end (see `file.ts`); the
 * editor applies the same updates to its TextDocument instead.
 */
import type { DialogueItem } from '../dialogue/types';
import type { ItemSink } from './host';

/** A sink over an array of items: updates land on the item with the same id, in place of the old object. */
export class MemorySink implements ItemSink {
  private readonly index = new Map<string, number>();
  /** Ids of the items an update changed. */
  readonly changed = new Set<string>();

  constructor(readonly items: DialogueItem[]) {
    items.forEach((it, i) => {
      if (!this.index.has(it.id)) this.index.set(it.id, i);
    });
  }

  async apply(updates: ReadonlyMap<string, (current: DialogueItem) => DialogueItem | undefined>): Promise<void> {
    for (const [id, update] of updates) {
      const i = this.index.get(id);
      if (i === undefined) continue;
      const next = update(this.items[i]);
      if (next && next !== this.items[i]) {
        this.items[i] = next;
        this.changed.add(id);
      }
    }
  }
}

/** A map of updates with one function for every id in `ids`. */
export function updatesFor(ids: Iterable<string>, update: (id: string, current: DialogueItem) => DialogueItem | undefined): Map<string, (current: DialogueItem) => DialogueItem | undefined> {
  const out = new Map<string, (current: DialogueItem) => DialogueItem | undefined>();
  for (const id of ids) out.set(id, (current) => update(id, current));
  return out;
}
