/**
 * NLTK 3.8's `PorterStemmer` in its default `NLTK_EXTENSIONS` mode (nltk/stem/porter.py), step by step: the
 * original algorithm (Porter 1980) with NLTK's departures — the irregular-forms pool, no stemming of words of
 * two characters or fewer, `ies`/`ied` on four-letter words, the two-letter cvc rule, `y`→`i` only after a
 * consonant, `bli`→`ble`, `alli` recursion, `fulli` and `logi`. METEOR (its stem stage) and ROUGE-L (with
 * `stemmer: true`, as rouge-score's `use_stemmer`) use it.
 *
 * Python indexes strings by code point; so does this port (characters outside the BMP are mapped to private-use
 * placeholders while stemming: the algorithm only ever inspects ASCII letters and compares characters for
 * equality).
 */
import { pyLen, pyLower } from './python';

const POOL: Record<string, string> = {
  sky: 'sky',
  skies: 'sky',
  dying: 'die',
  lying: 'lie',
  tying: 'tie',
  news: 'news',
  innings: 'inning',
  inning: 'inning',
  outings: 'outing',
  outing: 'outing',
  cannings: 'canning',
  canning: 'canning',
  howe: 'howe',
  proceed: 'proceed',
  exceed: 'exceed',
  succeed: 'succeed',
};

function isVowelChar(c: string): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u';
}

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (isVowelChar(c)) return false;
  if (c === 'y') return i === 0 ? true : !isConsonant(w, i - 1);
  return true;
}

