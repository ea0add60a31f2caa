/**
 * WordNet 3.0 as NLTK 3.8's METEOR reads it: `wordnet.synsets(word)` (all parts of speech, through `_morphy`)
 * and the lemma names of those synsets. The data is the compact file `data/wordnet/wn30-meteor.txt.gz` built by
 * `scripts/wordnet/build_wordnet_data.py` from Debian's wordnet-base (format described there).
 *
 * Source: nltk/corpus/reader/wordnet.py (NLTK 3.8): `synsets`, `_morphy`, `MORPHOLOGICAL_SUBSTITUTIONS`,
 * `_load_lemma_pos_offset_map`, `_load_exception_map`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { pyLower } from './python';

/** Parts of speech in NLTK's `POS_LIST` order. */
const POS = ['n', 'v', 'a', 'r'] as const;
type Pos = (typeof POS)[number];

/** NLTK's `MORPHOLOGICAL_SUBSTITUTIONS` (detachment rules), per part of speech. */
const SUBSTITUTIONS: Record<Pos, [string, string][]> = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['ves', 'f'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

export const WORDNET_FILE = 'wn30-meteor.txt.gz';

/** The data file: `data/wordnet/wn30-meteor.txt.gz` in the first folder upward from this module that has it. */
export function defaultWordNetPath(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    const candidate = join(dir, 'data', 'wordnet', WORDNET_FILE);
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find data/wordnet/${WORDNET_FILE} above ${start} (build it with scripts/wordnet/build_wordnet_data.py)`);
    dir = up;
  }
}

/** WordNet lemmas, synsets and exception lists, enough for `synonyms(word)`. */
export class WordNet {
  private readonly lemmaId = new Map<string, number>();
  private readonly lemmas: string[] = [];
  /** Per part of speech: CSR arrays from lemma id to the synsets it indexes. */
  private readonly indexStart: Record<Pos, Int32Array>;
  private readonly indexSynsets: Record<Pos, Int32Array>;
  /** Per synset: the lemma ids of its names that can be synonyms (no "_", no upper case). */
  private readonly synStart: Int32Array;
  private readonly synNames: Int32Array;
  private readonly exceptions: Record<Pos, Map<string, string[]>> = { n: new Map(), v: new Map(), a: new Map(), r: new Map() };
  private readonly cache = new Map<string, ReadonlySet<string>>();
  /** Header comment lines of the data file (provenance). */
  readonly provenance: string[] = [];

  /**
   * Parses the data file's text.
   *
   * @throws Error naming the line when the text is not in the expected format
   */
  constructor(text: string, source = WORDNET_FILE) {
    const lines = text.split('\n');
    let i = 0;
    const fail = (msg: string): never => {
      throw new Error(`${source}:${i + 1}: ${msg}`);
    };
    while (i < lines.length && lines[i].startsWith('#')) this.provenance.push(lines[i++].slice(1).trim());
    const header = (name: string): string[] => {
      const parts = (lines[i] ?? '').split(' ');
      if (parts[0] !== `@${name}`) fail(`expected @${name}`);
      i++;
      return parts.slice(1);
    };
    const nLemmas = Number(header('lemmas')[0]);
    let prev = '';
    for (let k = 0; k < nLemmas; k++, i++) {
      const line = lines[i];
      if (line === undefined || line === '') fail('missing lemma');
      const shared = parseInt(line[0], 36);
      const lemma = prev.slice(0, shared) + line.slice(1);
      this.lemmaId.set(lemma, k);
      this.lemmas.push(lemma);
      prev = lemma;
    }
    const nSynsets = Number(header('synsets')[0]);
    const synPos = new Uint8Array(nSynsets);
    const allNames: number[][] = [];
    const kept: number[] = [];
    const synStart = new Int32Array(nSynsets + 1);
    const counts: Record<Pos, Int32Array> = { n: new Int32Array(nLemmas + 1), v: new Int32Array(nLemmas + 1), a: new Int32Array(nLemmas + 1), r: new Int32Array(nLemmas + 1) };
    for (let s = 0; s < nSynsets; s++, i++) {
      const parts = (lines[i] ?? '').split(' ');
      const p = POS.indexOf(parts[0] as Pos);
      if (p < 0 || parts.length < 2) fail('bad synset line');
      synPos[s] = p;
      const names: number[] = [];
      for (let k = 1; k < parts.length; k++) {
        const upper = parts[k].endsWith('^');
        const id = parseInt(upper ? parts[k].slice(0, -1) : parts[k], 36);
        if (!(id >= 0 && id < nLemmas)) fail(`bad lemma id ${parts[k]}`);
        if (!names.includes(id)) {
          names.push(id);
          counts[POS[p]][id + 1]++;
        }
        if (!upper && !this.lemmas[id].includes('_')) kept.push(id);
      }
      allNames.push(names);
      synStart[s + 1] = kept.length;
    }
    this.synStart = synStart;
    this.synNames = Int32Array.from(kept);
    // Derive the index (lemma → synsets per pos) from the synsets' names, as the builder verified.
    this.indexStart = {} as Record<Pos, Int32Array>;
    this.indexSynsets = {} as Record<Pos, Int32Array>;
    for (const pos of POS) {
      const start = counts[pos];
      for (let k = 0; k < nLemmas; k++) start[k + 1] += start[k];
      this.indexStart[pos] = start;
      this.indexSynsets[pos] = new Int32Array(start[nLemmas]);
    }
    const fill: Record<Pos, Int32Array> = { n: this.indexStart.n.slice(), v: this.indexStart.v.slice(), a: this.indexStart.a.slice(), r: this.indexStart.r.slice() };
    for (let s = 0; s < nSynsets; s++) {
      const pos = POS[synPos[s]];
      for (const id of allNames[s]) this.indexSynsets[pos][fill[pos][id]++] = s;
    }
    for (let k = 0; k < POS.length; k++) {
      const parts = header('exceptions');
      const pos = parts[0] as Pos;
      if (!POS.includes(pos)) fail('bad exceptions header');
      const n = Number(parts[1]);
      for (let e = 0; e < n; e++, i++) {
        const terms = (lines[i] ?? '').split(' ');
        if (!terms[0]) fail('bad exception line');
        this.exceptions[pos].set(terms[0], terms.slice(1));
      }
    }
  }

  /** Loads the data file (default: {@link defaultWordNetPath}). */
  static load(path: string = defaultWordNetPath()): WordNet {
    return new WordNet(gunzipSync(readFileSync(path)).toString('utf8'), path);
  }

  /** True when `form` is an index lemma for `pos` (NLTK: `pos in _lemma_pos_offset_map[form]`). */
  private indexed(form: string, pos: Pos): boolean {
    const id = this.lemmaId.get(form);
    return id !== undefined && this.indexStart[pos][id + 1] > this.indexStart[pos][id];
  }

  /**
   * NLTK's `_morphy(form, pos)` with `check_exceptions=True`: the exception list's bases if `form` is an
   * exception; otherwise the forms among `form` and its one-step detachments that are indexed; otherwise the
   * first round of repeated detachments that yields indexed forms. Order and de-duplication as NLTK.
   */
  morphy(form: string, pos: Pos): string[] {
    const filter = (forms: string[]): string[] => {
      const out: string[] = [];
      for (const f of forms) if (this.indexed(f, pos) && !out.includes(f)) out.push(f);
      return out;
    };
    const exc = this.exceptions[pos].get(form);
    if (exc) return filter([form, ...exc]);
    const rules = SUBSTITUTIONS[pos];
    const apply = (forms: string[]): string[] => {
      // NLTK keeps duplicates; dropping repeats changes no result (filter keeps first occurrences) and avoids
      // exponential growth on words like "eseseses".
      const out: string[] = [];
      const seen = new Set<string>();
      for (const f of forms)
        for (const [old, rep] of rules)
          if (f.endsWith(old)) {
            const g = f.slice(0, f.length - old.length) + rep;
            if (!seen.has(g)) {
              seen.add(g);
              out.push(g);
            }
          }
      return out;
    };
    let forms = apply([form]);
    let results = filter([form, ...forms]);
    if (results.length) return results;
    while (forms.length) {
      forms = apply(forms);
      results = filter(forms);
      if (results.length) return results;
    }
    return [];
  }

  /**
   * The set METEOR's synonym stage matches against: `{lemma.name() for synset in wordnet.synsets(word) for
   * lemma in synset.lemmas() if "_" not in lemma.name()} | {word}`, restricted to names that can equal a
   * lowercased word (names with upper-case letters are left out; they never match METEOR's lowercased words).
   */
  synonyms(word: string): ReadonlySet<string> {
    let set = this.cache.get(word);
    if (set) return set;
    const out = new Set<string>();
    const lemma = pyLower(word);
    for (const pos of POS) {
      const start = this.indexStart[pos];
      const syns = this.indexSynsets[pos];
      for (const form of this.morphy(lemma, pos)) {
        const id = this.lemmaId.get(form)!;
        for (let k = start[id]; k < start[id + 1]; k++) {
          const s = syns[k];
          for (let n = this.synStart[s]; n < this.synStart[s + 1]; n++) out.add(this.lemmas[this.synNames[n]]);
        }
      }
    }
    out.add(word);
    set = out;
    if (this.cache.size > 100_000) this.cache.clear();
    this.cache.set(word, set);
    return set;
  }
}

let shared: WordNet | undefined;

/** The WordNet data loaded once per process. */
export function sharedWordNet(): WordNet {
  shared ??= WordNet.load();
  return shared;
}
