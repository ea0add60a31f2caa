import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { traceLabel } from '../../src/extension/labelTrace';

describe('traceLabel (REFLECT_EVAL_TRACE_LABELS)', () => {
  let dir: string;
  const saved = process.env.REFLECT_EVAL_TRACE_LABELS;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'label-trace-'))));
  afterEach(() => {
    if (saved === undefined) delete process.env.REFLECT_EVAL_TRACE_LABELS;
    else process.env.REFLECT_EVAL_TRACE_LABELS = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends one line per event with the wall clock and the host clock, in order, and nothing else', () => {
    const file = join(dir, 'trace.jsonl');
    process.env.REFLECT_EVAL_TRACE_LABELS = file;
    const before = Date.now();
    traceLabel('command');
    traceLabel('received');
    traceLabel('ack');
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(lines.map((l) => l.event), ['command', 'received', 'ack']);
    for (const l of lines) {
      assert.deepEqual(Object.keys(l).sort(), ['at', 'event', 'ms']);
      assert.ok((l.at as number) >= before && (l.at as number) <= Date.now());
    }
    assert.ok((lines[2].ms as number) >= (lines[0].ms as number));
  });

  it('writes nothing when the variable is not set', () => {
    const file = join(dir, 'trace.jsonl');
    writeFileSync(file, '');
    delete process.env.REFLECT_EVAL_TRACE_LABELS;
    traceLabel('command');
    assert.equal(readFileSync(file, 'utf8'), '');
  });

  it('does not throw when the file cannot be written (labelling must go on)', () => {
    process.env.REFLECT_EVAL_TRACE_LABELS = join(dir, 'no-such-folder', 'trace.jsonl');
    assert.doesNotThrow(() => traceLabel('edit'));
  });
});
