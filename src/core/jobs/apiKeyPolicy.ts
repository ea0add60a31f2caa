/**
 * Where an API key may go (docs/security.md). A key is stored for one endpoint origin (`scheme://host:port`) and is
 * sent only there, or to another origin the user approved for it; an origin nobody approved — in particular one
 * named by a workspace's `.vscode/settings.json` or a plan file in a cloned study repository — is asked about
 * first, and a "no" stops the job before any request carries the key. The CLI's rule is the run config's: a key
 * from an environment variable goes only to the endpoint named beside the variable, and one variable's key goes to
 * two origins only when the plan lists them in `apiKeyOrigins`.
 *
 * Everything here is pure or works through the {@link KeyStore} and {@link KeyAsker} interfaces, so the editor's
 * SecretStorage/globalState and modal dialog, and tests' in-memory stores, run the same decisions.
 */
import type { SecretAnswer, SecretRequest } from './host';

/** Environment variable of API keys when a plan names none (the CLI's default). */
export const DEFAULT_API_KEY_ENV = 'REFLECT_EVAL_API_KEY';

/** Who a key is for: the judges' key and the generators' key are stored apart. */
export type KeyPurpose = SecretRequest['purpose'];

/**
 * The origin a key was stored for, or `null` for a key stored before keys had origins (ReflectEval ≤ 0.1: one key
 * per purpose); such a key is never sent without asking, and "Always" binds it to the origin asked about.
 */
export type KeyHome = string | null;

/** Where the endpoint of a request was written, for the question asked about it. */
export type EndpointSource = 'user' | 'workspace' | 'plan' | 'default';

/** A remembered "Always for this origin": the key stored for `home` may go to `origin`. */
export interface KeyApproval {
  purpose: KeyPurpose;
  /** Origin the key may be sent to. */
  origin: string;
  /** Origin the key was stored for. */
  home: string;
}

/**
 * The origin of an http(s) URL as the WHATWG URL standard writes it: lower-case scheme and host, the port only when
 * it is not the scheme's default (`https://api.openai.com`, `http://127.0.0.1:8000`).
 *
 * @throws Error for a string that is not an absolute http(s) URL
 */
export function endpointOrigin(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`"${url}" is not an absolute http(s) URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`"${url}" is not an http(s) URL`);
  return u.origin;
}

/** What the store holds: for each purpose, the origins keys are stored for (`null`: a key without an origin). */
export interface StoredKeys {
  judge: readonly KeyHome[];
  generator: readonly KeyHome[];
}

/** Which stored key: its purpose and home. */
export interface KeyRef {
  purpose: KeyPurpose;
  home: KeyHome;
}

/** What {@link decideKey} says about a request. */
export type KeyDecision =
  /** Send this key: it was stored for the origin, or the user approved the origin for it. */
  | { send: KeyRef }
  /** Ask the user before sending this key to the origin. */
  | { ask: KeyRef }
  /** No key can go: why (said to the user). */
  | { none: string };

const KEY_COMMAND: Record<KeyPurpose, string> = { judge: 'ReflectEval: Set Judge API Key', generator: 'ReflectEval: Set Generator API Key' };

/**
 * Decides whether a request to `origin` may carry a key, and which. Generators fall back to the judges' keys when no
 * generator key exists at all (as before keys had origins).
 *
 * 1. A key stored for `origin` (the purpose's own, else for generators the judges') is sent.
 * 2. A key the user approved for `origin` ("Always for this origin") is sent while it is still stored.
 * 3. Otherwise, when exactly one key could be meant (the purpose's only key), the user is asked.
 * 4. Otherwise no key is sent, and the message says how to store one for the origin.
 *
 * @param origin - from {@link endpointOrigin}
 */
export function decideKey(purpose: KeyPurpose, origin: string, keys: StoredKeys, approvals: readonly KeyApproval[]): KeyDecision {
  const own = keys[purpose];
  const pools: KeyPurpose[] = purpose === 'generator' ? ['generator', 'judge'] : ['judge'];
  for (const p of pools) if (keys[p].includes(origin)) return { send: { purpose: p, home: origin } };
  for (const p of pools) {
    const approved = approvals.find((a) => a.purpose === purpose && a.origin === origin && keys[p].includes(a.home));
    if (approved) return { send: { purpose: p, home: approved.home } };
  }
  const pool: KeyPurpose = purpose === 'generator' && own.length === 0 ? 'judge' : purpose;
  const candidates = keys[pool];
  if (candidates.length === 1) return { ask: { purpose: pool, home: candidates[0] } };
  if (candidates.length === 0) return { none: `no ${purpose} API key is stored; run "${KEY_COMMAND[purpose]}" and enter ${origin} as its endpoint` };
  return {
    none: `no ${pool} API key is stored for ${origin} (keys are stored for ${candidates.map((h) => h ?? '(no endpoint yet)').join(', ')} and go nowhere else unasked); run "${KEY_COMMAND[purpose]}" and enter ${origin} as its endpoint`,
  };
}

/** The question the editor asks before a key goes to an origin nobody approved. */
export interface KeyQuestion {
  purpose: KeyPurpose;
  origin: string;
  /** The key that would be sent. */
  key: KeyRef;
  source: EndpointSource;
  /** The dialog's title line: `Send your judge API key to http://host:port?` */
  message: string;
  /** Where the address came from and where the key was stored. */
  detail: string;
}

