/**
 * N-gram matching shared by the BLEU implementations: for each order n, the clipped matches
 * Σ_g min(count of g in the hypothesis, count of g in the reference) and the number of hypothesis n-grams.
 *
 * Tokens are mapped to small integers per pair and n-grams to numeric keys, which is what makes 100,000 pairs
 * cheap; the result is the same as counting n-gram tuples (NLTK's `Counter(ngrams(...))`, sacreBLEU's
 * `extract_all_word_ngrams`).
 */

/** Matches and totals for orders 1…maxN (index 0 = unigrams). */
export interface NgramStats {
  matches: number[];
  totals: number[];
}

/**
 * A reusable open-addressing multiset of integer keys (< 2^53): the n-gram keys of one reference, then taken back
 * by the hypothesis. A generation stamp empties it in O(1) between orders and pairs.
 */
class KeyCounts {
  private mask = 0;
  private keys = new Float64Array(0);
  private counts = new Int32Array(0);
  private stamps = new Int32Array(0);
  private gen = 0;

  reset(size: number): void {
    if (this.keys.length < 2 * size || this.gen === 0x7fffffff) {
      let cap = 64;
      while (cap < 2 * size) cap *= 2;
      this.mask = cap - 1;
      this.keys = new Float64Array(cap);
      this.counts = new Int32Array(cap);
      this.stamps = new Int32Array(cap);
      this.gen = 0;
    }
    this.gen++;
  }

  private slot(key: number): number {
    const lo = key | 0;
    const hi = (key / 4294967296) | 0;
    let h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
    h = (h ^ (h >>> 15)) & this.mask;
    while (this.stamps[h] === this.gen && this.keys[h] !== key) h = (h + 1) & this.mask;
    return h;
  }

  add(key: number): void {
    const h = this.slot(key);
    if (this.stamps[h] !== this.gen) {
      this.stamps[h] = this.gen;
      this.keys[h] = key;
      this.counts[h] = 1;
    } else this.counts[h]++;
  }

  /** Takes one occurrence of `key` if one is left; returns whether it did. */
  take(key: number): boolean {
    const h = this.slot(key);
    if (this.stamps[h] === this.gen && this.counts[h] > 0) {
      this.counts[h]--;
      return true;
    }
    return false;
  }
}

const scratch = new KeyCounts();
let refIds = new Int32Array(256);
let hypIds = new Int32Array(256);
let refKeys = new Float64Array(256);
let hypKeys = new Float64Array(256);
let unigramCounts = new Int32Array(256);

export function ngramStats(hyp: readonly string[], ref: readonly string[], maxN: number): NgramStats {
  const matches = new Array<number>(maxN).fill(0);
  const totals = new Array<number>(maxN);
  for (let n = 1; n <= maxN; n++) totals[n - 1] = Math.max(0, hyp.length - n + 1);
  const R = ref.length;
  const H = hyp.length;
  if (H === 0 || R === 0) return { matches, totals };
  if (refIds.length < R) {
    refIds = new Int32Array(2 * R);
    refKeys = new Float64Array(2 * R);
  }
  if (hypIds.length < H) {
    hypIds = new Int32Array(2 * H);
    hypKeys = new Float64Array(2 * H);
  }
  // Token ids: reference tokens numbered 0…base-1; hypothesis tokens absent from the reference are -1.
  const ids = new Map<string, number>();
  for (let i = 0; i < R; i++) {
    let id = ids.get(ref[i]);
    if (id === undefined) ids.set(ref[i], (id = ids.size));
    refIds[i] = id;
    refKeys[i] = id;
  }
  for (let i = 0; i < H; i++) {
    const id = ids.get(hyp[i]) ?? -1;
    hypIds[i] = id;
    hypKeys[i] = id;
  }
  const base = ids.size;
  if (base ** maxN > Number.MAX_SAFE_INTEGER) return stringStats(hyp, ref, maxN, totals);
  // Unigrams: counts by id.
  if (unigramCounts.length < base) unigramCounts = new Int32Array(2 * base);
  unigramCounts.fill(0, 0, base);
  for (let i = 0; i < R; i++) unigramCounts[refIds[i]]++;
  let m1 = 0;
  for (let i = 0; i < H; i++) {
    const id = hypIds[i];
    if (id >= 0 && unigramCounts[id] > 0) {
      unigramCounts[id]--;
      m1++;
    }
  }
  matches[0] = m1;
  // Order n: the key of the n-gram at i is the key of the (n-1)-gram at i times base plus the id of token
  // i+n-1, rolled in place; -1 marks a hypothesis n-gram with a token outside the reference (it cannot match).
  for (let n = 2; n <= maxN && n <= R && n <= H; n++) {
    scratch.reset(R - n + 1);
    for (let i = 0; i + n <= R; i++) {
      const key = refKeys[i] * base + refIds[i + n - 1];
      refKeys[i] = key;
      scratch.add(key);
    }
    let m = 0;
    for (let i = 0; i + n <= H; i++) {
      const prev = hypKeys[i];
      const last = hypIds[i + n - 1];
      const key = prev < 0 || last < 0 ? -1 : prev * base + last;
      hypKeys[i] = key;
      if (key >= 0 && scratch.take(key)) m++;
    }
    matches[n - 1] = m;
  }
  return { matches, totals };
}

