/**
 * API keys in the editor (docs/security.md): each key is stored in SecretStorage for one endpoint origin; the
 * origins keys are stored for, and the user's "Always for this origin" approvals, are kept in globalState (never in
 * settings, which a workspace can override). Whether a request may carry a key is decided in core
 * (src/core/jobs/apiKeyPolicy.ts); this module is its store, its modal dialog, the commands that set keys and forget
 * approvals, and the migration of keys stored before keys had origins.
 */
import * as vscode from 'vscode';
import type { SecretAnswer, SecretRequest } from '../core/jobs/host';
import { approvedKey, endpointOrigin, type EndpointSource, type KeyAnswer, type KeyApproval, type KeyPurpose, type KeyQuestion, type KeyRef, type KeyStore, type StoredKeys } from '../core/jobs/apiKeyPolicy';

/** SecretStorage names of keys stored before keys had origins (ReflectEval ≤ 0.1): one per purpose. */
export const LEGACY_SECRET_KEYS: Record<KeyPurpose, string> = { judge: 'reflectEval.judge.apiKey', generator: 'reflectEval.generator.apiKey' };
/** globalState: the origins keys are stored for, per purpose. */
const HOMES_STATE = 'reflectEval.keyOrigins';
/** globalState: approvals ("Always for this origin"). */
const APPROVALS_STATE = 'reflectEval.keyApprovals';

/** SecretStorage name of the key of a purpose stored for an origin. */
export function secretName(purpose: KeyPurpose, origin: string): string {
  return `reflectEval.${purpose}.apiKey@${origin}`;
}

type Homes = Record<KeyPurpose, string[]>;

/** The editor's {@link KeyStore}: keys in SecretStorage, their origins and the approvals in globalState. */
export function editorKeyStore(context: vscode.ExtensionContext): KeyStore & {
  store(purpose: KeyPurpose, origin: string, key: string): Promise<void>;
  remove(purpose: KeyPurpose, origin: string): Promise<void>;
  forgetApprovals(): Promise<number>;
} {
  const homes = (): Homes => ({ judge: [], generator: [], ...context.globalState.get<Homes>(HOMES_STATE) });
  const setHomes = (h: Homes) => context.globalState.update(HOMES_STATE, h);
  const approvals = (): KeyApproval[] => context.globalState.get<KeyApproval[]>(APPROVALS_STATE) ?? [];
  const self = {
    async stored(): Promise<StoredKeys> {
      const h = homes();
      const out: { judge: (string | null)[]; generator: (string | null)[] } = { judge: [...h.judge], generator: [...h.generator] };
      for (const p of ['judge', 'generator'] as const) if (await context.secrets.get(LEGACY_SECRET_KEYS[p])) out[p].push(null);
      return out;
    },
    async key(ref: KeyRef): Promise<string | undefined> {
      return context.secrets.get(ref.home === null ? LEGACY_SECRET_KEYS[ref.purpose] : secretName(ref.purpose, ref.home));
    },
    async approvals() {
      return approvals();
    },
    async approve(a: KeyApproval) {
      const list = approvals().filter((x) => !(x.purpose === a.purpose && x.origin === a.origin));
      await context.globalState.update(APPROVALS_STATE, [...list, a]);
    },
    async bind(purpose: KeyPurpose, origin: string) {
      const key = await context.secrets.get(LEGACY_SECRET_KEYS[purpose]);
      if (!key) return;
      await self.store(purpose, origin, key);
      await context.secrets.delete(LEGACY_SECRET_KEYS[purpose]);
    },
    async store(purpose: KeyPurpose, origin: string, key: string) {
      await context.secrets.store(secretName(purpose, origin), key);
      const h = homes();
      if (!h[purpose].includes(origin)) h[purpose] = [...h[purpose], origin];
      await setHomes(h);
    },
    async remove(purpose: KeyPurpose, origin: string) {
      await context.secrets.delete(secretName(purpose, origin));
      const h = homes();
      h[purpose] = h[purpose].filter((o) => o !== origin);
      await setHomes(h);
      await context.globalState.update(APPROVALS_STATE, approvals().filter((a) => !(a.purpose === purpose && a.home === origin)));
    },
    async forgetApprovals() {
      const n = approvals().length;
      await context.globalState.update(APPROVALS_STATE, []);
      return n;
    },
  };
  return self;
}

/** The first button of the key dialog: VS Code makes a modal's first button its default, so Enter sends nothing. */
export const KEY_DIALOG_DEFAULT = "Don't send";

/**
 * The modal question before a key goes to an origin nobody approved. Its default button (the first, which Enter
 * presses) is {@link KEY_DIALOG_DEFAULT}: only a deliberate click or Tab to "Send once" / "Always for this origin"
 * sends the key (issue 41 item 6).
 */
export async function askKeyQuestion(q: KeyQuestion): Promise<KeyAnswer> {
  const choice = await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, KEY_DIALOG_DEFAULT, 'Send once', 'Always for this origin');
  return choice === 'Send once' ? 'once' : choice === 'Always for this origin' ? 'always' : 'cancel';
}

/** The settings that hold API endpoints (a `baseURL` string, or lists of judges / generators with `baseURL`s). */
const ENDPOINT_SETTINGS = ['judge.baseURL', 'judges', 'generator.models'];

function mentions(value: unknown, origin: string): boolean {
  const urls: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') urls.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') walk((v as { baseURL?: unknown }).baseURL);
  };
  walk(value);
  return urls.some((u) => {
    try {
      return endpointOrigin(u) === origin;
    } catch {
      return false;
    }
  });
}

