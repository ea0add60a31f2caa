/**
 * Hugging Face hub models in the hub's standard cache, through the official client `@huggingface/hub`
 * (huggingface.js; `modelInfo` for the commit and file list, `downloadFileToCacheDir` for each file).
 *
 * The cache is the one Python's `huggingface_hub` uses (`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else
 * `~/.cache/huggingface/hub`): `models--<org>--<name>/blobs/<etag>`, `snapshots/<commit>/<path>` (symlinks to the
 * blobs) and `refs/<revision>` (the commit a branch or tag pointed to). A model downloaded by Python (transformers,
 * sentence-transformers, `huggingface-cli download`) is found there, and one downloaded here is found by Python.
 *
 * Cache first: a revision whose snapshot already holds every file a task needs is used without any request, so
 * runs are reproducible and work without network; `HF_HUB_OFFLINE=1` forbids requests altogether (a model missing
 * from the cache is then an error). Otherwise one request (`GET /api/models/<id>/revision/<revision>`) gives the
 * commit and the repository's file list, `refs/<revision>` is written, and only the files the task needs are
 * downloaded (each into `blobs/<etag>.incomplete`, renamed when complete: an interrupted download leaves no file a
 * later run would take for complete).
 *
 * Environment (read when a model is resolved, as Python reads it): `HF_ENDPOINT` (default
 * `https://huggingface.co`), `HF_HUB_CACHE` / `HUGGINGFACE_HUB_CACHE` / `HF_HOME` / `XDG_CACHE_HOME`,
 * `HF_HUB_OFFLINE` (or `TRANSFORMERS_OFFLINE`) = 1/true/yes/on, `HF_TOKEN` (else the token file `huggingface-cli
 * login` writes: `$HF_TOKEN_PATH`, else `$HF_HOME/token`). The token is sent to the endpoint only and never
 * appears in messages.
 */
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { ModelSourceError } from './errors';

/** Hub settings a host may set; anything left out comes from the environment. */
export interface HubOptions {
  /** Hub URL (default `$HF_ENDPOINT`, else `https://huggingface.co`). */
  endpoint?: string;
  /** Cache folder in the hub layout (default `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`). */
  cacheDir?: string;
  /** Access token for private and gated models (default `$HF_TOKEN`, else the `huggingface-cli login` token file). */
  token?: string;
  /** No request at all; only cached models (default `$HF_HUB_OFFLINE`). */
  offline?: boolean;
  /** Where download progress goes (default: nowhere). */
  log?: (message: string) => void;
  /** fetch used for every request (default the global one). */
  fetch?: typeof fetch;
}

/** Hub settings with every default filled in. */
export interface HubSettings {
  endpoint: string;
  cacheDir: string;
  token?: string;
  offline: boolean;
  log: (message: string) => void;
  fetch?: typeof fetch;
}

/** A hub model: repository id and revision (branch, tag or commit; default `main`). */
export interface HubRef {
  id: string;
  revision: string;
}

const TRUE = new Set(['1', 'ON', 'YES', 'TRUE']);

/** The default `revision` of hub models. */
export const DEFAULT_REVISION = 'main';

/** The cache folder Python's `huggingface_hub` uses under `env` (`constants.HF_HUB_CACHE`). */
export function defaultHubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HF_HOME || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface');
  return env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE || join(home, 'hub');
}

function tokenFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const direct = env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN;
  if (direct?.trim()) return direct.trim();
  const home = env.HF_HOME || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'huggingface');
  const file = env.HF_TOKEN_PATH || join(home, 'token');
  try {
    const t = readFileSync(file, 'utf8').trim();
    return t || undefined;
  } catch {
    return undefined;
  }
}

/** Hub settings: `options` first, then the environment (see the module comment). */
export function hubSettings(options: HubOptions = {}, env: NodeJS.ProcessEnv = process.env): HubSettings {
  const offlineEnv = env.HF_HUB_OFFLINE || env.TRANSFORMERS_OFFLINE;
  return {
    endpoint: (options.endpoint || env.HF_ENDPOINT || 'https://huggingface.co').replace(/\/+$/, ''),
    cacheDir: options.cacheDir || defaultHubCacheDir(env),
    token: options.token ?? tokenFromEnv(env),
    offline: options.offline ?? (offlineEnv !== undefined && TRUE.has(offlineEnv.trim().toUpperCase())),
    log: options.log ?? (() => {}),
    fetch: options.fetch,
  };
}

/**
 * The hub id and revision of a reference written `org/name`, `name` or `org/name@revision`, or undefined when it
 * cannot be a hub id (the rules of `huggingface_hub.utils.validate_repo_id`: letters, digits, `-`, `_`, `.`, at
 * most one `/`, no `--` or `..`, not starting or ending with `-` or `.`, at most 96 characters).
 */
