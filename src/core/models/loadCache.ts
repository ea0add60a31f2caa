/**
 * Models loaded once per process and key (metrics score batch after batch with the same model).
 */

/** A cache of model loads by key; a failed load is forgotten so the next call tries again. */
export class LoadCache<T extends { dispose(): Promise<unknown> }> {
  private readonly loads = new Map<string, Promise<T>>();

  /** The model under `key`, loaded with `load` the first time. */
  get(key: string, load: () => Promise<T>): Promise<T> {
    let p = this.loads.get(key);
    if (!p) {
      p = load();
      p.catch(() => this.loads.delete(key));
      this.loads.set(key, p);
    }
    return p;
  }

  /** Disposes every loaded model and empties the cache. */
  async clear(): Promise<void> {
    const all = [...this.loads.values()];
    this.loads.clear();
    for (const p of all) await (await p.catch(() => undefined))?.dispose();
  }
}
