/**
 * A job's local runtime options over the host's: a plan's `runtime` (threads, execution provider) overrides the
 * settings the host put in its model locator, field by field.
 */
import type { ModelLocator } from '../models/describe';
import type { LocalRuntimeOptions } from '../models/ortRuntime';

/** `locator` with `runtime` laid over its own runtime options (unchanged when `runtime` is unset). */
export function withRuntime(locator: ModelLocator, runtime: LocalRuntimeOptions | undefined): ModelLocator {
  if (!runtime) return locator;
  return { ...locator, runtime: { ...locator.runtime, ...runtime } };
}
