/**
 * The few pieces of Python's string and number semantics that the reference metrics (NLTK, rouge-score,
 * sacreBLEU, pycocoevalcap) depend on and JavaScript does differently: `str.split()` / `str.strip()` /
 * `str.rstrip()` whitespace, code-point length, `math.fsum`, `fractions.Fraction` arithmetic with its correctly
 * rounded `float()`, and NumPy's pairwise-summed `np.mean`.
 *
 * Sources: CPython 3.11 `Objects/unicodetype_db.h` (`_PyUnicode_IsWhitespace`), `Modules/mathmodule.c`
 * (`math_fsum`), `Lib/fractions.py`; NumPy 2.x `numpy/_core/src/umath/loops_utils.h.src` (`pairwise_sum`).
 */
import { decompose, ldexp, twoProd } from './libm';

/**
 * Code points for which Python's `str.isspace()` is true (Unicode White_Space minus nothing, plus the
 * information separators U+001C–U+001F): what `str.split()` with no argument splits on. Unlike JavaScript's
 * `\s`, it includes U+001C–U+001F and U+0085, and excludes U+FEFF.
 */
export function isPythonSpace(cp: number): boolean {
  if (cp <= 0x20) return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x1f);
  if (cp < 0x85) return false;
  return (
    cp === 0x85 ||
    cp === 0xa0 ||
    cp === 0x1680 ||
    (cp >= 0x2000 && cp <= 0x200a) ||
    cp === 0x2028 ||
    cp === 0x2029 ||
    cp === 0x202f ||
    cp === 0x205f ||
    cp === 0x3000
  );
}

/** Python whitespace (`str.isspace`) as the inside of a regular-expression class (all BMP, so UTF-16 units suffice). */
export const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_TRAILING_SPACE = new RegExp(`[${PY_SPACE}]+$`);

/** Python's `s.split()`: split on runs of Python whitespace, no empty strings. */
export function pySplit(s: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const space = c <= 0x20 ? c === 0x20 || (c >= 0x09 && c <= 0x0d) || c >= 0x1c : c >= 0x85 && isPythonSpace(c);
    if (space) {
      if (start >= 0) {
        out.push(s.slice(start, i));
        start = -1;
      }
    } else if (start < 0) start = i;
  }
  if (start >= 0) out.push(s.slice(start));
  return out;
}

/** Python's `s.rstrip()` (no argument). */
export function pyRstrip(s: string): string {
  return s.replace(PY_TRAILING_SPACE, '');
}

const PY_LEADING_SPACE = new RegExp(`^[${PY_SPACE}]+`);

/** Python's `s.strip()` (no argument): Python whitespace ({@link isPythonSpace}) off both ends. */
export function pyStrip(s: string): string {
  return pyRstrip(s).replace(PY_LEADING_SPACE, '');
}

/**
 * Python's `s.lower()`: full Unicode lower-case mapping with the final-sigma rule, which JavaScript's
 * `toLowerCase()` also applies. The two can differ only for characters whose mapping changed between the
 * Unicode versions of the runtimes (Python 3.11: Unicode 14; Node 20: the ICU version it ships).
 */
export function pyLower(s: string): string {
  return s.toLowerCase();
}

/** Python's `len(s)`: code points, not UTF-16 units. */
export function pyLen(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/**
 * Python's `math.fsum`: the correctly rounded sum of finite doubles (Shewchuk's exact partials, then CPython's
 * half-even fix-up across partials), as `Modules/mathmodule.c` computes it.
 */
export function fsum(values: Iterable<number>): number {
  const p: number[] = [];
  for (let x of values) {
    let i = 0;
    for (let j = 0; j < p.length; j++) {
      let y = p[j];
      if (Math.abs(x) < Math.abs(y)) {
        const t = x;
        x = y;
        y = t;
      }
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[i++] = lo;
      x = hi;
    }
    p.length = i;
    if (x !== 0) p.push(x);
  }
  let n = p.length;
  let hi = 0;
  if (n > 0) {
    hi = p[--n];
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = p[--n];
      hi = x + y;
      const yr = hi - x;
      lo = y - yr;
      if (lo !== 0) break;
    }
    if (n > 0 && ((lo < 0 && p[n - 1] < 0) || (lo > 0 && p[n - 1] > 0))) {
      const y = lo * 2;
      const x = hi + y;
      const yr = x - hi;
      if (y === yr) hi = x;
    }
  }
  return hi;
}

