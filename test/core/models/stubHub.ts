/**
 * A stand-in for the Hugging Face hub on 127.0.0.1, serving fixture folders as repositories over the URLs and
 * headers `@huggingface/hub` (2.17) uses:
 * - `GET /api/models/<id>/revision/<revision>` → `{ id, sha, siblings: [{ rfilename }], … }`;
 * - `POST /api/models/<id>/paths-info/<revision>` → `[{ type, path, oid, size, lfs?: { oid, size }, lastCommit }]`;
 * - `GET /<id>/resolve/<revision>/<path>` → the file (ETag = git blob id, `X-Repo-Commit`, `Content-Length`,
 *   byte ranges), or for LFS files (`*.onnx`, `*.onnx_data`) a 302 to `/cdn/<sha256>` as the hub redirects to its
 *   CDN (`X-Linked-ETag`, `X-Linked-Size`);
 * - errors as the hub gives them: 404 with `X-Error-Code: RepoNotFound | RevisionNotFound | EntryNotFound`, 401
 *   with `X-Error-Code: GatedRepo` for a gated repository without a valid `Authorization: Bearer` token.
 *
 * Every request is recorded; `cut` makes the next full download of a file stop after half its bytes (the socket
 * is destroyed, as when a connection drops).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';

/** A repository: a folder served at a commit; `gated` repositories need the hub's token. */
export interface StubRepo {
  folder: string;
  commit?: string;
  gated?: boolean;
}

interface StubFile {
  path: string;
  content: Buffer;
  oid: string;
  sha256: string;
  lfs: boolean;
}

export interface StubHub {
  endpoint: string;
  /** Every request, in order: method and URL path (with query). */
  requests: { method: string; url: string; authorization?: string }[];
  /** Requests for file contents (`/resolve/` and `/cdn/`). */
  fileRequests(): string[];
  /** `<id>/<path>`: the next full download of that file sends half its bytes, then the connection drops. */
  cut: Set<string>;
  commitOf(id: string): string;
  close(): Promise<void>;
}

function walk(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p, base) : [relative(base, p).split(sep).join('/')];
  });
}

function loadRepo(folder: string): Map<string, StubFile> {
  const files = new Map<string, StubFile>();
  for (const path of walk(folder)) {
    const content = readFileSync(join(folder, path));
    const oid = createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
    files.set(path, { path, content, oid, sha256: createHash('sha256').update(content).digest('hex'), lfs: /\.onnx(_data)?$/.test(path) });
  }
  return files;
}