/** The user's answer: send this once, always to this origin, or not at all. */
export type KeyAnswer = 'once' | 'always' | 'cancel';

const SOURCE_TEXT: Record<EndpointSource, string> = {
  workspace: "This address comes from this workspace's settings (.vscode/settings.json), not from your user settings: anyone who wrote the folder chose it.",
  plan: 'This address comes from a plan or run config file, not from your user settings.',
  user: 'This address comes from your user settings.',
  default: "This address is ReflectEval's default endpoint.",
};

/** The question about sending `key` to `origin` (the exact words of the editor's modal dialog). */
export function keyQuestion(purpose: KeyPurpose, origin: string, key: KeyRef, source: EndpointSource): KeyQuestion {
  const stored = key.home ? `The key was stored for ${key.home}.` : 'The key was stored before ReflectEval bound keys to endpoints; "Always" binds it to this origin.';
  return {
    purpose,
    origin,
    key,
    source,
    message: `Send your ${key.purpose} API key to ${origin}?`,
    detail: `${SOURCE_TEXT[source]} ${stored} "Send once" sends it for this run only; "Always for this origin" remembers the answer (ReflectEval: Forget Approved Key Endpoints undoes it).`,
  };
}

/** Where the editor keeps keys and approvals (SecretStorage and globalState); tests use an in-memory one. */
export interface KeyStore {
  /** The homes of stored keys, per purpose. */
  stored(): Promise<StoredKeys>;
  /** The stored key itself (undefined when it is gone). */
  key(ref: KeyRef): Promise<string | undefined>;
  approvals(): Promise<readonly KeyApproval[]>;
  /** Remembers an approval. */
  approve(approval: KeyApproval): Promise<void>;
  /** Binds a key stored without an origin to `origin` (it is then stored for `origin` only). */
  bind(purpose: KeyPurpose, origin: string): Promise<void>;
}

/** Asks the user a {@link KeyQuestion}; anything but a choice (Escape, closing the dialog) is `cancel`. */
export type KeyAsker = (question: KeyQuestion) => Promise<KeyAnswer>;

/**
 * The key for a request under the editor's rule: {@link decideKey}, asking through `ask` when it says so and
 * remembering "Always". A cancelled question answers `declined`, which stops the job before any request is sent.
 *
 * @param source - where the request's endpoint was written (for the question)
 */
