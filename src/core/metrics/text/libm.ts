/**
 * Correctly rounded natural logarithm, exponential and power for BLEU's `log`, `exp` and `**` (the last for
 * pycocoevalcap's n-th roots). Python's `math.log` /
 * `math.exp` are glibc's, which round correctly for all but a few arguments (measured on glibc 2.36: 8 in 20,000
 * logarithms of numbers in (0, 1) and 12 in 20,000 exponentials of numbers in (-4, 0) are one ulp off); V8's
 * `Math.log` / `Math.exp` (fdlibm, < 1 ulp) are one ulp off for 7–10 % of arguments. Rounding correctly makes
 * BLEU bit-identical to NLTK's for all but those rare arguments (30,194 of 30,200 parity values).
 *
 * Method: table-driven argument reduction and short polynomials in double-double arithmetic (Dekker products,
 * Knuth sums), accurate to about 2^-75 relative; when the result lies too close to a rounding boundary for that
 * accuracy to decide, the value is recomputed with 240-bit integer arithmetic. Outside the ranges handled here
 * (non-finite input, results that overflow or fall below the normal range) the functions return V8's value.
 *
 * The exact-arithmetic primitives here (`decompose`, `ldexp`, `twoProd`) also serve `./python`'s `Fraction` and
 * `pow`.
 */

const P = 240n; // bits of the fixed-point fallback

// ---------------------------------------------------------------------------------------------------------------
// Fixed-point helpers (values are N / 2^P)

const ONE = 1n << P;

/** atanh(z) · 2^P for z = num/den, |z| ≤ 1/2. */
function atanhFixed(num: bigint, den: bigint): bigint {
  if (num < 0n) return -atanhFixed(-num, den); // atanh is odd; keeps the series' shifts on non-negative numbers
  const z = (num << P) / den;
  const z2 = (z * z) >> P;
  let term = z;
  let sum = 0n;
  for (let k = 1n; term !== 0n; k += 2n) {
    sum += term / k;
    term = (term * z2) >> P;
  }
  return sum;
}

const LN2_FIXED = 2n * atanhFixed(1n, 3n);

/** A finite double's magnitude as mantissa · 2^exponent (integer mantissa < 2^53; the sign is ignored). */
export function decompose(x: number): { mant: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
  if (biased !== 0) mant |= 1n << 52n;
  return { mant, exp: (biased === 0 ? 1 : biased) - 1075 };
}

/**
 * `v · 2^e` for an integer `e`, multiplying in steps of 2^±1000 so that no intermediate power of two overflows;
 * each step is exact while the result stays in the normal range (as C's / Python's `math.ldexp` there).
 */
export function ldexp(v: number, e: number): number {
  while (e > 1000) {
    v *= 2 ** 1000;
    e -= 1000;
  }
  while (e < -1000) {
    v *= 2 ** -1000;
    e += 1000;
  }
  return v * 2 ** e;
}

/** N / 2^shift rounded to the nearest double, ties to even (N > 0, result in the normal range). */
function roundFixed(n: bigint, shift: bigint): number {
  const negative = n < 0n;
  if (negative) n = -n;
  const bits = n.toString(2).length;
  const drop = BigInt(bits - 53);
  let mant: bigint;
  let e: bigint;
  if (drop > 0n) {
    mant = n >> drop;
    const rest = n & ((1n << drop) - 1n);
    const half = 1n << (drop - 1n);
    if (rest > half || (rest === half && (mant & 1n) === 1n)) mant += 1n;
    e = drop - shift;
  } else {
    mant = n;
    e = -shift;
  }
  const v = ldexp(Number(mant), Number(e));
  return negative ? -v : v;
}

/** log(x) · 2^P for a positive finite double. */
function logFixed(x: number): bigint {
  const { mant, exp } = decompose(x);
  // x = (mant / 2^52) · 2^(exp + 52) with mant/2^52 in [1, 2) for normal x; log(m) = 2·atanh((m−1)/(m+1)).
  const top = 1n << 52n;
  let m = mant;
  let e = BigInt(exp + 52);
  while (m < top) {
    m <<= 1n;
    e -= 1n;
  }
  return 2n * atanhFixed(m - top, m + top) + e * LN2_FIXED;
}

/** exp(y) correctly rounded through fixed-point arithmetic (y finite, result normal). */
function expExact(y: number): number {
  const { mant, exp } = decompose(Math.abs(y));
  const shift = BigInt(-exp);
  let yf = shift >= 0n ? (mant << P) >> shift : (mant << P) << -shift; // |y| · 2^P (truncation below 2^-240)
  if (y < 0) yf = -yf;
  return expOfFixed(yf);
}