export function parseHubRef(ref: string): HubRef | undefined {
  const m = /^([A-Za-z0-9][\w.-]*(?:\/[\w.-]+)?)(?:@([\w./-]+))?$/.exec(ref);
  if (!m) return undefined;
  const id = m[1];
  if (id.length > 96 || id.includes('--') || id.includes('..') || id.split('/').some((p) => /^[-.]|[-.]$/.test(p))) return undefined;
  return { id, revision: m[2] ?? DEFAULT_REVISION };
}

/** `<cacheDir>/models--<org>--<name>`. */
export function hubRepoFolder(cacheDir: string, id: string): string {
  return join(cacheDir, `models--${id.split('/').join('--')}`);
}

const COMMIT = /^[0-9a-f]{40}$/;

/** The cached snapshot of a revision (through `refs/<revision>`, or the commit itself), when the cache has one. */
export function cachedSnapshot(cacheDir: string, ref: HubRef): { folder: string; commit: string } | undefined {
  const repo = hubRepoFolder(cacheDir, ref.id);
  let commit: string | undefined;
  if (COMMIT.test(ref.revision)) commit = ref.revision;
  else {
    try {
      commit = readFileSync(join(repo, 'refs', ref.revision), 'utf8').trim();
    } catch {
      return undefined;
    }
  }
  const folder = join(repo, 'snapshots', commit);
  return existsSync(folder) ? { folder, commit } : undefined;
}

/** What a download plan sees: the repository's files and the snapshot folder (which holds `config.json` once fetched). */
export interface HubPlanInput {
  files: ReadonlySet<string>;
  folder: string;
  commit: string;
  /** How messages name the model, e.g. `hub model "org/name" (revision main, commit 1a2b3c4)`. */
  where: string;
  /** Downloads one file of the repository into the snapshot (no request when it is there already). */
  fetchFile(path: string): Promise<void>;
}

const locks = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier call with the same key has settled (one download of a repository at a time per process). */
async function serialised<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const before = locks.get(key) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(fn);
  locks.set(key, run);
  try {
    return await run;
  } finally {
    if (locks.get(key) === run) locks.delete(key);
  }
}

// @huggingface/hub reports each download with console.debug (and a symlink fallback with console.info), which Node
// prints on stdout, where the CLI writes results. While it downloads, both go to the caller's log instead (its
// "Downloading <file> to <blob>.incomplete" lines left out: downloadHubSnapshot logs each file itself).
const sinks: ((m: string) => void)[] = [];
let savedConsole: { debug: typeof console.debug; info: typeof console.info } | undefined;
async function withLibraryConsole<T>(log: (m: string) => void, fn: () => Promise<T>): Promise<T> {
  if (sinks.length === 0) {
    savedConsole = { debug: console.debug, info: console.info };
    const route = (...args: unknown[]) => {
      const line = args.map(String).join(' ');
      if (!/^Downloading \S/.test(line)) sinks[sinks.length - 1]?.(line);
    };
    console.debug = route;
    console.info = route;
  }
  sinks.push(log);
  try {
    return await fn();
  } finally {
    sinks.splice(sinks.lastIndexOf(log), 1);
    if (sinks.length === 0 && savedConsole) {
      console.debug = savedConsole.debug;
      console.info = savedConsole.info;
      savedConsole = undefined;
    }
  }
}

/** What to do, appended to every hub error. */
function advice(localHint: string): string {
  return `check the id and revision; for a private or gated model set HF_TOKEN to a token that can read it (and accept its terms on the hub); or pass a local folder in the Hugging Face/Optimum ONNX layout${localHint}`;
}

