/**
 * Errors and small checks shared by everything that reads a user's plan or run config (job plans, generation
 * and judge run configs, metric configurations): a bad field is reported with the file (or setting) it came
 * from and the field's path, e.g. `run.json: judges[1].baseURL: is required for API judges`.
 */

/** A problem in a plan or config, naming where it came from and the offending field. */
export class ConfigError extends Error {
  constructor(
    /** The file (or setting, or `--flag`) the value came from. */
    readonly file: string,
    /** Dotted path of the field, e.g. `judges[1].baseURL`; `(root)` for the whole value. */
    readonly field: string,
    message: string,
  ) {
    super(`${file}: ${field}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** Reports a problem by throwing; validators receive one bound to their source. */
export type Fail = (field: string, message: string) => never;

/** A {@link Fail} that throws {@link ConfigError} for `source`. */
export function failFor(source: string): Fail {
  return (field, message) => {
    throw new ConfigError(source, field, message);
  };
}

/** True for a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Fails on the first key of `v` not in `known`, listing the known ones (a typo is never silently ignored). */
export function rejectUnknownFields(v: Record<string, unknown>, known: readonly string[], at: string, fail: Fail): void {
  for (const k of Object.keys(v)) if (!known.includes(k)) fail(at ? `${at}.${k}` : k, `unknown field (known: ${known.join(', ')})`);
}
