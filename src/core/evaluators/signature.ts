/**
 * Signatures: the one way every evaluator (metric, judge, clustering, perplexity) writes down the configuration
 * that produced a value, sacreBLEU style (`sacrebleu/metrics/base.py`): `key:value` fields joined by `|`, in an
 * order the evaluator fixes, always ending with `rv:<ReflectEval version>`. A table that records signatures can
 * be reproduced; two configurations that differ in anything have different signatures.
 *
 * Values are written as given, except that `|` (the field separator) is written `%7C` and `%` is written `%25`,
 * so any value — a URL, a path, a template name — round-trips through {@link parseSignature}.
 */
import { createHash } from 'node:crypto';
import { REFLECT_EVAL_VERSION } from '../version';

/**
 * A signature built by {@link buildSignature}: the only kind of string an evaluator's id and its scores' `signature`
 * may be built from (a signature read back from a file is a plain string again).
 */
export type Signature = string & { readonly __signature: 'buildSignature' };

/** One field of a signature; `undefined` values are left out (an unset option that the evaluator defaults). */
export type SignatureField = readonly [key: string, value: string | number | boolean | undefined];

const KEY = /^[A-Za-z][\w.-]*$/;

function encode(value: string): string {
  return value.replace(/%/g, '%25').replace(/\|/g, '%7C');
}

function decode(value: string): string {
  return value.replace(/%7C/gi, '|').replace(/%25/g, '%');
}

/**
 * Builds `k1:v1|k2:v2|…|rv:<version>`.
 *
 * @param fields - in the evaluator's fixed order; keys are letters, digits, `_`, `.`, `-` (not `rv`)
 * @param version - ReflectEval's version (default: this build's)
 * @throws Error for a malformed or repeated key
 */
export function buildSignature(fields: readonly SignatureField[], version: string = REFLECT_EVAL_VERSION): Signature {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const [key, value] of fields) {
    if (!KEY.test(key) || key === 'rv') throw new Error(`signature key ${JSON.stringify(key)}: use letters, digits, '_', '.', '-' (and not "rv")`);
    if (seen.has(key)) throw new Error(`signature key ${key} given twice`);
    seen.add(key);
    if (value === undefined) continue;
    parts.push(`${key}:${encode(String(value))}`);
  }
  parts.push(`rv:${encode(version)}`);
  return parts.join('|') as Signature;
}

/**
 * The fields of a signature, in order (`rv` included). Tolerates signatures written before this helper
 * existed (the same `key:value|…` form).
 */
export function parseSignature(signature: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!signature) return out;
  for (const part of signature.split('|')) {
    const i = part.indexOf(':');
    if (i <= 0) out.set(part, '');
    else out.set(part.slice(0, i), decode(part.slice(i + 1)));
  }
  return out;
}

/**
 * A short hex digest (SHA-256, first `length` hex digits) of a text, for ids that must tell configurations apart
 * without spelling them out. 8 hex digits: a collision among a study's evaluators has probability ~n²/2³³.
 */
export function shortDigest(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}