/** One clear error for a failed hub request. */
function hubFailure(err: unknown, ctx: { ref: HubRef; what: string; settings: HubSettings; localHint: string }): ModelSourceError {
  if (err instanceof ModelSourceError) return err;
  const e = err as Error & { statusCode?: number; data?: { error?: unknown; message?: unknown }; cause?: { code?: string; message?: string } };
  const model = `hub model "${ctx.ref.id}" (revision ${ctx.ref.revision})`;
  const at = ctx.settings.endpoint;
  if (typeof e.statusCode === 'number') {
    const said = typeof e.data?.error === 'string' ? ` ("${e.data.error.slice(0, 200)}")` : '';
    if (e.statusCode === 401 || e.statusCode === 403) {
      return new ModelSourceError(
        `${model}: ${ctx.what} was refused by ${at} (HTTP ${e.statusCode}${said}): the model is private or gated and ` +
          `${ctx.settings.token ? 'the token in HF_TOKEN has no access to it' : 'no HF_TOKEN is set'}. Set HF_TOKEN to a token that can read it (and accept its terms on the hub), check the id, or pass a local folder in the Hugging Face/Optimum ONNX layout${ctx.localHint}`,
      );
    }
    if (e.statusCode === 404) return new ModelSourceError(`${model}: ${ctx.what} was not found at ${at} (HTTP 404${said}): ${advice(ctx.localHint)}`);
    return new ModelSourceError(`${model}: ${ctx.what} failed at ${at} (HTTP ${e.statusCode}${said}): retry later, or pass a local folder${ctx.localHint}`);
  }
  if (/access token must start with/i.test(e.message ?? '')) {
    return new ModelSourceError(`${model}: HF_TOKEN does not look like a Hugging Face access token (they start with "hf_"); set a valid token or unset HF_TOKEN`);
  }
  if (e.name === 'TypeError' && /fetch failed/.test(e.message) && e.cause) {
    return new ModelSourceError(
      `${model}: cannot reach ${at} for ${ctx.what} (${e.cause.code ?? e.cause.message ?? 'network error'}): check the network or HF_ENDPOINT; ` +
        `models already in the cache (${ctx.settings.cacheDir}) load without network; or pass a local folder${ctx.localHint}`,
    );
  }
  return new ModelSourceError(
    `${model}: downloading ${ctx.what} from ${at} failed (${e.cause?.message ?? e.message}); the partial file stays marked .incomplete in the cache ` +
      `(${ctx.settings.cacheDir}) and is never loaded: run again to download it again, or pass a local folder${ctx.localHint}`,
  );
}

/**
 * Makes sure the snapshot of `ref` holds the files `plan` asks for, downloading the missing ones (one request for
 * the commit and file list, then each missing file), and returns the snapshot.
 *
 * @param plan - given the repository's files, downloads what it must read first (e.g. `config.json`, through
 *   `fetchFile`) and returns every file the task needs; throws ModelSourceError for a repository that lacks one
 * @param localHint - appended to errors, e.g. ` (no folder /work/org/name exists either)`
 * @throws ModelSourceError naming the id, the file and what to do (404: check the id; 401/403: set HF_TOKEN; no
 *   network: the cache or a local folder); when offline, before any request
 */
export async function downloadHubSnapshot(
  ref: HubRef,
  settings: HubSettings,
  plan: (input: HubPlanInput) => Promise<string[]>,
  localHint = '',
): Promise<{ folder: string; commit: string; downloaded: string[] }> {
  if (settings.offline) {
    throw new ModelSourceError(
      `hub model "${ref.id}" (revision ${ref.revision}) is not in the hub cache ${settings.cacheDir} and HF_HUB_OFFLINE is set, so nothing is downloaded: ` +
        `download it once with network (unset HF_HUB_OFFLINE), point HF_HUB_CACHE at a cache that has it, or pass a local folder${localHint}`,
    );
  }
  const repo = hubRepoFolder(settings.cacheDir, ref.id);
  return serialised(repo, () =>
    withLibraryConsole(settings.log, async () => {
      const hub = await import('@huggingface/hub');
      const credentials = settings.token ? { accessToken: settings.token } : {};
      const common = { hubUrl: settings.endpoint, ...(settings.fetch ? { fetch: settings.fetch } : {}), ...credentials };
      let info: { sha?: string; filePaths?: string[] };
      try {
        info = await hub.modelInfo({ ...common, name: ref.id, revision: ref.revision, additionalFields: ['sha', 'filePaths'] });
      } catch (err) {
        throw hubFailure(err, { ref, what: `its file list (/api/models/${ref.id}/revision/${ref.revision})`, settings, localHint });
      }
      const commit = info.sha;
      if (typeof commit !== 'string' || !COMMIT.test(commit)) throw new ModelSourceError(`hub model "${ref.id}": ${settings.endpoint} gave no commit for revision ${ref.revision}`);
      if (ref.revision !== commit) {
        const refFile = join(repo, 'refs', ref.revision);
        mkdirSync(dirname(refFile), { recursive: true });
        writeFileSync(refFile, commit);
      }
      const folder = join(repo, 'snapshots', commit);
      mkdirSync(folder, { recursive: true });
      const files = new Set(info.filePaths ?? []);
      const downloaded: string[] = [];
      const fetchFile = async (path: string) => {
        if (existsSync(join(folder, path))) return;
        settings.log(`downloading ${ref.id} ${path} (commit ${commit.slice(0, 7)})`);
        try {
          await hub.downloadFileToCacheDir({ ...common, repo: ref.id, path, revision: commit, cacheDir: settings.cacheDir });
        } catch (err) {
          throw hubFailure(err, { ref, what: path, settings, localHint });
        }
        downloaded.push(path);
      };
      const where = `hub model "${ref.id}" (revision ${ref.revision}, commit ${commit.slice(0, 7)})`;
      const needed = await plan({ files, folder, commit, where, fetchFile });
      for (const f of needed) await fetchFile(f);
      return { folder, commit, downloaded };
    }),
  );
}
