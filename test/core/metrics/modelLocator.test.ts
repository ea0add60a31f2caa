/**
 * Neural metrics find their models through the host's locator (MetricRunOptions.models): `bundled:` references
 * and folders relative to the host's base folder, not to the process's working directory.
 */
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { bertscore, releaseBertScoreEncoders } from '../../../src/core/metrics/bertscore';
import { followUpLikelihood, releaseFollowUpModels } from '../../../src/core/metrics/followUpLikelihood';
import type { ModelLocator } from '../../../src/core/models/registry';

const fixtures = resolve(__dirname, '../../../fixtures/models');
const pair = [{ candidate: 'You want to cut down.', reference: 'You would like to drink less.', context: [{ speaker: 'client' as const, text: 'I drink too much.' }] }];

describe('neural metrics load models through the host locator', function () {
  this.timeout(120_000);
  after(async () => {
    await releaseBertScoreEncoders();
    await releaseFollowUpModels();
  });
  // The base folder is fixtures/models, not the working directory (the repository root), where these relative names do not exist.
  const models: ModelLocator = { bundledDir: fixtures, baseDir: fixtures };

  it('BERTScore: a folder relative to the base folder and a bundled: reference give the scores of the absolute folder', async () => {
    const byPath = await bertscore.score(pair, bertscore.configure({ model: join(fixtures, 'reflect-roberta-tiny'), layer: 3 }));
    const relative = await bertscore.score(pair, bertscore.configure({ model: 'reflect-roberta-tiny', layer: 3 }), { models });
    const bundled = await bertscore.score(pair, bertscore.configure({ model: 'bundled:reflect-roberta-tiny', layer: 3 }), { models });
    assert.equal(typeof byPath[0].f1, 'number');
    assert.deepEqual(relative, byPath);
    assert.deepEqual(bundled, byPath);
    // Without the locator, the relative name means the working directory (old behaviour): no such folder there.
    await assert.rejects(bertscore.score(pair, bertscore.configure({ model: './reflect-roberta-tiny', layer: 3 })), /model folder .*reflect-roberta-tiny does not exist/);
  });

  it('follow-up likelihood: bundled:reflect-bart-tiny through the locator', async () => {
    const c = followUpLikelihood.configure({ model: 'bundled:reflect-bart-tiny' });
    const [byRef] = await followUpLikelihood.score(pair, c, { models });
    const [byPath] = await followUpLikelihood.score(pair, followUpLikelihood.configure({ model: join(fixtures, 'reflect-bart-tiny') }));
    assert.deepEqual(byRef, byPath);
    await assert.rejects(followUpLikelihood.score(pair, c), /no folder of bundled models/);
  });
});