/** The same with string keys, for references whose vocabulary^maxN would overflow exact integers. */
function stringStats(hyp: readonly string[], ref: readonly string[], maxN: number, totals: number[]): NgramStats {
  const matches = new Array<number>(maxN).fill(0);
  for (let n = 1; n <= maxN && n <= ref.length && n <= hyp.length; n++) {
    const counts = new Map<string, number>();
    for (let i = 0; i + n <= ref.length; i++) {
      const key = ref.slice(i, i + n).join(' ');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    let m = 0;
    for (let i = 0; i + n <= hyp.length; i++) {
      const key = hyp.slice(i, i + n).join(' ');
      const c = counts.get(key);
      if (c) {
        m++;
        counts.set(key, c - 1);
      }
    }
    matches[n - 1] = m;
  }
  return { matches, totals };
}

/**
 * A reference prepared once for many hypotheses (an item's reference against all its candidates): its token ids
 * and, per order, an immutable table of its n-gram keys and counts.
 */
export interface PreparedReference {
  length: number;
  ids: Map<string, number>;
  base: number;
  /** Per order n (index n−1): open-addressing table of keys and counts, or null beyond the reference length. */
  tables: ({ mask: number; keys: Float64Array; counts: Int32Array } | null)[];
  /** Set when numeric keys would overflow: fall back to {@link ngramStats} on the tokens. */
  tokens: readonly string[];
  numeric: boolean;
}

function hashKey(key: number, mask: number): number {
  const lo = key | 0;
  const hi = (key / 4294967296) | 0;
  const h = Math.imul(lo ^ Math.imul(hi, 0x9e3779b1), 0x85ebca6b);
  return (h ^ (h >>> 15)) & mask;
}

export function prepareReference(ref: readonly string[], maxN: number): PreparedReference {
  const ids = new Map<string, number>();
  const refIds = new Int32Array(ref.length);
  for (let i = 0; i < ref.length; i++) {
    let id = ids.get(ref[i]);
    if (id === undefined) ids.set(ref[i], (id = ids.size));
    refIds[i] = id;
  }
  const base = ids.size;
  const numeric = base ** maxN <= Number.MAX_SAFE_INTEGER;
  const tables: PreparedReference['tables'] = [];
  const keys = Float64Array.from(refIds);
  for (let n = 1; n <= maxN && numeric; n++) {
    if (n > ref.length) {
      tables.push(null);
      continue;
    }
    if (n > 1) for (let i = 0; i + n <= ref.length; i++) keys[i] = keys[i] * base + refIds[i + n - 1];
    let cap = 8;
    while (cap < 2 * (ref.length - n + 1)) cap *= 2;
    const t = { mask: cap - 1, keys: new Float64Array(cap).fill(-1), counts: new Int32Array(cap) };
    for (let i = 0; i + n <= ref.length; i++) {
      let h = hashKey(keys[i], t.mask);
      while (t.keys[h] !== -1 && t.keys[h] !== keys[i]) h = (h + 1) & t.mask;
      t.keys[h] = keys[i];
      t.counts[h]++;
    }
    tables.push(t);
  }
  return { length: ref.length, ids, base, tables, tokens: ref, numeric };
}

let used = new Int32Array(256);
let usedStamp = new Int32Array(256);
let usedGen = 0;

/** {@link ngramStats} against a prepared reference (same result). */
export function ngramStatsPrepared(hyp: readonly string[], ref: PreparedReference, maxN: number): NgramStats {
  if (!ref.numeric || ref.tables.length < maxN) return ngramStats(hyp, ref.tokens, maxN);
  const matches = new Array<number>(maxN).fill(0);
  const totals = new Array<number>(maxN);
  for (let n = 1; n <= maxN; n++) totals[n - 1] = Math.max(0, hyp.length - n + 1);
  const H = hyp.length;
  if (H === 0 || ref.length === 0) return { matches, totals };
  if (hypIds.length < H) {
    hypIds = new Int32Array(2 * H);
    hypKeys = new Float64Array(2 * H);
  }
  for (let i = 0; i < H; i++) {
    const id = ref.ids.get(hyp[i]) ?? -1;
    hypIds[i] = id;
    hypKeys[i] = id;
  }
  for (let n = 1; n <= maxN && n <= H; n++) {
    const t = ref.tables[n - 1];
    if (t === null) break;
    if (used.length < t.keys.length) {
      used = new Int32Array(t.keys.length);
      usedStamp = new Int32Array(t.keys.length);
      usedGen = 0;
    }
    if (++usedGen === 0x7fffffff) {
      usedStamp.fill(0);
      usedGen = 1;
    }
    let m = 0;
    for (let i = 0; i + n <= H; i++) {
      let key: number;
      if (n === 1) key = hypIds[i];
      else {
        const prev = hypKeys[i];
        const last = hypIds[i + n - 1];
        key = prev < 0 || last < 0 ? -1 : prev * ref.base + last;
        hypKeys[i] = key;
      }
      if (key < 0) continue;
      let h = hashKey(key, t.mask);
      while (t.keys[h] !== -1 && t.keys[h] !== key) h = (h + 1) & t.mask;
      if (t.keys[h] === -1) continue;
      if (usedStamp[h] !== usedGen) {
        usedStamp[h] = usedGen;
        used[h] = 0;
      }
      if (used[h] < t.counts[h]) {
        used[h]++;
        m++;
      }
    }
    matches[n - 1] = m;
  }
  return { matches, totals };
}
