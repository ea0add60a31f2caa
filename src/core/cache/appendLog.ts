/**
 * Append-only JSON Lines files that heal: the one implementation behind every persistent cache (the response
 * caches of judges and API generators, `responseCache.ts`).
 *
 * A writer killed mid-line leaves a torn last line. Reading skips it (and any other line that does not parse);
 * the next append starts on a fresh line, so the torn fragment costs only its own entry. A line that an older
 * writer glued onto a fragment (`<fragment><entry>`) is read from the start of the entry.
 */
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** What reading a log found. */
export interface AppendLogContents<T> {
  /** Every entry that parsed (and passed the `accept` check), in file order. */
  entries: T[];
  /** Lines that could not be read (torn by a killed writer, or otherwise damaged); their entries are lost. */
  skipped: number;
  /** Entries recovered from lines where an older writer had glued them onto a torn fragment. */
  recovered: number;
}

/** How many later `{` a damaged line is tried from before it is given up. */
const MAX_RECOVERY_TRIES = 64;

/**
 * An append-only file of one JSON value per line.
 *
 * @typeParam T - the entry type (JSON-serialisable)
 */
export class AppendLog<T> {
  /**
   * @param file - the log file; created with its folder on the first append
   * @param accept - whether a parsed value is an entry (default: any value); a value it refuses counts as skipped
   */
  constructor(
    readonly file: string,
    private readonly accept: (value: unknown) => value is T = (v): v is T => v !== undefined,
  ) {}

  /** Reads every entry; never throws for damaged lines (a missing file has none). */
  read(): AppendLogContents<T> {
    const out: AppendLogContents<T> = { entries: [], skipped: 0, recovered: 0 };
    if (!existsSync(this.file)) return out;
    for (const line of readFileSync(this.file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const whole = this.parse(line);
      if (whole !== undefined) {
        out.entries.push(whole);
        continue;
      }
      out.skipped++;
      // `<fragment><entry>`: an older writer appended to a torn line without a line break first.
      let tries = 0;
      for (let at = line.indexOf('{', 1); at > 0 && tries < MAX_RECOVERY_TRIES; at = line.indexOf('{', at + 1), tries++) {
        const tail = this.parse(line.slice(at));
        if (tail !== undefined) {
          out.entries.push(tail);
          out.recovered++;
          break;
        }
      }
    }
    return out;
  }

  private parse(text: string): T | undefined {
    try {
      const value: unknown = JSON.parse(text);
      return this.accept(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Appends one entry as one line with a single write. If the file does not end with a line break (a writer was
   * killed mid-line), a line break goes first, so the entry starts on a fresh line and the fragment stays a line
   * of its own.
   */
  append(entry: T): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const fd = openSync(this.file, 'a+');
    try {
      const { size } = fstatSync(fd);
      let lead = '';
      if (size > 0) {
        const last = new Uint8Array(1);
        readSync(fd, last, 0, 1, size - 1);
        if (last[0] !== 0x0a) lead = '\n';
      }
      const bytes = new TextEncoder().encode(`${lead}${JSON.stringify(entry)}\n`);
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written);
    } finally {
      closeSync(fd);
    }
  }
}
