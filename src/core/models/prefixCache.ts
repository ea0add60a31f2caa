/**
 * The key/value cache of prompts already computed, kept as a radix tree of token segments so that a prompt sharing
 * its beginning with an earlier one computes only what follows (automatic prefix caching, as vLLM's
 * `enable_prefix_caching` and SGLang's RadixAttention keep it: Zheng et al., *SGLang*, NeurIPS 2024, §3).
 *
 * A judge matrix is mostly such sharing: the prompts of a context's candidates under one variant share the task
 * body and the dialogue, and differ in the response and the request; the prompts of one candidate under the requests
 * of one body share everything up to the request. Each node holds the keys and values of its own tokens only
 * (`[kvHeads, length, headDim]` per cache tensor, batch 1), so shared tokens are held once; a prompt's whole cache
 * is the concatenation along its path ({@link PrefixCache.materialize}).
 *
 * Memory is bounded: after an insertion, the least recently used leaves are evicted until the held bytes are within
 * `maxBytes` (a node whose children are gone becomes a leaf in turn), as SGLang evicts. The values held are exactly
 * what the passes computed; reusing them gives the logits of a pass over the whole prompt up to the order of float
 * sums in onnxruntime's products (tested to 1e-5 on the fixtures: test/core/models/prefixCache.test.ts).
 */
import type * as ort from 'onnxruntime-common';

type TensorCtor = typeof ort.Tensor;

/** One segment of cached tokens. */
interface Segment {
  parent: Segment | undefined;
  /** Position of the segment's first token in every prompt through it. */
  start: number;
  ids: number[];
  /** Per cache name: `[kvHeads, ids.length, headDim]`, row-major. */
  kv: Map<string, Float32Array>;
  children: Map<number, Segment>;
  lastUse: number;
}

/** Where a prompt's longest cached beginning ends. */
export interface PrefixMatch {
  /** Tokens of the prompt found cached (0: none). */
  length: number;
  /** Next-token logits after those tokens, when kept (the last prompt inserted ended exactly there). */
  logits?: Float32Array;
  /** @internal the deepest node and how many of its tokens matched */
  node?: Segment;
  within: number;
}

/** Counts of what the cache did, for benchmarks and tests. */
export interface PrefixCacheStats {
  /** Prompts looked up. */
  lookups: number;
  /** Prompt tokens found cached, over all lookups. */
  hitTokens: number;
  /** Prompt tokens looked up, over all lookups. */
  lookedUpTokens: number;
  /** Segments evicted to stay within the bound. */
  evictions: number;
  /** Token positions copied out of the tree into tensors a pass is fed (per cache tensor), over all prompts. */
  copiedTokens: number;
}

/** A prompt's cached beginning as a pass is fed it: a shared prefix, then the row's own past after it. */
export interface SplitPast {
  /** The first `prefixLength` positions, `[1, kvHeads, prefixLength, headDim]` per cache name; kept between prompts. */
  prefix?: Map<string, ort.Tensor>;
  prefixLength: number;
  /** The next `ownLength` positions, `[1, kvHeads, ownLength, headDim]` per cache name; a fresh copy. */
  own?: Map<string, ort.Tensor>;
  ownLength: number;
}

/**
 * A bounded radix tree of computed prompt caches (see the module docs).
 *
 * @param names - the cache tensors (`past_key_values.{i}.key|value`), in the model's order
 * @param maxBytes - the most float32 bytes of keys and values held after any insertion
 */
export class PrefixCache {
  private readonly root: Segment = { parent: undefined, start: 0, ids: [], kv: new Map(), children: new Map(), lastUse: 0 };
  private clock = 0;
  private bytesHeld = 0;
  /**
   * The next-token logits after the last prompt inserted, at its end node: the same prompt asked again (a generation
   * run's settings for one context) needs no pass. Only the last one is kept (a vocabulary of logits is 0.6 MB at
   * Qwen3's 151,936 tokens); an earlier prompt asked again computes its last token again.
   */
  private last: { node: Segment; logits: Float32Array } | undefined;
  /** The last materialized path, by its end node and length: the next prompt through it reuses the tensors. */
  private materialized: { node: Segment; length: number; past: Map<string, ort.Tensor> } | undefined;
  readonly stats: PrefixCacheStats = { lookups: 0, hitTokens: 0, lookedUpTokens: 0, evictions: 0, copiedTokens: 0 };

  constructor(
    private readonly T: TensorCtor,
    private readonly names: readonly string[],
    private readonly heads: number,
    private readonly headDim: number,
    readonly maxBytes: number,
  ) {}

  /** Bytes of keys and values held. */
  get bytes(): number {
    return this.bytesHeld;
  }

