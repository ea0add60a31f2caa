import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { LocalRuntimeUnavailableError, requireOrtForTransformers } from '../../../src/core/models/ortRuntime';

const realRequire = createRequire(__filename);

/** A require as on a platform whose binaries the VSIX lacks: onnxruntime-node's binding is not found. */
function requireWithoutBinaries(id: string): unknown {
  if (id === 'onnxruntime-node') {
    const e = new Error(`Cannot find module '../bin/napi-v6/darwin/x64/onnxruntime_binding.node'\nRequire stack:\n- x`) as NodeJS.ErrnoException;
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  }
  return realRequire(id);
}

describe('ortRuntime: onnxruntime-node loaded lazily for transformers.js', () => {
  it('hands over the real module where its binaries load', () => {
    const ort = requireOrtForTransformers(realRequire) as typeof import('onnxruntime-node');
    assert.equal(ort, realRequire('onnxruntime-node'));
  });

  it('without binaries: tensors still work, and opening a session rejects with a message saying what still works', async () => {
    const ort = requireOrtForTransformers(requireWithoutBinaries) as typeof import('onnxruntime-common');
    const t = new ort.Tensor('float32', new Float32Array([1, 2]), [2]);
    assert.deepEqual([...(t.data as Float32Array)], [1, 2]);
    await assert.rejects(ort.InferenceSession.create('model.onnx'), (e: Error) => {
      assert.ok(e instanceof LocalRuntimeUnavailableError);
      assert.match(e.message, /local models cannot run on .*: onnxruntime-node's native binaries for this platform could not be loaded \(Cannot find module '..\/bin\/napi-v6\/darwin\/x64\/onnxruntime_binding.node'\)/);
      assert.match(e.message, /linux-x64, linux-arm64, darwin-arm64, win32-x64, win32-arm64/);
      assert.match(e.message, /API judges and generators/);
      return true;
    });
  });

  it('a failure that is not a missing binary is not disguised as one', () => {
    assert.throws(() => requireOrtForTransformers(() => { throw new TypeError('bug inside'); }), /bug inside/);
  });
});
