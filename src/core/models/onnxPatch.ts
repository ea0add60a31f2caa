/**
 * Exposes the new positions of a decoder's key/value cache as graph outputs, by editing an ONNX `ModelProto`'s
 * bytes (protobuf wire format, onnx.proto3 field numbers, onnx 1.12) without decoding its weights.
 *
 * Why: an Optimum export returns the whole cache every step (`present.{i}.key = Concat(past_key_values.{i}.key,
 * new key)`, axis 2), and onnxruntime-node copies every output into a fresh JavaScript buffer — at gpt2-medium's
 * shape and a 384-token prompt, 75 MB per row per step, as long as onnxruntime's own work for 5 rows (issue 19
 * item 2, docs/scale.md). With the Concat's second input declared as a graph output too, a decoding step can fetch
 * only `logits` and the new positions, and keep the cache itself (`StaticKVCache`, kvCache.ts). The graph's
 * computation is unchanged: only its list of outputs grows.
 */
import { open } from 'node:fs/promises';
import { ELEM, graphOutputField, lengthDelimitedHeader } from './onnxBuilder';

/** A protobuf field: its number, wire type, where its key starts, where its value starts and where it ends. */
interface Field {
  field: number;
  wire: number;
  start: number;
  valueStart: number;
  end: number;
  /** The value of a varint field (wire type 0). */
  varint?: bigint;
}

function readVarint(buf: Uint8Array, pos: number): { value: bigint; pos: number } {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new RangeError('truncated varint');
    const b = buf[pos++];
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return { value, pos };
    shift += 7n;
    if (shift > 63n) throw new RangeError('varint longer than 10 bytes');
  }
}

/** The fields of the message in `buf[start, end)`, in order. @throws RangeError on malformed bytes */
function* fields(buf: Uint8Array, start: number, end: number): Generator<Field> {
  let pos = start;
  while (pos < end) {
    const at = pos;
    const key = readVarint(buf, pos);
    pos = key.pos;
    const field = Number(key.value >> 3n);
    const wire = Number(key.value & 7n);
    if (wire === 0) {
      const v = readVarint(buf, pos);
      yield { field, wire, start: at, valueStart: pos, end: v.pos, varint: v.value };
      pos = v.pos;
    } else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      yield { field, wire, start: at, valueStart: pos, end: pos + n };
      pos += n;
    } else if (wire === 2) {
      const len = readVarint(buf, pos);
      const valueStart = len.pos;
      pos = valueStart + Number(len.value);
      if (pos > end) throw new RangeError(`field ${field} runs past its message`);
      yield { field, wire, start: at, valueStart, end: pos };
    } else {
      throw new RangeError(`unsupported wire type ${wire}`);
    }
  }
  if (pos !== end) throw new RangeError('message overruns its length');
}

const text = new TextDecoder();
const str = (buf: Uint8Array, f: Field) => text.decode(buf.subarray(f.valueStart, f.end));

/** The parts of a `NodeProto` this needs. */
interface Node {
  inputs: string[];
  outputs: string[];
  opType: string;
  domain: string;
  /** Integer attributes (`AttributeProto.i`) by name. */
  ints: Map<string, bigint>;
}

function readNode(buf: Uint8Array, f: Field): Node {
  const node: Node = { inputs: [], outputs: [], opType: '', domain: '', ints: new Map() };
  for (const g of fields(buf, f.valueStart, f.end)) {
    if (g.field === 1 && g.wire === 2) node.inputs.push(str(buf, g));
    else if (g.field === 2 && g.wire === 2) node.outputs.push(str(buf, g));
    else if (g.field === 4 && g.wire === 2) node.opType = str(buf, g);
    else if (g.field === 7 && g.wire === 2) node.domain = str(buf, g);
    else if (g.field === 5 && g.wire === 2) {
      let name = '';
      let i: bigint | undefined;
      for (const a of fields(buf, g.valueStart, g.end)) {
        if (a.field === 1 && a.wire === 2) name = str(buf, a);
        else if (a.field === 3 && a.wire === 0) i = BigInt.asIntN(64, a.varint as bigint);
      }
      if (i !== undefined) node.ints.set(name, i);
    }
  }
  return node;
}

/** Whether a `TensorProto` (an initializer) keeps its data in an external file (`data_location` = EXTERNAL). */
function isExternal(buf: Uint8Array, f: Field): boolean {
  for (const g of fields(buf, f.valueStart, f.end)) if (g.field === 14 && g.wire === 0 && g.varint === 1n) return true;
  return false;
}

/** A model whose graph declares each cache tensor's new positions as an output. */
export interface CacheAppendOutputs {
  /**
   * The model's bytes with the added graph outputs: over the input's own buffer when asked to (`inPlace`) and it
   * has room after the model (the input's bytes are then changed), otherwise a new buffer.
   */
  bytes: Uint8Array;
  /**
   * For each `past_key_values.*` input, the graph output holding the positions a step adds to it: float32
   * `[batch, kvHeads, seq, headDim]`, where `present.*` is `[batch, kvHeads, past + seq, headDim]`.
   */
  appended: Map<string, string>;
}