/** exp(y) correctly rounded for y · 2^P given (result normal). */
function expOfFixed(yf: bigint): number {
  // y = k·ln2 + r, |r| ≤ ln2/2; exp(r) by its Taylor series.
  let k = yf / LN2_FIXED; // truncated toward zero
  let r = yf - k * LN2_FIXED;
  if (2n * r > LN2_FIXED) {
    k += 1n;
    r -= LN2_FIXED;
  } else if (2n * r < -LN2_FIXED) {
    k -= 1n;
    r += LN2_FIXED;
  }
  return roundFixed(expFixed(r), P - k);
}

/** exp(r) · 2^P for r · 2^P given, |r| ≤ 1, by its Taylor series. */
function expFixed(r: bigint): bigint {
  let term = ONE;
  let sum = ONE;
  for (let i = 1n; term !== 0n; i++) {
    term = (term * r) / (i << P);
    sum += term;
  }
  return sum;
}

function logExact(x: number): number {
  return roundFixed(logFixed(x), P);
}

/** x^y correctly rounded through fixed-point arithmetic (x positive normal, y finite, result normal). */
function powExact(x: number, y: number): number {
  const { mant, exp } = decompose(Math.abs(y));
  const l = logFixed(x) * mant; // log(x) · |y| · 2^(P − exp)
  let yf = exp >= 0 ? l << BigInt(exp) : l >> BigInt(-exp);
  if (y < 0) yf = -yf;
  return expOfFixed(yf);
}

// ---------------------------------------------------------------------------------------------------------------
// Double-double arithmetic

const SPLITTER = 134217729; // 2^27 + 1

/**
 * hi + lo = a · b exactly (Dekker), written to `out[at]`, `out[at + 1]` (no overflow or underflow in the operands'
 * range).
 */
export function twoProd(a: number, b: number, out: Float64Array, at: number): void {
  const p = a * b;
  let t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  t = SPLITTER * b;
  const bh = t - (t - b);
  const bl = b - bh;
  out[at] = p;
  out[at + 1] = ah * bh - p + ah * bl + al * bh + al * bl;
}

const tmp = new Float64Array(8);

/** Double-double from a fixed-point value. */
function ddFromFixed(n: bigint): [number, number] {
  const hi = roundFixed(n, P);
  const { mant, exp } = decompose(Math.abs(hi));
  const hiFixed = (hi < 0 ? -1n : 1n) * (exp + Number(P) >= 0 ? mant << BigInt(exp + Number(P)) : mant >> BigInt(-(exp + Number(P))));
  const rest = n - hiFixed;
  return [hi, rest === 0n ? 0 : roundFixed(rest, P)];
}

// Tables, built on first use (a few milliseconds): 2^(j/64) and log(k/128) as double-doubles, ln2/64 in three
// parts (the first two with few enough bits that N·part is exact for |N| < 2^17), ln2 in a 40-bit head and a tail.
const EXP_T_HI = new Float64Array(64);
const EXP_T_LO = new Float64Array(64);
const LOG_T_HI = new Float64Array(183);
const LOG_T_LO = new Float64Array(183);
let L1 = 0;
let L2 = 0;
let L3 = 0;
let LN2_HI = 0;
let LN2_LO = 0;
const INV_L = 64 / Math.LN2;
let ready = false;

function chop(n: bigint, bits: number): number {
  // n / 2^P truncated to at most `bits` significant bits.
  const len = n.toString(2).length;
  const drop = BigInt(Math.max(0, len - bits));
  return roundFixed((n >> drop) << drop, P);
}

function fixedOf(x: number): bigint {
  const { mant, exp } = decompose(Math.abs(x));
  const s = BigInt(exp) + P;
  return (x < 0 ? -1n : 1n) * (s >= 0n ? mant << s : mant >> -s);
}

function init(): void {
  for (let j = 0; j < 64; j++) [EXP_T_HI[j], EXP_T_LO[j]] = ddFromFixed(expFixed((BigInt(j) * LN2_FIXED) / 64n));
  for (let k = 90; k <= 182; k++) [LOG_T_HI[k], LOG_T_LO[k]] = ddFromFixed(2n * atanhFixed(BigInt(k - 128), BigInt(k + 128)));
  const L = LN2_FIXED / 64n;
  L1 = chop(L, 32);
  L2 = chop(L - fixedOf(L1), 32);
  L3 = roundFixed(L - fixedOf(L1) - fixedOf(L2), P);
  LN2_HI = chop(LN2_FIXED, 40);
  LN2_LO = roundFixed(LN2_FIXED - fixedOf(LN2_HI), P);
  ready = true;
}