  /**
   * The longest cached beginning of `ids` (at most `limit` tokens). Marks the path as used.
   */
  match(ids: readonly number[], limit = ids.length): PrefixMatch {
    this.stats.lookups++;
    this.stats.lookedUpTokens += ids.length;
    let node = this.root;
    let at = 0;
    let within = 0;
    const now = ++this.clock;
    for (;;) {
      node.lastUse = now;
      if (at >= limit) break;
      const child = node.children.get(ids[at]);
      if (!child) break;
      let k = 0;
      while (k < child.ids.length && at + k < limit && child.ids[k] === ids[at + k]) k++;
      child.lastUse = now;
      node = child;
      within = k;
      at += k;
      if (k < child.ids.length) break;
    }
    if (node === this.root) return { length: 0, within: 0 };
    this.stats.hitTokens += at;
    const logits = within === node.ids.length && this.last?.node === node ? this.last.logits : undefined;
    return { length: at, node, within, ...(logits ? { logits } : {}) };
  }

  /**
   * The cache of the first `match.length` tokens as tensors `[1, kvHeads, length, headDim]` (a copy along the path;
   * the last one made is kept, so prompts through the same prefix copy it once).
   */
  materialize(match: PrefixMatch): Map<string, ort.Tensor> {
    const length = match.length;
    if (this.materialized && this.materialized.length === length && match.node && this.onPath(match.node, this.materialized.node)) return this.materialized.past;
    const past = this.copyPath(match, 0, length);
    if (match.node) this.materialized = { node: match.node, length, past };
    return past;
  }

  /**
   * The cache of the first `match.length` tokens split for a pass that takes a shared prefix and a row's own past
   * after it (the graph's `prefix_key_values.*` and `past_key_values.*`): the prefix is the last materialized path when
   * it is a beginning of the match and no shorter than what would follow it, else the match's path up to its last whole
   * segment (materialized and kept); the own past is a fresh copy of the rest. The prompts of a judge matrix share
   * the task and the dialogue and differ after them, so the prefix is copied once per context and variant and each
   * prompt copies only its candidate's response (with {@link materialize} alone every prompt copied its whole
   * beginning: at Qwen3-0.6B's shape 110 KB per position, 100 MB for a 900-token dialogue).
   */
  materializeSplit(match: PrefixMatch): SplitPast {
    const length = match.length;
    const node = match.node;
    if (!node || length === 0) return { prefixLength: 0, ownLength: 0 };
    const kept = this.materialized;
    let base = kept && kept.length <= length && this.onPath(kept.node, node) ? { length: kept.length, past: kept.past } : undefined;
    if (!base || length - base.length > base.length) {
      const end = match.within === node.ids.length ? node : node.parent;
      if (end && end !== this.root) {
        const endLength = end.start + end.ids.length;
        if (!base || endLength > base.length) base = { length: endLength, past: this.materialize({ length: endLength, node: end, within: end.ids.length }) };
      }
    }
    const prefixLength = base?.length ?? 0;
    const ownLength = length - prefixLength;
    return { ...(base ? { prefix: base.past } : {}), prefixLength, ...(ownLength > 0 ? { own: this.copyPath(match, prefixLength, length) } : {}), ownLength };
  }

  /** Positions `from` (inclusive) to `to` (exclusive) of the match's path, per cache name `[1, kvHeads, to − from, headDim]`. */
  private copyPath(match: PrefixMatch, from: number, to: number): Map<string, ort.Tensor> {
    const path: { seg: Segment; take: number }[] = [];
    for (let n = match.node, take = match.within; n && n !== this.root; take = n.parent ? n.parent.ids.length : 0, n = n.parent) path.unshift({ seg: n, take });
    const { heads, headDim } = this;
    const length = to - from;
    this.stats.copiedTokens += length;
    const past = new Map<string, ort.Tensor>();
    for (const name of this.names) {
      const out = new Float32Array(heads * length * headDim);
      for (const { seg, take } of path) {
        // The segment's positions [seg.start, seg.start + take) that fall in [from, to).
        const lo = Math.max(from, seg.start);
        const hi = Math.min(to, seg.start + take);
        if (hi <= lo) continue;
        const src = seg.kv.get(name) as Float32Array;
        const len = seg.ids.length;
        for (let h = 0; h < heads; h++) out.set(src.subarray((h * len + lo - seg.start) * headDim, (h * len + hi - seg.start) * headDim), (h * length + lo - from) * headDim);
      }
      past.set(name, new this.T('float32', out, [1, heads, length, headDim]));
    }
    return past;
  }

  /** Whether `a` lies on the path from the root to `b` (or is `b`). */
  private onPath(a: Segment, b: Segment): boolean {
    for (let n: Segment | undefined = b; n; n = n.parent) if (n === a) return true;
    return false;
  }