/**
 * Adds, for each cache input `p` in `pastNames`, the second input of the `Concat` that makes `present.*` (the
 * step's new positions) to the graph's outputs.
 *
 * Applies only when every `present.{i}.key|value` is produced by a default-domain `Concat` of two inputs on axis 2
 * (or −2) whose first input is the matching `past_key_values.{i}.key|value` — Optimum's single-graph and
 * with-past exports of GPT-2-style decoders. A merged decoder (its presents come out of an `If`), a fused attention
 * operator, or weights in external data files are reported instead, and the model is loaded as it is.
 *
 * @param model - the bytes of an `.onnx` file (a `ModelProto`)
 * @param pastNames - the graph's cache inputs, `past_key_values.{i}.key|value`
 * @param options.inPlace - write over `model`'s own buffer when it has room after the model (a buffer from
 *   {@link readModelWithRoom}; never a view into memory shared with anything else)
 * @returns the patched model, or `{ skipped }` saying why the pattern does not apply
 * @throws RangeError when the bytes are not a well-formed protobuf message
 */
export function exposeCacheAppends(model: Uint8Array, pastNames: readonly string[], options: { inPlace?: boolean } = {}): CacheAppendOutputs | { skipped: string } {
  const graphField = [...fields(model, 0, model.length)].find((f) => f.field === 7 && f.wire === 2);
  if (!graphField) return { skipped: 'the model has no graph' };
  const producer = new Map<string, Node>();
  const outputs = new Set<string>();
  for (const f of fields(model, graphField.valueStart, graphField.end)) {
    if (f.wire !== 2) continue;
    if (f.field === 1) {
      const node = readNode(model, f);
      for (const o of node.outputs) producer.set(o, node);
    } else if (f.field === 5) {
      if (isExternal(model, f)) return { skipped: 'its weights are in external data files' };
    } else if (f.field === 12) {
      for (const g of fields(model, f.valueStart, f.end)) if (g.field === 1 && g.wire === 2) outputs.add(str(model, g));
    }
  }
  const appended = new Map<string, string>();
  for (const past of pastNames) {
    const present = past.replace('past_key_values.', 'present.');
    const node = producer.get(present);
    if (!node) return { skipped: `no node makes ${present}` };
    const axis = node.ints.get('axis');
    if (node.opType !== 'Concat' || node.domain !== '' || node.inputs.length !== 2 || node.inputs[0] !== past || (axis !== 2n && axis !== -2n)) {
      return { skipped: `${present} is made by ${node.domain ? `${node.domain}.` : ''}${node.opType}(${node.inputs.join(', ')}), not Concat(${past}, new positions) on axis 2` };
    }
    appended.set(past, node.inputs[1]);
  }
  const added = [...new Set(appended.values())].filter((n) => !outputs.has(n)).map((n) => graphOutputField(n, ELEM.float, 4));
  const extra = added.reduce((n, b) => n + b.length, 0);
  const header = lengthDelimitedHeader(7, graphField.end - graphField.valueStart + extra);
  // The header can only grow (a longer length), by `shift` bytes: the graph's body moves by shift, what follows the
  // graph by shift + extra, and the outputs go at the graph's end (protobuf allows a repeated field's entries
  // anywhere in its message).
  const shift = header.length - (graphField.valueStart - graphField.start);
  const length = model.length + shift + extra;
  const room = model.buffer.byteLength - model.byteOffset;
  let bytes: Uint8Array;
  if (options.inPlace && room >= length) {
    // In place: a model read with room after it (see readModelWithRoom) is not copied, only what follows the graph.
    bytes = new Uint8Array(model.buffer, model.byteOffset, length);
    bytes.copyWithin(graphField.end + shift + extra, graphField.end, model.length);
    if (shift > 0) bytes.copyWithin(graphField.valueStart + shift, graphField.valueStart, graphField.end);
  } else {
    bytes = new Uint8Array(length);
    bytes.set(model.subarray(0, graphField.start));
    bytes.set(model.subarray(graphField.valueStart, graphField.end), graphField.valueStart + shift);
    bytes.set(model.subarray(graphField.end), graphField.end + shift + extra);
  }
  bytes.set(header, graphField.start);
  let at = graphField.end + shift;
  for (const b of added) {
    bytes.set(b, at);
    at += b.length;
  }
  return { bytes, appended };
}

/**
 * Reads a model file into a buffer with `room` spare bytes after it, so {@link exposeCacheAppends} can add its
 * outputs in place: at gpt2-medium's size a second 1.4 GB buffer would cost as much as the read (fresh pages).
 */
export async function readModelWithRoom(file: string, room = 1 << 16): Promise<Uint8Array> {
  const handle = await open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    const buf = Buffer.allocUnsafe(size + room);
    let at = 0;
    // In chunks, asynchronously: the extension host's event loop keeps running while a large model is read.
    while (at < size) {
      const { bytesRead } = await handle.read(buf, at, Math.min(1 << 26, size - at), at);
      if (bytesRead === 0) throw new Error(`${file} ended after ${at} of ${size} bytes`);
      at += bytesRead;
    }
    return new Uint8Array(buf.buffer, buf.byteOffset, size);
  } finally {
    await handle.close();
  }
}