/**
 * Rounds hi + lo (|lo| small against hi), accurate to `eps` relative, to the nearest double; returns NaN when
 * a rounding boundary is too close to decide.
 */
function roundDD(hi: number, lo: number, eps: number): number {
  const s = hi + lo;
  const bb = s - hi;
  const e = hi - (s - bb) + (lo - bb); // s + e = hi + lo exactly
  if (e === 0) return s;
  const ulp = ulpOf(s);
  const tol = eps * Math.abs(s);
  const a = Math.abs(e);
  if (Math.abs(a - ulp / 2) <= tol || Math.abs(a - ulp / 4) <= tol) return NaN;
  return s;
}

function ulpOf(x: number): number {
  const ax = Math.abs(x);
  // For normal x: 2^(floor(log2 x) − 52).
  let p = 2 ** Math.floor(Math.log2(ax));
  if (p > ax) p /= 2;
  else if (p * 2 <= ax) p *= 2;
  return p * 2 ** -52;
}

const EPS = 2 ** -68;

/** Double-double results of {@link expDD} and {@link logDD}: hi in [0], lo in [1]. */
const dd = new Float64Array(2);

/**
 * e^(yh + yl) / 2^n as a double-double written to `dd` (about 2^-75 relative), returning n; |yl| is at most half
 * an ulp of yh, and yh is in (-708, 709).
 */
function expDD(yh: number, yl: number): number {
  const N = Math.round(yh * INV_L);
  const j = N & 63;
  const n = (N - j) / 64;
  // r = y − N·ln2/64 as a double-double: yh − N·L1 and N·L2 are exact.
  const a = yh - N * L1;
  const b = N * L2;
  let rh = a - b;
  const bb0 = rh - a;
  let rl = a - (rh - bb0) + (-b - bb0); // exact: a − b = rh + rl
  rl -= N * L3;
  if (yl !== 0) rl += yl;
  const s = rh + rl;
  rl = rl - (s - rh);
  rh = s;
  // exp(r) − 1 = r + r²/2 + r³/6 + …: r and r²/2 in double-double, the rest in double (|r| ≤ 0.0055).
  twoProd(rh, rh, tmp, 0);
  const sqHi = tmp[0] / 2;
  const sqLo = tmp[1] / 2 + rh * rl;
  const tail = rh * rh * rh * (1 / 6 + rh * (1 / 24 + rh * (1 / 120 + rh * (1 / 720 + rh * (1 / 5040 + rh * (1 / 40320 + rh / 362880))))));
  // p = rh + sqHi + (rl + sqLo + tail), summed with a Knuth sum for the two leading parts.
  let ph = rh + sqHi;
  const bv = ph - rh;
  let pl = rh - (ph - bv) + (sqHi - bv) + rl + sqLo + tail;
  let t = ph + pl;
  pl = pl - (t - ph);
  ph = t;
  // T·(1 + p) = T + T·p with T = 2^(j/64).
  const th = EXP_T_HI[j];
  const tl = EXP_T_LO[j];
  twoProd(th, ph, tmp, 2);
  const qh = tmp[2];
  const ql = tmp[3] + th * pl + tl * ph;
  let hi = th + qh;
  const bq = hi - th;
  let lo = th - (hi - bq) + (qh - bq) + ql + tl;
  t = hi + lo;
  lo = lo - (t - hi);
  hi = t;
  dd[0] = hi;
  dd[1] = lo;
  return n;
}

/** `math.exp(y)` of Python (glibc): the correctly rounded e^y. */
export function crExp(y: number): number {
  if (!(y > -708 && y < 709)) return Math.exp(y);
  if (y === 0) return 1;
  if (!ready) init();
  const n = expDD(y, 0);
  const r = roundDD(dd[0], dd[1], EPS);
  if (Number.isNaN(r)) return expExact(y);
  const out = r * 2 ** n;
  return out < 2.2250738585072014e-308 ? expExact(y) : out;
}