export async function approvedKey(request: SecretRequest, source: EndpointSource, store: KeyStore, ask: KeyAsker): Promise<SecretAnswer> {
  let origin: string;
  try {
    origin = endpointOrigin(request.endpoint);
  } catch (err) {
    return { missing: (err as Error).message };
  }
  const decision = decideKey(request.purpose, origin, await store.stored(), await store.approvals());
  if ('none' in decision) return { missing: decision.none };
  const ref = 'send' in decision ? decision.send : decision.ask;
  if ('ask' in decision) {
    const answer = await ask(keyQuestion(request.purpose, origin, ref, source));
    if (answer === 'cancel') return { declined: `you did not approve sending your ${ref.purpose} API key to ${origin}; no request was sent with it` };
    if (answer === 'always') {
      if (ref.home === null) {
        await store.bind(ref.purpose, origin);
        ref.home = origin;
      } else await store.approve({ purpose: request.purpose, origin, home: ref.home });
    }
  }
  const key = await store.key(ref);
  return key ? { key } : { missing: `the ${ref.purpose} API key stored for ${ref.home ?? '(no endpoint)'} is gone; run "${KEY_COMMAND[request.purpose]}" again` };
}

/** An API endpoint of a plan that takes a key: where it is, and the variable its key comes from in the CLI. */
export interface KeyedEndpoint {
  /** `judges[1]`, `generators[0]`: for messages. */
  at: string;
  baseURL: string;
  apiKeyEnv?: string;
}

/**
 * The origins each environment variable's key goes to in a plan (unnamed variables under
 * {@link DEFAULT_API_KEY_ENV}).
 *
 * @throws Error for a baseURL that is not an http(s) URL
 */
export function keyRoutes(endpoints: readonly KeyedEndpoint[]): Map<string, string[]> {
  const routes = new Map<string, string[]>();
  for (const e of endpoints) {
    const variable = e.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
    const origin = endpointOrigin(e.baseURL);
    const list = routes.get(variable) ?? [];
    if (!list.includes(origin)) list.push(origin);
    routes.set(variable, list);
  }
  return routes;
}

/**
 * The CLI's rule: a variable's key goes to one origin, the one named beside it, unless the plan's `apiKeyOrigins`
 * lists every origin it may go to. Returns the problems by variable (empty: the plan may run), each naming the
 * variable, its origins and what to write.
 *
 * @throws Error for a baseURL that is not an http(s) URL
 */
export function keyRouteProblems(endpoints: readonly KeyedEndpoint[], apiKeyOrigins: Readonly<Record<string, readonly string[]>> | undefined): Map<string, string> {
  const problems = new Map<string, string>();
  for (const [variable, origins] of keyRoutes(endpoints)) {
    if (origins.length < 2) continue;
    const listed = (apiKeyOrigins?.[variable] ?? []).map((o) => {
      try {
        return endpointOrigin(o);
      } catch {
        return o;
      }
    });
    const unlisted = origins.filter((o) => !listed.includes(o));
    if (unlisted.length === 0) continue;
    problems.set(
      variable,
      `the key in $${variable} would go to ${origins.length} different origins (${origins.join(', ')}); give each endpoint its own variable in "apiKeyEnv", ` +
        `or list every origin it may go to: "apiKeyOrigins": {"${variable}": [${origins.map((o) => JSON.stringify(o)).join(', ')}]}`,
    );
  }
  return problems;
}

/**
 * Checks a plan's `apiKeyOrigins` field: an object mapping environment variable names to lists of http(s) origins.
 *
 * @param fail - the plan validator's `fail(field, message)`
 */
export function validateApiKeyOrigins(value: unknown, fail: (field: string, message: string) => never): Record<string, string[]> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('apiKeyOrigins', 'must map environment variable names to lists of origins, like {"OPENAI_API_KEY": ["https://api.openai.com"]}');
  for (const [variable, list] of Object.entries(value as Record<string, unknown>)) {
    if (!Array.isArray(list) || list.length === 0) fail(`apiKeyOrigins.${variable}`, 'must be a non-empty list of origins like "https://api.openai.com"');
    (list as unknown[]).forEach((o, i) => {
      if (typeof o !== 'string') fail(`apiKeyOrigins.${variable}[${i}]`, 'must be an origin like "https://api.openai.com"');
      try {
        endpointOrigin(o as string);
      } catch (err) {
        fail(`apiKeyOrigins.${variable}[${i}]`, (err as Error).message);
      }
    });
  }
  return value as Record<string, string[]>;
}