/**
 * Where an endpoint of a plan built from settings was written, by `inspect()`: in a workspace or folder value of
 * `reflectEval.judge.baseURL`, `reflectEval.judges` or `reflectEval.generator.models` → `workspace`; else in the
 * user's value → `user`; else ReflectEval's default.
 */
export function settingsEndpointSource(endpoint: string): EndpointSource {
  let origin: string;
  try {
    origin = endpointOrigin(endpoint);
  } catch {
    return 'workspace';
  }
  const cfg = vscode.workspace.getConfiguration('reflectEval');
  const where = ENDPOINT_SETTINGS.map((k) => cfg.inspect(k));
  if (where.some((w) => mentions(w?.workspaceValue, origin) || mentions(w?.workspaceFolderValue, origin))) return 'workspace';
  if (where.some((w) => mentions(w?.globalValue, origin))) return 'user';
  return 'default';
}

/** The editor host's `secret`: the core rule, asked through the modal dialog, remembered in globalState. */
export function editorSecret(context: vscode.ExtensionContext, source: (endpoint: string) => EndpointSource, ask: (q: KeyQuestion) => Promise<KeyAnswer> = askKeyQuestion): (request: SecretRequest) => Promise<SecretAnswer> {
  const store = editorKeyStore(context);
  return async (request) => {
    await migration;
    return approvedKey(request, source(request.endpoint), store, ask);
  };
}

/** The migration started at activation (requests wait for it, so a legacy key is bound before it is looked up). */
let migration: Promise<void> = Promise.resolve();

/**
 * Binds keys stored before keys had origins to the origin of the user's own endpoint setting: the judges' key to
 * the user-level `reflectEval.judge.baseURL`, the generators' to the only API origin of the user-level
 * `reflectEval.generator.models`. Workspace values are never used; a key with no such user setting stays unbound and
 * is asked about on first use.
 */
export function migrateLegacyKeys(context: vscode.ExtensionContext): Promise<void> {
  migration = migrate(context).catch(() => undefined);
  return migration;
}

async function migrate(context: vscode.ExtensionContext): Promise<void> {
  const store = editorKeyStore(context);
  const cfg = vscode.workspace.getConfiguration('reflectEval');
  const userOrigins = (key: string): string[] => {
    const origins = new Set<string>();
    const walk = (v: unknown) => {
      if (typeof v === 'string') {
        try {
          origins.add(endpointOrigin(v));
        } catch {
          // not a URL
        }
      } else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') walk((v as { baseURL?: unknown }).baseURL);
    };
    walk(cfg.inspect(key)?.globalValue);
    return [...origins];
  };
  const targets: Record<KeyPurpose, string[]> = { judge: userOrigins('judge.baseURL'), generator: userOrigins('generator.models') };
  for (const purpose of ['judge', 'generator'] as const) {
    if (targets[purpose].length !== 1 || !(await context.secrets.get(LEGACY_SECRET_KEYS[purpose]))) continue;
    await store.bind(purpose, targets[purpose][0]);
  }
}

/** The origin the Set … API Key commands offer: the user-level (never the workspace's) endpoint, else the default. */
function offeredOrigin(purpose: KeyPurpose): string {
  const cfg = vscode.workspace.getConfiguration('reflectEval');
  const w = purpose === 'judge' ? cfg.inspect<string>('judge.baseURL') : undefined;
  const user = w?.globalValue ?? (purpose === 'generator' ? cfg.inspect<{ baseURL?: string }[]>('generator.models')?.globalValue?.find((g) => g.baseURL)?.baseURL : undefined);
  try {
    return endpointOrigin(user ?? w?.defaultValue ?? 'https://api.openai.com/v1');
  } catch {
    return 'https://api.openai.com';
  }
}

/**
 * ReflectEval: Set Judge / Generator API Key: asks for the endpoint the key is for (its origin is kept), then the
 * key; an empty key removes the one stored for that origin and its approvals.
 */
export async function setKeyCommand(context: vscode.ExtensionContext, purpose: KeyPurpose): Promise<void> {
  const name = purpose === 'judge' ? 'Judge' : 'Generator';
  const endpoint = await vscode.window.showInputBox({
    title: `${name} API key: endpoint`,
    prompt: 'The endpoint this key is for (its scheme://host:port). The key is sent there only; other endpoints ask first.',
    value: offeredOrigin(purpose),
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        endpointOrigin(v.trim());
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  if (endpoint === undefined) return;
  const origin = endpointOrigin(endpoint.trim());
  const key = await vscode.window.showInputBox({
    title: `${name} API key for ${origin}`,
    prompt: `Stored in VS Code SecretStorage for ${origin}; never written to settings or files. Empty: remove the key stored for ${origin}.`,
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return;
  const store = editorKeyStore(context);
  if (key.trim() === '') {
    await store.remove(purpose, origin);
    void vscode.window.showInformationMessage(`ReflectEval: ${purpose} API key for ${origin} removed.`);
  } else {
    await store.store(purpose, origin, key.trim());
    void vscode.window.showInformationMessage(`ReflectEval: ${purpose} API key stored for ${origin}.`);
  }
}

/** ReflectEval: Forget Approved Key Endpoints: every "Always for this origin" is forgotten (keys stay stored). */
export async function forgetApprovalsCommand(context: vscode.ExtensionContext): Promise<void> {
  const n = await editorKeyStore(context).forgetApprovals();
  void vscode.window.showInformationMessage(`ReflectEval: ${n} approved key endpoint(s) forgotten; keys go only to the endpoints they were stored for until you approve others again.`);
}