/** log(x) as a double-double written to `dd` (about 2^-75 relative), for a positive normal finite x ≠ 1. */
function logDD(x: number): void {
  // x = m · 2^e with m in [sqrt(1/2), sqrt(2)): exact scaling by powers of two.
  let e = Math.floor(Math.log2(x));
  let m = x / 2 ** e;
  if (m >= 2) {
    m /= 2;
    e += 1;
  } else if (m < 1) {
    m *= 2;
    e -= 1;
  }
  if (m > Math.SQRT2) {
    m /= 2;
    e += 1;
  }
  const k = Math.round(m * 128);
  const c = k / 128;
  // t = (m − c)/c in double-double; m − c is exact.
  const d = m - c;
  const th = d / c;
  twoProd(th, c, tmp, 0);
  const tl = (d - tmp[0] - tmp[1]) / c;
  // log(1 + t) = t − t²/2 + t³/3 − …: t, t²/2, t³/3 in double-double, the rest in double (|t| ≤ 0.0056).
  twoProd(th, th, tmp, 2);
  const sqHi = tmp[2];
  const sqLo = tmp[3] + 2 * th * tl;
  twoProd(sqHi, th, tmp, 4);
  const cuHi = tmp[4];
  const cuLo = tmp[5] + sqLo * th + sqHi * tl;
  const rest = sqHi * sqHi * (-1 / 4 + th * (1 / 5 + th * (-1 / 6 + th * (1 / 7 + th * (-1 / 8 + th * (1 / 9 - th / 10))))));
  // Sum, largest first: e·ln2 + log(c) + t − t²/2 + t³/3 + rest.
  let hi = e * LN2_HI;
  let lo = e * LN2_LO;
  const add = (vh: number, vl: number): void => {
    const s = hi + vh;
    const bb = s - hi;
    const err = hi - (s - bb) + (vh - bb);
    lo += err + vl;
    hi = s;
  };
  add(LOG_T_HI[k], LOG_T_LO[k]);
  add(th, tl);
  add(-sqHi / 2, -sqLo / 2);
  const cu3 = cuHi / 3;
  twoProd(cu3, 3, tmp, 6);
  add(cu3, (cuHi - tmp[6] - tmp[7]) / 3 + cuLo / 3);
  lo += rest;
  const s = hi + lo;
  lo = lo - (s - hi);
  dd[0] = s;
  dd[1] = lo;
}

/** `math.log(x)` of Python (glibc): the correctly rounded natural logarithm of a positive normal double. */
export function crLog(x: number): number {
  if (!(x >= 2.2250738585072014e-308 && x < Infinity)) return Math.log(x);
  if (x === 1) return 0;
  if (!ready) init();
  logDD(x);
  const r = roundDD(dd[0], dd[1], EPS);
  return Number.isNaN(r) ? logExact(x) : r;
}

/** Relative accuracy of exp(y·log x) in double-double: |y·log x| < 709 times log's 2^-75, and exp's own error. */
const POW_EPS = 2 ** -62;

/**
 * `x ** y` correctly rounded (round half to even) for a positive normal double `x` and a finite `y` whose result
 * is a normal double; otherwise JavaScript's `x ** y`. Python's `**` on floats is glibc's `pow`, which has a
 * worst-case error of about 0.52 ulp: it agrees with this function on nearly every argument (and V8's `**`,
 * within 1 ulp, disagrees on several per cent of them). pycocoevalcap takes the n-th root of BLEU's product of
 * precisions as `bleu ** (1./(k+1))`.
 *
 * Method: exp(y · log x) in double-double ({@link logDD}, {@link expDD}), rounded once; when the result lies too
 * close to a rounding boundary for that accuracy to decide, 240-bit fixed-point arithmetic. `y = 0.5` is
 * `Math.sqrt`, which IEEE 754 rounds correctly.
 */
export function crPow(x: number, y: number): number {
  if (!(x >= 2.2250738585072014e-308 && x < Infinity && Number.isFinite(y))) return x ** y;
  if (y === 0 || x === 1) return 1;
  if (y === 1) return x;
  if (y === 0.5) return Math.sqrt(x);
  if (!ready) init();
  logDD(x);
  const lh = dd[0];
  const ll = dd[1];
  twoProd(y, lh, tmp, 0);
  const ph = tmp[0] + (tmp[1] + y * ll);
  const pl = tmp[1] + y * ll - (ph - tmp[0]);
  if (!(ph > -708 && ph < 709)) return x ** y;
  const n = expDD(ph, pl);
  const r = roundDD(dd[0], dd[1], POW_EPS);
  if (Number.isNaN(r)) return powExact(x, y);
  const out = r * 2 ** n;
  return out < 2.2250738585072014e-308 ? powExact(x, y) : out;
}

/** The 240-bit reference evaluations (tests). */
export const exactForTests = { exp: expExact, log: logExact, pow: powExact };
