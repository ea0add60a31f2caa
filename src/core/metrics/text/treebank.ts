/**
 * NLTK 3.8's `TreebankWordTokenizer().tokenize(text)` (nltk/tokenize/treebank.py, with the contractions of
 * `MacIntyreContractions` in nltk/tokenize/destructive.py), reproduced exactly: the Penn Treebank tokenizer that
 * splits contractions (`can't` → `ca n't`), pads most punctuation, turns double quotes into `` and '', and splits a
 * period only at the end of the text. It is not `nltk.word_tokenize` (which first splits sentences with the punkt
 * model and then runs the improved `NLTKWordTokenizer`).
 *
 * Python's `re` and JavaScript's regular expressions differ, so each pattern is rewritten with Python's meaning:
 * `\w` and `\b` over Unicode word characters (letters, numbers, `_`), `\d` over decimal digits (Nd), `\s` over
 * Python's whitespace (`str.isspace`), `$` also before a final newline, and `(?i)` with Python's case folding
 * (`i` also matches `ı` and `İ`, `s` also `ſ`).
 */
import { PY_SPACE, pySplit } from './python';

/** Python 3 `\w` (str patterns): letters, numbers and `_`. */
const W = '[\\p{L}\\p{N}_]';
/** Python 3 `\b`: between a word character and a non-word character (or an end). */
const B = `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`;
/** Python's `$` without MULTILINE: at the end, or before a newline that ends the text. */
const END = '(?=\\n?$)';

/** A pattern written for Python's `(?i)`: each ASCII letter becomes the class of what Python's re folds to it. */
function ignoreCase(word: string): string {
  const extra: Record<string, string> = { i: 'ıİ', s: 'ſ', k: 'K' };
  return [...word].map((ch) => (/[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}${extra[ch.toLowerCase()] ?? ''}]` : ch)).join('');
}

const re = (source: string) => new RegExp(source, 'gu');

// STARTING_QUOTES (the first, `^"`, is applied once: `^` matches only at the start)
const STARTING_QUOTES: [RegExp, string][] = [
  [/^"/u, '``'],
  [re('(``)'), ' $1 '],
  [re('([ \\(\\[{<])("|\'{2})'), '$1 `` '],
];

const PUNCTUATION: [RegExp, string][] = [
  [re('([:,])([^\\p{Nd}])'), ' $1 $2'],
  [re(`([:,])${END}`), ' $1 '],
  [re('\\.\\.\\.'), ' ... '],
  [re('[;@#$%&]'), ' $& '],
  // the final period (followed only by closing brackets/quotes and whitespace)
  [re(`([^\\.])(\\.)([\\]\\)}>"']*)[${PY_SPACE}]*${END}`), '$1 $2$3 '],
  [re('[?!]'), ' $& '],
  [re("([^'])' "), "$1 ' "],
];

const PARENS_BRACKETS: [RegExp, string] = [re('[\\]\\[\\(\\)\\{\\}<>]'), ' $& '];

const CONVERT_PARENTHESES: [RegExp, string][] = [
  [re('\\('), '-LRB-'],
  [re('\\)'), '-RRB-'],
  [re('\\['), '-LSB-'],
  [re('\\]'), '-RSB-'],
  [re('\\{'), '-LCB-'],
  [re('\\}'), '-RCB-'],
];

const DOUBLE_DASHES: [RegExp, string] = [re('--'), ' -- '];

const ENDING_QUOTES: [RegExp, string][] = [
  [re("''"), " '' "],
  [re('"'), " '' "],
  [re("([^' ])('[sS]|'[mM]|'[dD]|') "), '$1 $2 '],
  [re("([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), '$1 $2 '],
];

// MacIntyreContractions.CONTRACTIONS2 and CONTRACTIONS3, each replaced by " \1 \2 "
const CONTRACTIONS2 = [
  ['can', 'not', B],
  ['d', "'ye", B],
  ['gim', 'me', B],
  ['gon', 'na', B],
  ['got', 'ta', B],
  ['lem', 'me', B],
  ['more', "'n", B],
  ['wan', 'na', `(?=[${PY_SPACE}])`],
].map(([a, b, end]) => re(`${B}(${ignoreCase(a)})(${ignoreCase(b)})${end}`));
const CONTRACTIONS3 = [
  ["'t", 'is'],
  ["'t", 'was'],
].map(([a, b]) => re(` (${ignoreCase(a)})(${ignoreCase(b)})${B}`));

/**
 * The tokens of NLTK 3.8 `TreebankWordTokenizer().tokenize(text, convert_parentheses)`.
 *
 * @param convertParentheses - NLTK's `convert_parentheses=True`: `(` → `-LRB-` and so on (default false)
 */
export function treebankTokens(text: string, convertParentheses = false): string[] {
  for (const [r, s] of STARTING_QUOTES) text = text.replace(r, s);
  for (const [r, s] of PUNCTUATION) text = text.replace(r, s);
  text = text.replace(PARENS_BRACKETS[0], PARENS_BRACKETS[1]);
  if (convertParentheses) for (const [r, s] of CONVERT_PARENTHESES) text = text.replace(r, s);
  text = text.replace(DOUBLE_DASHES[0], DOUBLE_DASHES[1]);
  text = ` ${text} `;
  for (const [r, s] of ENDING_QUOTES) text = text.replace(r, s);
  for (const r of CONTRACTIONS2) text = text.replace(r, ' $1 $2 ');
  for (const r of CONTRACTIONS3) text = text.replace(r, ' $1 $2 ');
  return pySplit(text);
}
