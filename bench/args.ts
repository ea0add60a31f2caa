/**
 * Command-line flags of the bench scripts (`--name value`), read the same way by every one of them.
 */

/** The value after `name` in `args`, or undefined when the flag is absent. */
export function strArg(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/**
 * The value after `name` in `args`, one of `allowed`, or `fallback` when the flag is absent.
 *
 * @throws Error naming the flag and the values it takes, for any other value
 */
export function choiceArg<T extends string>(args: readonly string[], name: string, allowed: readonly T[], fallback: T): T {
  const v = strArg(args, name) ?? fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new Error(`${name} ${v}: expected one of ${allowed.join(', ')}`);
  return v as T;
}

/** The number after `name` in `args`, or `fallback` when the flag is absent. */
export function arg(args: readonly string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}