/** Starts the stub hub. `token` is the one token gated repositories accept. */
export async function startStubHub(repos: Record<string, StubRepo>, options: { token?: string } = {}): Promise<StubHub> {
  const served = new Map(Object.entries(repos).map(([id, r]) => [id, { ...r, commit: r.commit ?? createHash('sha1').update(id).digest('hex'), files: loadRepo(r.folder) }]));
  const byHash = new Map<string, StubFile>();
  for (const r of served.values()) for (const f of r.files.values()) byHash.set(f.sha256, f);
  const requests: StubHub['requests'] = [];
  const cut = new Set<string>();
  let endpoint = '';

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  const notFound = (res: ServerResponse, code: string, message: string) => json(res, 404, { error: message }, { 'x-error-code': code });

  const serve = (req: IncomingMessage, res: ServerResponse, f: StubFile, headers: Record<string, string>, cutKey: string) => {
    const size = f.content.length;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    const common = { 'content-type': 'application/octet-stream', 'accept-ranges': 'bytes', ...headers };
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(range[2] ? Number(range[2]) : size - 1, size - 1);
      res.writeHead(206, { ...common, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': String(end - start + 1) });
      res.end(req.method === 'HEAD' ? undefined : f.content.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { ...common, 'content-length': String(size) });
    if (req.method === 'HEAD') return void res.end();
    if (cut.delete(cutKey)) {
      res.write(f.content.subarray(0, Math.floor(size / 2)), () => res.socket?.destroy());
      return;
    }
    res.end(f.content);
  };

  const server = createServer((req, res) => {
    const url = req.url ?? '';
    requests.push({ method: req.method ?? 'GET', url, authorization: req.headers.authorization });
    const path = decodeURIComponent(url.split('?')[0]);
    const authorised = (r: { gated?: boolean }) => !r.gated || (options.token !== undefined && req.headers.authorization === `Bearer ${options.token}`);
    const revisionOk = (r: { commit: string }, rev: string) => rev === 'main' || rev === r.commit;

    let m = /^\/api\/models\/(.+)\/revision\/([^/]+)$/.exec(path);
    if (m && req.method === 'GET') {
      const r = served.get(m[1]);
      if (!r) return notFound(res, 'RepoNotFound', 'Repository not found');
      if (!revisionOk(r, m[2])) return notFound(res, 'RevisionNotFound', `Invalid rev id: ${m[2]}`);
      return json(res, 200, {
        _id: r.commit.slice(0, 24),
        id: m[1],
        sha: r.commit,
        siblings: [...r.files.keys()].map((rfilename) => ({ rfilename })),
        private: false,
        gated: r.gated ? 'manual' : false,
        downloads: 0,
        likes: 0,
        lastModified: '2024-01-01T00:00:00.000Z',
        pipeline_tag: 'text-generation',
      });
    }
    m = /^\/api\/models\/(.+)\/paths-info\/([^/]+)$/.exec(path);
    if (m && req.method === 'POST') {
      const r = served.get(m[1]);
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (!r) return notFound(res, 'RepoNotFound', 'Repository not found');
        if (!revisionOk(r, m![2])) return notFound(res, 'RevisionNotFound', `Invalid rev id: ${m![2]}`);
        const { paths } = JSON.parse(body) as { paths: string[] };
        const lastCommit = { id: r.commit, title: 'fixture', date: '2024-01-01T00:00:00.000Z' };
        json(
          res,
          200,
          paths
            .map((p) => r.files.get(p))
            .filter((f): f is StubFile => f !== undefined)
            .map((f) => ({ type: 'file', path: f.path, oid: f.oid, size: f.content.length, ...(f.lfs ? { lfs: { oid: f.sha256, size: f.content.length, pointerSize: 134 } } : {}), lastCommit })),
        );
      });
      return;
    }
    m = /^\/cdn\/([0-9a-f]{64})$/.exec(path);
    if (m) {
      const f = byHash.get(m[1]);
      if (!f) return notFound(res, 'EntryNotFound', 'not found');
      return serve(req, res, f, { etag: `"${f.sha256}"` }, new URL(url, endpoint).searchParams.get('key') ?? '');
    }
    m = /^\/(.+?)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    if (m) {
      const [, id, rev, file] = m;
      const r = served.get(id);
      if (!r) return notFound(res, 'RepoNotFound', 'Repository not found');
      if (!authorised(r)) {
        return json(res, 401, { error: `Access to model ${id} is restricted. You must have access to it and be authenticated to access it. Please log in.` }, { 'x-error-code': 'GatedRepo' });
      }
      if (!revisionOk(r, rev)) return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
      const f = r.files.get(file);
      if (!f) return notFound(res, 'EntryNotFound', `${file} does not exist on "${rev}"`);
      if (f.lfs) {
        res.writeHead(302, {
          location: `${endpoint}/cdn/${f.sha256}?key=${encodeURIComponent(`${id}/${file}`)}`,
          'x-repo-commit': r.commit,
          'x-linked-etag': `"${f.sha256}"`,
          'x-linked-size': String(f.content.length),
          etag: `"${f.oid}"`,
        });
        return void res.end();
      }
      return serve(req, res, f, { etag: `"${f.oid}"`, 'x-repo-commit': r.commit }, `${id}/${file}`);
    }
    notFound(res, 'EntryNotFound', `no route ${req.method} ${path}`);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    requests,
    cut,
    fileRequests: () => requests.filter((r) => r.url.includes('/resolve/') || r.url.startsWith('/cdn/')).map((r) => r.url),
    commitOf: (id) => served.get(id)!.commit,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
