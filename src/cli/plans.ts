/**
 * Reading plans from what a user typed: a JSON file (`--config run.json`) or inline JSON (`--config '{…}'`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * The JSON value of `--config`: inline JSON (starts with `{`) or a file.
 *
 * @returns the parsed value, the source name for messages, and the folder relative paths in it are read against
 * @throws Error naming the file when it does not exist or is not valid JSON
 */
export function readJsonArg(arg: string, flag = '--config'): { value: unknown; source: string; dir: string } {
  const inline = arg.trimStart().startsWith('{');
  const source = inline ? flag : resolve(arg);
  if (!inline && !existsSync(source)) throw new Error(`${flag} ${arg}: no such file (give inline JSON starting with "{" or a JSON file)`);
  try {
    return { value: JSON.parse(inline ? arg : readFileSync(source, 'utf8')), source, dir: inline ? process.cwd() : dirname(source) };
  } catch (err) {
    throw new Error(`${source}: not valid JSON: ${(err as Error).message}`);
  }
}
