/**
 * Reads a workspace folder for {@link buildStudyIndex}: lists its files (skipping tools' folders and hidden ones),
 * and reads each study, manifest and report head — again only when its size or modification time changed since
 * the last scan, so a refresh after one file changed costs that file's read and the listing. A study that keeps
 * labels in sidecars (`<study>.labels/*.jsonl`) is read with them, and again when any of them changes. The side bar keeps one
 * scanner per workspace folder; `reflect-eval studies` makes one for its single scan.
 */
import type { Dirent } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { siblingFile } from '../dialogue/siblingFile';
import { classifyFile, folderOf, nameOf, SKIPPED_FOLDERS } from './files';
import { buildStudyIndex, PACKET_RECOGNIZERS, type PacketRecognizer, type StudyIndex } from './studies';
import { studyContent, type SidecarText, type StudyContent } from './studyContent';
import type { AnnotationCheck } from '../format/sidecarReader';

/** Options of a {@link WorkspaceScanner}. */
export interface ScanOptions {
  /** Files listed at most (a guard against a workspace that is a whole disk); default 50 000. */
  maxFiles?: number;
  /** Study files larger than this are listed without their numbers (default 256 MiB). */
  maxStudyBytes?: number;
  /** Manifests larger than this are not read (default 8 MiB). */
  maxManifestBytes?: number;
  packets?: readonly PacketRecognizer[];
  /**
   * The check of a sidecar line's annotation every job uses (`format/labelSidecars.ts` `annotationSchemaProblem`),
   * loaded when a study with sidecars is first read (VS Code's entry bundle loads it from the full extension). A
   * study with sidecars and no check is listed with an error.
   */
  annotationCheck?: () => Promise<AnnotationCheck>;
}

/** What one scan did, for the bench and the CLI's `--verbose`. */
export interface ScanStats {
  files: number;
  /** Files read in this scan (the others came from the previous scan's reads). */
  read: number;
  /** Bytes read in this scan. */
  bytes: number;
  /** The listing stopped at `maxFiles`. */
  truncated: boolean;
}

interface Cached<T> {
  /** Sizes and modification times of the files the value was read from. */
  signature: string;
  value: T;
}

const signatureOf = (...stats: { size: number; mtimeMs: number }[]) => stats.map((s) => `${s.size}:${s.mtimeMs}`).join(' ');

const MiB = 1024 * 1024;
const REPORT_HEAD_BYTES = 512;

/** Scans one workspace folder; keeps what it read for the next scan. */
export class WorkspaceScanner {
  private studies = new Map<string, Cached<StudyContent | { error: string }>>();
  private texts = new Map<string, Cached<string | undefined>>();
  stats: ScanStats = { files: 0, read: 0, bytes: 0, truncated: false };

  constructor(
    readonly root: string,
    private readonly options: ScanOptions = {},
  ) {}