const four = [0, 0, 0, 0];
/** {@link fsum} of four numbers, without allocating. */
export function fsum4(a: number, b: number, c: number, d: number): number {
  four[0] = a;
  four[1] = b;
  four[2] = c;
  four[3] = d;
  return fsum(four);
}

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** `n / d` for integers, correctly rounded to the nearest double (ties to even), as Python's `int / int`. */
export function ratioToNumber(n: bigint, d: bigint): number {
  if (d === 0n) throw new RangeError('division by zero');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const negative = n < 0n;
  if (negative) n = -n;
  if (n === 0n) return 0;
  const LIMIT = 1n << 53n;
  if (n <= LIMIT && d <= LIMIT) return (negative ? -1 : 1) * (Number(n) / Number(d));
  // Scale so the integer quotient has 55 or 56 bits, keep 53, round half-even with the remainder as sticky bit.
  const shift = bitLength(n) - bitLength(d) - 55;
  const num = shift < 0 ? n << BigInt(-shift) : n;
  const den = shift > 0 ? d << BigInt(shift) : d;
  const q = num / den;
  const sticky = num % den !== 0n;
  const extra = bitLength(q) - 53;
  let mant = q >> BigInt(extra);
  const rest = q & ((1n << BigInt(extra)) - 1n);
  const half = 1n << BigInt(extra - 1);
  if (rest > half || (rest === half && (sticky || (mant & 1n) === 1n))) mant += 1n;
  const e = shift + extra;
  const v = ldexp(Number(mant), e);
  return negative ? -v : v;
}

/**
 * An exact rational number, as Python's `fractions.Fraction`. `num`/`den` are kept as constructed (NLTK builds
 * precisions with `_normalize=False` and reads `.numerator` / `.denominator` unreduced); arithmetic results are
 * reduced, as `Fraction`'s operators return normalised fractions.
 */
export class Fraction {
  constructor(
    readonly num: bigint,
    readonly den: bigint,
  ) {
    if (den === 0n) throw new RangeError('Fraction with zero denominator');
  }

  static of(num: number, den = 1): Fraction {
    return new Fraction(BigInt(num), BigInt(den));
  }

  static reduced(num: bigint, den: bigint): Fraction {
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const g = gcd(num < 0n ? -num : num, den);
    return g > 1n ? new Fraction(num / g, den / g) : new Fraction(num, den);
  }

  add(o: Fraction): Fraction {
    return Fraction.reduced(this.num * o.den + o.num * this.den, this.den * o.den);
  }

  mul(o: Fraction): Fraction {
    return Fraction.reduced(this.num * o.num, this.den * o.den);
  }

  div(o: Fraction): Fraction {
    return Fraction.reduced(this.num * o.den, this.den * o.num);
  }

  /** Sign: -1, 0 or 1. */
  sign(): number {
    const s = this.num === 0n ? 0 : this.num > 0n ? 1 : -1;
    return this.den < 0n ? -s : s;
  }

