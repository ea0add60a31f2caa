/** An in-memory KeyStore (src/core/jobs/apiKeyPolicy.ts) for tests: the editor's SecretStorage and globalState stand-in. */
import type { KeyApproval, KeyStore } from '../../src/core/jobs/apiKeyPolicy';

/** An in-memory key store: keys by `purpose@home` (`purpose@` for an unbound one), approvals in a list. */
export function memoryKeyStore(keys: Record<string, string>, approvals: KeyApproval[] = []): KeyStore & { keys: Record<string, string>; approvalsList: KeyApproval[] } {
  const homes = (p: 'judge' | 'generator') => Object.keys(keys).filter((k) => k.startsWith(`${p}@`)).map((k) => k.slice(p.length + 1) || null);
  return {
    keys,
    approvalsList: approvals,
    async stored() {
      return { judge: homes('judge'), generator: homes('generator') };
    },
    async key(ref) {
      return keys[`${ref.purpose}@${ref.home ?? ''}`];
    },
    async approvals() {
      return approvals;
    },
    async approve(a) {
      approvals.push(a);
    },
    async bind(purpose, origin) {
      keys[`${purpose}@${origin}`] = keys[`${purpose}@`];
      delete keys[`${purpose}@`];
    },
  };
}

