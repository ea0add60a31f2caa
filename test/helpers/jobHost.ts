/**
 * An in-process job host for tests of core jobs: the repository's bundled models, prompts and data, a fixed API
 * key, no progress output; `overrides` replace any field (a signal, a log sink, another key).
 */
import { join, resolve } from 'node:path';
import type { JobHost } from '../../src/core/jobs/host';

const root = resolve(__dirname, '../..');

export function testJobHost(baseDir: string, overrides: Partial<JobHost> = {}): JobHost {
  return {
    kind: 'cli',
    baseDir,
    models: { bundledDir: join(root, 'fixtures/models'), baseDir },
    promptRoots: [join(root, 'prompts')],
    dataDir: join(root, 'data'),
    secret: async () => ({ key: 'sk-test' }),
    progress: () => {},
    log: () => {},
    ...overrides,
  };
}
