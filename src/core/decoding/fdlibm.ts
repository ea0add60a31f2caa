/**
 * The exponential of the engine's sampling and beam search: fdlibm's `exp` (Sun Microsystems' freely distributable
 * libm, `e_exp.c` 5.3, the algorithm behind V8's `Math.exp`, `src/base/ieee754.cc`), written in TypeScript.
 *
 * Why not `Math.exp`: ECMAScript leaves its precision to the engine, so a seeded draw would depend on the engine;
 * here it depends on IEEE-754 double arithmetic only (for x in (−708, 709); beyond, where e^x is below 10^-307 or
 * above 10^307, `Math.exp`'s value is returned). And it is faster where it matters: inlined in the loops over
 * a row's 50,265 logits, the exponentials and their maximum took 0.51–0.54 ms per row against 0.60–0.61 ms with
 * `Math.exp` (one call out of optimised code per value), on logits of the bench's BART (docs/scale.md).
 *
 * Method (fdlibm): e^x = 2^k · e^r with k the nearest integer to x / ln 2 and r = x − k·ln 2 computed in two parts
 * (ln 2 = ln2Hi + ln2Lo, k·ln2Hi exact), |r| ≤ ln 2 / 2; e^r = 1 + r + r·c / (2 − c) with c = r − r²·P(r²), P of
 * degree 4 (Remez); error below 1 ulp. fdlibm's constants, branch points (tested on the high 32 bits of |x|) and
 * order of operations are kept, so the result is the same double: test/core/decoding/fdlibm.test.ts compares it
 * with V8's `Math.exp` bit for bit on about 2 × 10⁶ arguments, branch boundaries included.
 *
 * The constants are fdlibm's, whose notice reads: "Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
 * Developed at SunSoft, a Sun Microsystems, Inc. business. Permission to use, copy, modify, and distribute this
 * software is freely granted, provided that this notice is preserved."
 */

const LN2_HI = 6.93147180369123816490e-1;
const LN2_LO = 1.90821492927058770002e-10;
const INV_LN2 = 1.44269504088896338700;
const P1 = 1.66666666666666019037e-1;
const P2 = -2.77777777770155933842e-3;
const P3 = 6.61375632143793436117e-5;
const P4 = -1.65339022054652515390e-6;
const P5 = 4.13813679705723846039e-8;

/** 2^k for k in [−1022, 1023], at index k + 1022 (the k of a result in the normal range). */
const POW2 = Float64Array.from({ length: 2046 }, (_, i) => 2 ** (i - 1022));

/** The double whose high 32 bits are `hi` and low 32 bits 0 (fdlibm compares |x|'s high word with such values). */
function fromHighWord(hi: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setUint32(0, hi);
  return view.getFloat64(0);
}

/** |x| ≥ this ⇔ high word of |x| > 0x3FD62E42 (fdlibm's test for |x| > ln 2 / 2). */
const REDUCE_FROM = fromHighWord(0x3fd62e43);
/** |x| < this ⇔ high word of |x| < 0x3FF0A2B2 (fdlibm's test for |x| < 1.5·ln 2). */
const K_ONE_BELOW = fromHighWord(0x3ff0a2b2);
/** 2^-28: high word of |x| < 0x3E300000. */
const TINY = fromHighWord(0x3e300000);

/**
 * e^x, bit-identical to fdlibm's `exp` as V8 computes `Math.exp` (which also returns `Math.E` for x = 1).
 *
 * @param x - any double; outside (−708, 709) (results near or past the ends of the normal range, ±∞, NaN) the
 *   value is `Math.exp`'s
 * @returns e^x, in [0, +∞] (NaN for NaN)
 */
export function fdlibmExp(x: number): number {
  if (!(x > -708 && x < 709)) return Math.exp(x);
  const ax = x < 0 ? -x : x;
  let k = 0;
  let hi = 0;
  let lo = 0;
  if (ax >= REDUCE_FROM) {
    if (ax < K_ONE_BELOW) {
      if (x === 1) return Math.E; // V8's special case
      k = x < 0 ? -1 : 1;
    } else {
      k = (INV_LN2 * x + (x < 0 ? -0.5 : 0.5)) | 0; // C's (int) cast truncates towards zero
    }
    hi = x - k * LN2_HI; // exact
    lo = k * LN2_LO;
    x = hi - lo;
  } else if (ax < TINY) {
    return 1 + x;
  }
  const t = x * x;
  const c = x - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  if (k === 0) return 1 - ((x * c) / (c - 2.0) - x);
  const y = 1 - (lo - (x * c) / (2.0 - c) - hi);
  return y * POW2[k + 1022];
}