  /**
   * Adds the tokens `ids` computed after `match` (the prompt's first `match.length` tokens), with their keys and
   * values: per cache name `[1, kvHeads, ids.length, headDim]` (`kv`, e.g. a pass's new positions), and the
   * next-token logits after the last one (kept until the next insertion). Splits the matched node when the match ended inside it. Then evicts least
   * recently used leaves beyond the bound.
   *
   * @returns the match of the whole prompt (for {@link materialize})
   */
  insert(match: PrefixMatch, ids: readonly number[], kv: ReadonlyMap<string, ort.Tensor>, logits?: Float32Array): PrefixMatch {
    let parent = match.node ?? this.root;
    if (match.node && match.within < match.node.ids.length) parent = this.split(match.node, match.within);
    const now = ++this.clock;
    let node: Segment;
    if (ids.length === 0) node = parent;
    else {
      const existing = parent.children.get(ids[0]);
      if (existing) {
        // A prompt computed meanwhile begins the same way: keep the tree a radix tree by replacing the shorter one.
        this.remove(existing);
      }
      const copy = new Map<string, Float32Array>();
      for (const name of this.names) {
        const t = kv.get(name) as ort.Tensor;
        const d = t.data as Float32Array;
        if (t.dims[0] !== 1 || t.dims[2] !== ids.length) throw new RangeError(`${name}: expected [1, ${this.heads}, ${ids.length}, ${this.headDim}], got [${t.dims.join(', ')}]`);
        copy.set(name, Float32Array.from(d));
      }
      node = { parent, start: parent === this.root ? 0 : parent.start + parent.ids.length, ids: [...ids], kv: copy, children: new Map(), lastUse: now };
      parent.children.set(ids[0], node);
      this.bytesHeld += this.kvBytes(ids.length);
    }
    this.last = logits && node !== this.root ? { node, logits: logits.slice() } : undefined;
    node.lastUse = now;
    this.evict(node);
    return { length: match.length + ids.length, node: node === this.root ? undefined : node, within: node.ids.length, ...(this.last ? { logits: this.last.logits } : {}) };
  }

  /** Drops everything. */
  clear(): void {
    this.root.children.clear();
    this.bytesHeld = 0;
    this.materialized = undefined;
    this.last = undefined;
  }

  private kvBytes(positions: number): number {
    return this.names.length * this.heads * positions * this.headDim * 4;
  }

  /** Splits `node` after its first `at` tokens; returns the new upper node. */
  private split(node: Segment, at: number): Segment {
    const { heads, headDim } = this;
    const len = node.ids.length;
    const upperKv = new Map<string, Float32Array>();
    const lowerKv = new Map<string, Float32Array>();
    for (const [name, src] of node.kv) {
      const up = new Float32Array(heads * at * headDim);
      const low = new Float32Array(heads * (len - at) * headDim);
      for (let h = 0; h < heads; h++) {
        up.set(src.subarray(h * len * headDim, (h * len + at) * headDim), h * at * headDim);
        low.set(src.subarray((h * len + at) * headDim, (h + 1) * len * headDim), h * (len - at) * headDim);
      }
      upperKv.set(name, up);
      lowerKv.set(name, low);
    }
    const parent = node.parent as Segment;
    const upper: Segment = { parent, start: node.start, ids: node.ids.slice(0, at), kv: upperKv, children: new Map([[node.ids[at], node]]), lastUse: node.lastUse };
    parent.children.set(node.ids[0], upper);
    node.parent = upper;
    node.start += at;
    node.ids = node.ids.slice(at);
    node.kv = lowerKv;
    if (this.materialized && this.onPath(node, this.materialized.node)) this.materialized = undefined;
    return upper;
  }

  /** Removes a node and everything under it. */
  private remove(node: Segment): void {
    const stack = [node];
    while (stack.length) {
      const n = stack.pop() as Segment;
      stack.push(...n.children.values());
      this.bytesHeld -= this.kvBytes(n.ids.length);
      if (this.materialized && n === this.materialized.node) this.materialized = undefined;
      if (this.last?.node === n) this.last = undefined;
    }
    node.parent?.children.delete(node.ids[0]);
  }

  /** Evicts least recently used leaves (never `keep` or its ancestors) until within the bound. */
  private evict(keep: Segment): void {
    if (this.bytesHeld <= this.maxBytes) return;
    const protectedNodes = new Set<Segment>();
    for (let n: Segment | undefined = keep; n; n = n.parent) protectedNodes.add(n);
    const leaves: Segment[] = [];
    const stack = [...this.root.children.values()];
    while (stack.length) {
      const n = stack.pop() as Segment;
      if (n.children.size === 0) leaves.push(n);
      else stack.push(...n.children.values());
    }
    leaves.sort((a, b) => a.lastUse - b.lastUse);
    while (this.bytesHeld > this.maxBytes && leaves.length) {
      const leaf = leaves.shift() as Segment;
      if (protectedNodes.has(leaf)) continue;
      const parent = leaf.parent as Segment;
      this.remove(leaf);
      this.stats.evictions++;
      if (parent !== this.root && parent.children.size === 0 && !protectedNodes.has(parent)) {
        // The parent is a leaf now: it goes in its place by its own last use.
        const i = leaves.findIndex((l) => l.lastUse > parent.lastUse);
        leaves.splice(i < 0 ? leaves.length : i, 0, parent);
      }
    }
  }
}
