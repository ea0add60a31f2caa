/**
 * Local runtime options (threads, execution provider, spinning): validated in every plan that runs local models, laid over
 * the host's settings, and handed to onnxruntime's session options.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { runtimeFromFlags } from '../../../src/cli/common';
import { validatePlan } from '../../../src/core/jobs/plans';
import { withRuntime } from '../../../src/core/jobs/runtime';
import { sessionOptionsOf } from '../../../src/core/models/onnxGraph';
import { loadGenerativeModel } from '../../../src/core/models/registry';

const root = resolve(__dirname, '../../..');
const plans = {
  generate: { job: 'generate', generators: [{ backend: 'local' }], preset: 'greedy' },
  judge: { job: 'judge', judges: [{ backend: 'local' }], bodies: ['instructions'], requests: ['rating'] },
  perplexity: { job: 'perplexity' },
};

describe('local runtime options (threads, execution provider, spinning)', () => {
  for (const [job, plan] of Object.entries(plans)) {
    it(`${job} plans accept "runtime" and name the field of a bad value`, () => {
      const ok = validatePlan({ ...plan, runtime: { threads: 2, executionProvider: 'cpu', spinning: true } }, 'run.json') as { runtime?: unknown };
      assert.deepEqual(ok.runtime, { threads: 2, executionProvider: 'cpu', spinning: true });
      assert.throws(() => validatePlan({ ...plan, runtime: { spinning: 'yes' } }, 'run.json'), /run\.json: runtime\.spinning: must be true or false/);
      assert.throws(() => validatePlan({ ...plan, runtime: { threads: 1.5 } }, 'run.json'), /run\.json: runtime\.threads: must be an integer from 0/);
      assert.throws(() => validatePlan({ ...plan, runtime: { executionProvider: 'tpu' } }, 'run.json'), /runtime\.executionProvider: must be one of cpu, cuda, dml, coreml, webgpu/);
      assert.throws(() => validatePlan({ ...plan, runtime: { thread: 2 } }, 'run.json'), /runtime\.thread: unknown field/);
    });
  }

  it('a plan overrides the host field by field; session options carry threads and a non-CPU provider with CPU fallback', () => {
    const host = { bundledDir: '/b', baseDir: '/w', runtime: { threads: 4, executionProvider: 'cpu' as const } };
    assert.equal(withRuntime(host, undefined), host);
    assert.deepEqual(withRuntime(host, { executionProvider: 'cuda' }).runtime, { threads: 4, executionProvider: 'cuda' });
    assert.deepEqual(sessionOptionsOf({ threads: 3, executionProvider: 'cpu' }), { intraOpNumThreads: 3 });
    assert.deepEqual(sessionOptionsOf({ executionProvider: 'dml' }), { executionProviders: ['dml', 'cpu'] });
    assert.deepEqual(sessionOptionsOf({ spinning: true }), { allowSpinning: true });
    assert.deepEqual(sessionOptionsOf({ spinning: false }), {});
    assert.deepEqual(runtimeFromFlags({ spinning: 'on' }, { threads: 2, spinning: false }), { threads: 2, spinning: true });
    assert.deepEqual(runtimeFromFlags({ spinning: 'off' }, { spinning: true }), { spinning: false });
    assert.deepEqual(sessionOptionsOf(undefined), {});
  });

  it('the host runtime reaches onnxruntime: a provider the binaries lack fails naming the model file', async function () {
    this.timeout(60_000);
    const locator = { bundledDir: resolve(root, 'fixtures/models'), baseDir: root };
    const one = await loadGenerativeModel('bundled:reflect-gpt2-tiny', { ...locator, runtime: { threads: 1 } });
    assert.ok(one);
    // ReflectEval's install skips onnxruntime-node's CUDA libraries (.npmrc), so CUDA cannot load here.
    await assert.rejects(loadGenerativeModel('bundled:reflect-gpt2-tiny', { ...locator, runtime: { executionProvider: 'cuda' } }), /reflect-gpt2-tiny: onnx\/model\.onnx could not be loaded by onnxruntime \(.*Cuda/i);
  });
});