/** Porter's m: the number of vowel-consonant sequences ("vc") in the word's c/v pattern. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const cons = isConsonant(stem, i);
    if (cons && prevVowel) m++;
    prevVowel = !cons;
  }
  return m;
}

function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

function endsDoubleConsonant(w: string): boolean {
  return w.length >= 2 && w[w.length - 1] === w[w.length - 2] && isConsonant(w, w.length - 1);
}

function endsCvc(w: string): boolean {
  const n = w.length;
  return (
    (n >= 3 && isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && w[n - 1] !== 'w' && w[n - 1] !== 'x' && w[n - 1] !== 'y') ||
    (n === 2 && !isConsonant(w, 0) && isConsonant(w, 1))
  );
}

type Rule = [suffix: string, replacement: string, condition: ((stem: string) => boolean) | null];

/** `_apply_rule_list`: the first rule whose suffix matches decides (its condition failing leaves the word). */
function applyRules(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (suffix === '*d' && endsDoubleConsonant(word)) {
      const stem = word.slice(0, -2);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
    // NLTK then also tests '*d' as a literal suffix, like every other rule.
    if (word.endsWith(suffix)) {
      const stem = suffix === '' ? word : word.slice(0, -suffix.length);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

const positiveMeasure = (stem: string): boolean => measure(stem) > 0;
const measureGt1 = (stem: string): boolean => measure(stem) > 1;

const STEP1A: Rule[] = [
  ['sses', 'ss', null],
  ['ies', 'i', null],
  ['ss', 'ss', null],
  ['s', '', null],
];

function step1a(word: string): string {
  if (word.endsWith('ies') && word.length === 4) return word.slice(0, -3) + 'ie';
  return applyRules(word, STEP1A);
}

function step1b(word: string): string {
  if (word.endsWith('ied')) return word.slice(0, -3) + (word.length === 4 ? 'ie' : 'i');
  if (word.endsWith('eed')) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? stem + 'ee' : word;
  }
  let inter: string | undefined;
  for (const suffix of ['ed', 'ing']) {
    if (word.endsWith(suffix)) {
      const candidate = word.slice(0, -suffix.length);
      if (containsVowel(candidate)) {
        inter = candidate;
        break;
      }
    }
  }
  if (inter === undefined) return word;
  const last = inter[inter.length - 1];
  return applyRules(inter, [
    ['at', 'ate', null],
    ['bl', 'ble', null],
    ['iz', 'ize', null],
    ['*d', last, () => last !== 'l' && last !== 's' && last !== 'z'],
    ['', 'e', (stem) => measure(stem) === 1 && endsCvc(stem)],
  ]);
}

function step1c(word: string): string {
  return applyRules(word, [['y', 'i', (stem) => stem.length > 1 && isConsonant(stem, stem.length - 1)]]);
}

function step2(word: string): string {
  if (word.endsWith('alli') && positiveMeasure(word.slice(0, -4))) return step2(word.slice(0, -4) + 'al');
  return applyRules(word, [
    ['ational', 'ate', positiveMeasure],
    ['tional', 'tion', positiveMeasure],
    ['enci', 'ence', positiveMeasure],
    ['anci', 'ance', positiveMeasure],
    ['izer', 'ize', positiveMeasure],
    ['bli', 'ble', positiveMeasure],
    ['alli', 'al', positiveMeasure],
    ['entli', 'ent', positiveMeasure],
    ['eli', 'e', positiveMeasure],
    ['ousli', 'ous', positiveMeasure],
    ['ization', 'ize', positiveMeasure],
    ['ation', 'ate', positiveMeasure],
    ['ator', 'ate', positiveMeasure],
    ['alism', 'al', positiveMeasure],
    ['iveness', 'ive', positiveMeasure],
    ['fulness', 'ful', positiveMeasure],
    ['ousness', 'ous', positiveMeasure],
    ['aliti', 'al', positiveMeasure],
    ['iviti', 'ive', positiveMeasure],
    ['biliti', 'ble', positiveMeasure],
    ['fulli', 'ful', positiveMeasure],
    // NLTK's condition looks at the word minus three characters, not at the stem.
    ['logi', 'log', () => positiveMeasure(word.slice(0, -3))],
  ]);
}

const STEP3: Rule[] = [
  ['icate', 'ic', positiveMeasure],
  ['ative', '', positiveMeasure],
  ['alize', 'al', positiveMeasure],
  ['iciti', 'ic', positiveMeasure],
  ['ical', 'ic', positiveMeasure],
  ['ful', '', positiveMeasure],
  ['ness', '', positiveMeasure],
];

const STEP4: Rule[] = [
  ['al', '', measureGt1],
  ['ance', '', measureGt1],
  ['ence', '', measureGt1],
  ['er', '', measureGt1],
  ['ic', '', measureGt1],
  ['able', '', measureGt1],
  ['ible', '', measureGt1],
  ['ant', '', measureGt1],
  ['ement', '', measureGt1],
  ['ment', '', measureGt1],
  ['ent', '', measureGt1],
  ['ion', '', (stem) => measure(stem) > 1 && (stem[stem.length - 1] === 's' || stem[stem.length - 1] === 't')],
  ['ou', '', measureGt1],
  ['ism', '', measureGt1],
  ['ate', '', measureGt1],
  ['iti', '', measureGt1],
  ['ous', '', measureGt1],
  ['ive', '', measureGt1],
  ['ize', '', measureGt1],
];

const step3 = (word: string): string => applyRules(word, STEP3);
const step4 = (word: string): string => applyRules(word, STEP4);

function step5a(word: string): string {
  if (word.endsWith('e')) {
    const stem = word.slice(0, -1);
    if (measure(stem) > 1) return stem;
    if (measure(stem) === 1 && !endsCvc(stem)) return stem;
  }
  return word;
}

function step5b(word: string): string {
  return applyRules(word, [['ll', 'l', () => measure(word.slice(0, -1)) > 1]]);
}

function stemBmp(stem: string, word: string): string {
  if (Object.prototype.hasOwnProperty.call(POOL, word)) return POOL[stem];
  if (pyLen(word) <= 2) return stem;
  stem = step1a(stem);
  stem = step1b(stem);
  stem = step1c(stem);
  stem = step2(stem);
  stem = step3(stem);
  stem = step4(stem);
  stem = step5a(stem);
  stem = step5b(stem);
  return stem;
}

const ASTRAL = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/**
 * NLTK 3.8 `PorterStemmer().stem(word)` (mode NLTK_EXTENSIONS, `to_lowercase=True`): the word lowercased, then
 * stemmed. Any string is accepted; non-letters count as consonants, as in NLTK.
 */
export function porterStem(word: string): string {
  const lower = pyLower(word);
  if (!/[\uD800-\uDFFF]/.test(lower)) return stemBmp(lower, word);
  // One private-use placeholder per distinct astral character (one Python code point each).
  const used = new Set(lower);
  const toPlaceholder = new Map<string, string>();
  const fromPlaceholder = new Map<string, string>();
  let next = 0xe000;
  const mapped = lower.replace(ASTRAL, (ch) => {
    let p = toPlaceholder.get(ch);
    if (p === undefined) {
      while (used.has(String.fromCharCode(next))) next++;
      p = String.fromCharCode(next++);
      toPlaceholder.set(ch, p);
      fromPlaceholder.set(p, ch);
    }
    return p;
  });
  // `word in pool` is tested on the original word, which cannot be a pool key when it has astral characters.
  const stemmed = stemBmp(mapped, word);
  return [...stemmed].map((c) => fromPlaceholder.get(c) ?? c).join('');
}
