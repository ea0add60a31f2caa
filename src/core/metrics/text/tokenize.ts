/**
 * Tokenizers of the reference implementations, reproduced exactly:
 * - sacreBLEU 2.x `tokenizer_13a` (mteval-v13a.pl's tokenization, as WMT uses it);
 * - rouge-score's default tokenizer (lowercase, non-alphanumerics to spaces, optional Porter stemming);
 * - whitespace and lowercase-whitespace splitting with Python's `str.split()` semantics.
 */
import { porterStem } from './porter';
import { pyLower, pyRstrip, pySplit } from './python';
import { treebankTokens } from './treebank';

// sacrebleu/tokenizers/tokenizer_re.py (TokenizerRegexp), applied in this order.
const RE_13A: [RegExp, string][] = [
  // language-dependent part (assuming Western languages): punctuation and symbols get spaces around them
  [/([\{-\~\[-\` -\&\(-\+\:-\@\/])/g, ' $1 '],
  // period and comma unless preceded by a digit
  [/([^0-9])([\.,])/g, '$1 $2 '],
  // period and comma unless followed by a digit
  [/([\.,])([^0-9])/g, ' $1 $2'],
  // dash when preceded by a digit
  [/([0-9])(-)/g, '$1 $2 '],
];

/**
 * sacreBLEU's `Tokenizer13a()(line)` (sacrebleu/tokenizers/tokenizer_13a.py, v2.6.0): removes `<skipped>`,
 * joins `-\n` line breaks, turns newlines into spaces, unescapes `&quot; &amp; &lt; &gt;` (in that order), then
 * the regular expressions of `TokenizerRegexp` and single spaces between tokens. Returns the tokenized line.
 */
export function tokenize13a(line: string): string {
  line = line.replaceAll('<skipped>', '').replaceAll('-\n', '').replaceAll('\n', ' ');
  if (line.includes('&')) {
    line = line.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
  }
  line = ` ${line} `;
  for (const [re, repl] of RE_13A) line = line.replace(re, repl);
  return pySplit(line).join(' ');
}

/** Tokenizations offered for NLTK-style metrics (BLEU-4, METEOR's pre-tokenized mode). */
export type WordTokenizer = 'whitespace' | '13a' | 'lowercase' | 'treebank';

export const WORD_TOKENIZERS: readonly WordTokenizer[] = ['whitespace', '13a', 'lowercase', 'treebank'];

/**
 * Tokens of `text`:
 * - `whitespace`: Python `text.split()`;
 * - `13a`: sacreBLEU's preprocessing for `tokenize='13a'` — `tokenizer_13a(text.rstrip()).split()` (case kept);
 * - `lowercase`: Python `text.lower().split()`;
 * - `treebank`: NLTK 3.8 `TreebankWordTokenizer().tokenize(text)` (case kept; see `treebank.ts`).
 */
export function wordTokens(text: string, tokenizer: WordTokenizer): string[] {
  switch (tokenizer) {
    case 'whitespace':
      return pySplit(text);
    case '13a':
      return pySplit(tokenize13a(pyRstrip(text)));
    case 'lowercase':
      return pySplit(pyLower(text));
    case 'treebank':
      return treebankTokens(text);
  }
}

/**
 * Hugging Face evaluate's `Tokenizer13a()(text)` (metrics/bleu/tokenizer_13a.py, evaluate 0.4.x; a copy of
 * sacreBLEU's that returns the token list): sacreBLEU's `tokenizer_13a` on the text as it is — unlike
 * {@link wordTokens}'s `13a`, without `rstrip()` first (they differ only for a text ending in `-` + newline).
 */
export function hfTokens13a(text: string): string[] {
  return pySplit(tokenize13a(text));
}

const NON_ALNUM = /[^a-z0-9]+/g;
const VALID_TOKEN = /^[a-z0-9]+$/;
const NON_ASCII = /[^\x00-\x7f]/;
const rougeStem = perText(porterStem, 200_000); // stems of a corpus repeat a lot

/**
 * rouge-score's `tokenize.tokenize(text, stemmer)` (DefaultTokenizer; rouge-score 0.1.2, google-research
 * rouge/tokenize.py): lowercase; every run of characters other than `a-z0-9` becomes a space; split on
 * whitespace; with `stem`, NLTK's Porter stemmer on tokens longer than 3 characters; drop empty tokens.
 */
export function rougeTokens(text: string, stem: boolean): string[] {
  const out: string[] = [];
  if (!NON_ASCII.test(text)) {
    // ASCII text: Python's lower() is ASCII lower-casing, so scan once for runs of [a-z0-9].
    const lower = text.toLowerCase();
    let start = -1;
    for (let i = 0; i <= lower.length; i++) {
      const c = i < lower.length ? lower.charCodeAt(i) : 0;
      const alnum = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
      if (alnum) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        const t = lower.slice(start, i);
        out.push(stem && t.length > 3 ? rougeStem(t) : t);
        start = -1;
      }
    }
    return out;
  }
  for (const t of pyLower(text).replace(NON_ALNUM, ' ').split(' ')) {
    if (t === '') continue;
    const s = stem && t.length > 3 ? rougeStem(t) : t;
    if (VALID_TOKEN.test(s)) out.push(s);
  }
  return out;
}

/**
 * `fn` with a memo of its results per input text, cleared when it holds `limit` entries. Used per scoring call (an
 * item's reference is compared with every candidate of the item, so it is tokenized once, as sacreBLEU caches its
 * references) and per module for stems. Results are shared: callers must not modify them.
 */
export function perText<T>(fn: (text: string) => T, limit = 10_000): (text: string) => T {
  const memo = new Map<string, T>();
  return (text) => {
    let v = memo.get(text);
    if (v === undefined) {
      v = fn(text);
      if (memo.size >= limit) memo.clear();
      memo.set(text, v);
    }
    return v;
  };
}
