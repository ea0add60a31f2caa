import type { RequestSpec } from '../templates/judgePrompt';

/** A judge reply turned into a score. */
export interface ParsedReply {
  value: number | null;
  status: 'ok' | 'unparsable';
  message?: string;
}

/**
 * Parses a judge's reply to a number inside the request's range. The first number in the reply is taken,
 * after removing an echoed range such as `(1-5)` or `1-5`; a trailing `/5` or `out of 5` is allowed.
 * No number, a fraction where a whole number is required, or a value outside [min, max] is `unparsable`
 * — never defaulted (nor clamped); with `spec.values`, a number that is not one of them is `unparsable` too. With word answers (`spec.answers`, e.g. Yes/No) the reply's first word is matched ignoring case;
 * a reply of only a number falls back to the numeric rule.
 *
 * @param raw - the reply verbatim
 * @param spec - valid range, e.g. {min: 1, max: 5, integer: true} for ICMI 2023's Rating request
 */
export function parseJudgeReply(raw: string, spec: RequestSpec): ParsedReply {
  if (spec.answers) {
    const word = /[A-Za-z]+/.exec(raw)?.[0];
    const hit = word === undefined ? undefined : Object.entries(spec.answers).find(([w]) => w.toLowerCase() === word.toLowerCase());
    if (hit) return { value: hit[1], status: 'ok' };
    if (word !== undefined || !/\d/.test(raw)) return { value: null, status: 'unparsable', message: `the reply is not one of ${Object.keys(spec.answers).join(', ')}` };
  }
  const range = new RegExp(`\\(?\\s*${spec.min}\\s*[-–]\\s*${spec.max}\\s*\\)?`, 'g');
  const cleaned = raw.replace(range, ' ');
  const m = /[-+]?\d+(?:\.\d+)?/.exec(cleaned);
  if (!m) return { value: null, status: 'unparsable', message: 'no number in the reply' };
  const value = Number(m[0]);
  if (spec.integer && !Number.isInteger(value)) return { value: null, status: 'unparsable', message: `${m[0]} is not a whole number` };
  if (value < spec.min || value > spec.max) return { value: null, status: 'unparsable', message: `${m[0]} is outside ${spec.min}–${spec.max}` };
  if (spec.values && !spec.values.includes(value)) return { value: null, status: 'unparsable', message: `${m[0]} is not a point of the scale (${spec.values.join(', ')})` };
  return { value, status: 'ok' };
}