  /** Python's `float(fraction)`: correctly rounded. */
  toNumber(): number {
    return ratioToNumber(this.num, this.den);
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** A Python number as NLTK's smoothing functions produce them: a `Fraction` or a `float`. */
export type PyNumber = Fraction | number;

export function toFloat(x: PyNumber): number {
  return typeof x === 'number' ? x : x.toNumber();
}

/** `a + b` with Python's mixed `Fraction`/`float` rule: a float on either side makes it float arithmetic. */
export function pyAdd(a: PyNumber, b: PyNumber): PyNumber {
  if (typeof a === 'number' || typeof b === 'number') return toFloat(a) + toFloat(b);
  return a.add(b);
}

/** `a / b` with Python's mixed `Fraction`/`float` rule. */
export function pyDiv(a: PyNumber, b: PyNumber): PyNumber {
  if (typeof a === 'number' || typeof b === 'number') return toFloat(a) / toFloat(b);
  return a.div(b);
}

/** `a * b` with Python's mixed `Fraction`/`float` rule. */
export function pyMul(a: PyNumber, b: PyNumber): PyNumber {
  if (typeof a === 'number' || typeof b === 'number') return toFloat(a) * toFloat(b);
  return a.mul(b);
}

/** `x > 0`. */
export function pyPositive(x: PyNumber): boolean {
  return typeof x === 'number' ? x > 0 : x.sign() > 0;
}

/** Python truthiness of a number (`bool(x)`): non-zero. */
export function pyTruthy(x: PyNumber): boolean {
  return typeof x === 'number' ? x !== 0 : x.num !== 0n;
}

const product = new Float64Array(2);

/** Dekker's exact product as a pair: a·b = p + e with p = fl(a·b). */
function twoProduct(a: number, b: number): [number, number] {
  twoProd(a, b, product, 0);
  return [product[0], product[1]];
}

/**
 * `x ** y` as C's `pow` in glibc computes it for Python floats: correctly rounded. Exact for a positive finite `x`
 * (in [2^-300, 2^300]) and an integer `y` in [0, 64] — METEOR's β = 3 — where JavaScript's `**` can be an ulp off:
 * for y ≤ 4 the power is kept as an exact sum of doubles (Dekker products) and rounded once by {@link fsum};
 * beyond, through integers. Otherwise `Math.pow`.
 */
export function pyPow(x: number, y: number): number {
  if (!(Number.isInteger(y) && y >= 0 && y <= 64 && x >= 2 ** -300 && x <= 2 ** 300)) return x ** y;
  if (y === 0) return 1;
  if (y <= 4) {
    let terms = [x];
    for (let k = 1; k < y; k++) terms = terms.flatMap((t) => twoProduct(t, x));
    return fsum(terms);
  }
  const { mant, exp } = decompose(x);
  const num = mant ** BigInt(y);
  const e = exp * y;
  return e >= 0 ? ratioToNumber(num << BigInt(e), 1n) : ratioToNumber(num, 1n << BigInt(-e));
}

/** NumPy's pairwise summation of `n` values from `a[lo]` (`pairwise_sum_DOUBLE`: 8 accumulators up to 128 values, halves above). */
function pairwiseSum(a: readonly number[], lo: number, n: number): number {
  if (n < 8) {
    let res = -0;
    for (let i = 0; i < n; i++) res += a[lo + i];
    return res;
  }
  if (n <= 128) {
    const r = [a[lo], a[lo + 1], a[lo + 2], a[lo + 3], a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]];
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[lo + i + j];
    let res = r[0] + r[1] + (r[2] + r[3]) + (r[4] + r[5] + (r[6] + r[7]));
    for (; i < n; i++) res += a[lo + i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, lo, n2) + pairwiseSum(a, lo + n2, n - n2);
}

/**
 * `np.mean(np.array(values))` for a list of Python floats: NumPy's `add.reduce` (0 plus the pairwise sum of
 * `pairwise_sum_DOUBLE`, numpy/_core/src/umath/loops_utils.h.src) divided by the count. Bit-identical to NumPy
 * 2.4 on 61 arrays of 0 to 20,000 values (scripts/parity/cocoeval_reference.py records the check); a plain
 * left-to-right sum differs in the last bits for about half of them. NaN for an empty list, as NumPy (which also
 * warns).
 */
export function numpyMean(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  return (0 + pairwiseSum(values, 0, values.length)) / values.length;
}