  /**
   * Lists the folder and builds its index.
   *
   * @param annotator - the viewing annotator (for each study's `mine`), or null
   */
  async scan(annotator: string | null = null): Promise<StudyIndex> {
    const stats: ScanStats = { files: 0, read: 0, bytes: 0, truncated: false };
    const files = await this.list(stats);
    const wanted = files.filter((f) => classifyFile(f) || (this.options.packets ?? PACKET_RECOGNIZERS).some((r) => r.manifest.test(nameOf(f))));
    // Each study's sidecar files (`<study>.labels/*.jsonl`), by the labels folder's path.
    const sidecarFiles = new Map<string, string[]>();
    for (const f of files) if (f.endsWith('.jsonl') && /\.labels$/i.test(folderOf(f))) sidecarFiles.set(folderOf(f), [...(sidecarFiles.get(folderOf(f)) ?? []), f]);
    const studies = new Map<string, StudyContent | { error: string }>();
    const texts = new Map<string, string | undefined>();
    await Promise.all(
      wanted.map(async (path) => {
        const full = join(this.root, path);
        let st: { size: number; mtimeMs: number };
        try {
          st = await stat(full);
        } catch {
          return; // gone since the listing
        }
        const kind = classifyFile(path)?.kind;
        if (kind === 'study') {
          const sidecars = sidecarFiles.get(siblingFile(path, '.labels')) ?? [];
          const sidecarStats = (await Promise.all(sidecars.map((f) => stat(join(this.root, f)).then((x) => ({ path: f, size: x.size, mtimeMs: x.mtimeMs }), () => undefined)))).filter((x) => x !== undefined);
          const bytes = st.size + sidecarStats.reduce((n, x) => n + x.size, 0);
          studies.set(path, await this.cached(this.studies, path, signatureOf(st, ...sidecarStats), stats, () => this.readStudy(full, st.size, sidecarStats.map((x) => x.path)), bytes));
        } else if (kind === 'report') texts.set(path, await this.cached(this.texts, path, signatureOf(st), stats, () => readHead(full), Math.min(st.size, REPORT_HEAD_BYTES)));
        else texts.set(path, await this.cached(this.texts, path, signatureOf(st), stats, () => (st.size > (this.options.maxManifestBytes ?? 8 * MiB) ? Promise.resolve(undefined) : readFile(full, 'utf8')), st.size));
      }),
    );
    for (const cache of [this.studies, this.texts]) for (const path of cache.keys()) if (!studies.has(path) && !texts.has(path)) cache.delete(path);
    stats.files = files.length;
    this.stats = stats;
    return buildStudyIndex(
      files,
      {
        content: (p) => studies.get(p) ?? { error: 'not readable' },
        text: (p) => texts.get(p),
        head: (p) => texts.get(p),
      },
      { annotator, packets: this.options.packets },
    );
  }

  private async cached<T>(cache: Map<string, Cached<T>>, path: string, signature: string, stats: ScanStats, read: () => Promise<T>, bytes: number): Promise<T> {
    const hit = cache.get(path);
    if (hit && hit.signature === signature) return hit.value;
    let value: T;
    try {
      value = await read();
    } catch {
      value = undefined as T;
    }
    stats.read++;
    stats.bytes += bytes;
    cache.set(path, { signature, value });
    return value;
  }

  /** A study's numbers from its file and its sidecars (`sidecars`: paths relative to the root). */
  private async readStudy(full: string, size: number, sidecars: readonly string[]): Promise<StudyContent | { error: string }> {
    const max = this.options.maxStudyBytes ?? 256 * MiB;
    if (size > max) return { error: `${(size / MiB).toFixed(0)} MB: too large to summarise here (reflect-eval studies reads it)` };
    try {
      const texts: SidecarText[] = await Promise.all(sidecars.map(async (f) => ({ name: nameOf(f), text: await readFile(join(this.root, f), 'utf8') })));
      if (!sidecars.length) return studyContent(await readFile(full, 'utf8'));
      if (!this.options.annotationCheck) return { error: 'label sidecars cannot be read here (no annotation check)' };
      return studyContent(await readFile(full, 'utf8'), texts, await this.options.annotationCheck());
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  /** Every file under the root, `/`-separated and relative, in no particular order. */
  private async list(stats: ScanStats): Promise<string[]> {
    const max = this.options.maxFiles ?? 50_000;
    const out: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(rel ? join(this.root, rel) : this.root, { withFileTypes: true });
      } catch {
        return;
      }
      const dirs: string[] = [];
      for (const e of entries) {
        if (out.length >= max) {
          stats.truncated = true;
          return;
        }
        const path = rel ? `${rel}/${e.name}` : e.name;
        if (e.isDirectory()) {
          if (!e.name.startsWith('.') && !SKIPPED_FOLDERS.has(e.name)) dirs.push(path);
        } else if (e.isFile() || e.isSymbolicLink()) out.push(path);
      }
      for (const d of dirs) await walk(d);
    };
    await walk('');
    return out;
  }
}

/** The first bytes of a file as text. */
async function readHead(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(REPORT_HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, REPORT_HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
