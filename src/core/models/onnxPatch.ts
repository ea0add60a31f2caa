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
 *
 * Staged with `sharedPrefix`, the graph also takes one prompt's cache shared by every row (`prefix_key_values.*`,
 * {@link sharedPrefixOf}): the rows decoded from one prompt — beams, samples, a grid's 20 rows — then hold only
 * their own positions, and each step reads the prompt's keys and values once instead of once per row.
 *
 * And how onnxruntime is given a model: {@link stageModel} writes a model's structure into a small file whose
 * initializers are external-data references to their own bytes in the original file, beside a hard link to it, so
 * onnxruntime reads the weights from the file instead of parsing them out of it (faster, into less memory).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { link, mkdir, mkdtemp, open, readdir, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { ELEM, externalDataFields, graphInputField, graphNodeField, graphOutputField, lengthDelimitedHeader, type NodeSpec } from './onnxBuilder';

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

/**
 * Bytes read by position: a buffer, or a file read a window at a time (so a 1.4 GB model's structure can be walked
 * without reading its weights).
 */
export interface ByteSource {
  readonly length: number;
  /** The byte at `pos` (0 ≤ pos < length). */
  at(pos: number): number;
  /** The bytes in [start, end) (a view or a copy; not to be written). */
  slice(start: number, end: number): Uint8Array;
}

/** A buffer as a {@link ByteSource}. */
export function bufferSource(buf: Uint8Array): ByteSource {
  return { length: buf.length, at: (pos) => buf[pos], slice: (start, end) => buf.subarray(start, end) };
}

/** A file as a {@link ByteSource}, read synchronously in windows of `window` bytes (the descriptor stays the caller's). */
export function fileSource(fd: number, window = 1 << 16): ByteSource {
  const length = fstatSync(fd).size;
  let at = 0;
  let buf = new Uint8Array(0);
  const read = (start: number, end: number) => {
    const out = Buffer.allocUnsafe(end - start);
    let n = 0;
    while (n < out.length) {
      const r = readSync(fd, out, n, out.length - n, start + n);
      if (r === 0) throw new RangeError(`the file ended at byte ${start + n} of ${length}`);
      n += r;
    }
    return new Uint8Array(out.buffer, out.byteOffset, out.length);
  };
  return {
    length,
    at(pos) {
      if (pos < at || pos >= at + buf.length) {
        at = pos;
        buf = read(pos, Math.min(length, pos + window));
      }
      return buf[pos - at];
    },
    slice: (start, end) => (start >= at && end <= at + buf.length ? buf.subarray(start - at, end - at) : read(start, end)),
  };
}

function readVarint(buf: ByteSource, pos: number): { value: bigint; pos: number } {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new RangeError('truncated varint');
    const b = buf.at(pos++);
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return { value, pos };
    shift += 7n;
    if (shift > 63n) throw new RangeError('varint longer than 10 bytes');
  }
}

/** The fields of the message in `buf[start, end)`, in order. @throws RangeError on malformed bytes */
function* fields(buf: ByteSource, start: number, end: number): Generator<Field> {
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
const str = (buf: ByteSource, f: Field) => text.decode(buf.slice(f.valueStart, f.end));

/** The parts of a `NodeProto` this needs. */
interface Node {
  inputs: string[];
  outputs: string[];
  opType: string;
  domain: string;
  /** Integer attributes (`AttributeProto.i`) by name. */
  ints: Map<string, bigint>;
  /** Integer-list attributes (`AttributeProto.ints`) by name. */
  lists: Map<string, bigint[]>;
  /** Graph attributes (`AttributeProto.g`, `.graphs`: the branches of an `If`, the body of a `Loop`) by name. */
  graphs: Map<string, Field[]>;
  /** Where the node's `GraphProto.node` field is. */
  field: Field;
}

function readNode(buf: ByteSource, f: Field): Node {
  const node: Node = { inputs: [], outputs: [], opType: '', domain: '', ints: new Map(), lists: new Map(), graphs: new Map(), field: f };
  for (const g of fields(buf, f.valueStart, f.end)) {
    if (g.field === 1 && g.wire === 2) node.inputs.push(str(buf, g));
    else if (g.field === 2 && g.wire === 2) node.outputs.push(str(buf, g));
    else if (g.field === 4 && g.wire === 2) node.opType = str(buf, g);
    else if (g.field === 7 && g.wire === 2) node.domain = str(buf, g);
    else if (g.field === 5 && g.wire === 2) {
      let name = '';
      let i: bigint | undefined;
      const list: bigint[] = [];
      const graphs: Field[] = [];
      for (const a of fields(buf, g.valueStart, g.end)) {
        if (a.field === 1 && a.wire === 2) name = str(buf, a);
        else if ((a.field === 6 || a.field === 11) && a.wire === 2) graphs.push(a);
        else if (a.field === 3 && a.wire === 0) i = BigInt.asIntN(64, a.varint as bigint);
        else if (a.field === 8 && a.wire === 0) list.push(BigInt.asIntN(64, a.varint as bigint));
        else if (a.field === 8 && a.wire === 2) {
          // packed
          for (let at = a.valueStart; at < a.end; ) {
            const v = readVarint(buf, at);
            list.push(BigInt.asIntN(64, v.value));
            at = v.pos;
          }
        }
      }
      if (i !== undefined) node.ints.set(name, i);
      if (list.length) node.lists.set(name, list);
      if (graphs.length) node.graphs.set(name, graphs);
    }
  }
  return node;
}

/**
 * Where a `TensorProto` (an initializer, given as its fields) keeps its data when in an external file
 * (`data_location` = EXTERNAL): its `external_data` entry `location` ('' when none); undefined when its data is in
 * the model.
 */
function externalLocation(buf: ByteSource, tensorFields: Iterable<Field>): string | undefined {
  let external = false;
  let location = '';
  for (const g of tensorFields) {
    if (g.field === 14 && g.wire === 0 && g.varint === 1n) external = true;
    else if (g.field === 13 && g.wire === 2) {
      let key = '';
      let value = '';
      for (const e of fields(buf, g.valueStart, g.end)) {
        if (e.field === 1 && e.wire === 2) key = str(buf, e);
        else if (e.field === 2 && e.wire === 2) value = str(buf, e);
      }
      if (key === 'location') location = value;
    }
  }
  return external ? location : undefined;
}

/** What {@link scanGraph} finds in a `GraphProto`. */
interface GraphScan {
  /** The node making each value. */
  producer: Map<string, Node>;
  /** The nodes reading each value. */
  consumers: Map<string, Node[]>;
  /** The graph's declared outputs. */
  outputs: Set<string>;
  /** The names the graph declares itself: its inputs and initializers (in a subgraph, these hide outer values). */
  declared: Set<string>;
  /** The `location` of every initializer kept in an external data file ('' when it names none). */
  external: string[];
}

function scanGraph(src: ByteSource, graphField: Field): GraphScan {
  const scan: GraphScan = { producer: new Map(), consumers: new Map(), outputs: new Set(), declared: new Set(), external: [] };
  for (const f of fields(src, graphField.valueStart, graphField.end)) {
    if (f.wire !== 2) continue;
    if (f.field === 1) {
      const node = readNode(src, f);
      for (const o of node.outputs) scan.producer.set(o, node);
      for (const i of node.inputs) {
        const list = scan.consumers.get(i);
        if (list) list.push(node);
        else scan.consumers.set(i, [node]);
      }
    } else if (f.field === 5) {
      const tensor = [...fields(src, f.valueStart, f.end)];
      const location = externalLocation(src, tensor);
      if (location !== undefined) scan.external.push(location);
      const name = tensor.find((g) => g.field === 8 && g.wire === 2);
      if (name) scan.declared.add(str(src, name));
    } else if (f.field === 11) {
      for (const g of fields(src, f.valueStart, f.end)) if (g.field === 1 && g.wire === 2) scan.declared.add(str(src, g));
    } else if (f.field === 12) {
      for (const g of fields(src, f.valueStart, f.end)) if (g.field === 1 && g.wire === 2) scan.outputs.add(str(src, g));
    }
  }
  return scan;
}

/**
 * For each cache input, the second input of the `Concat` making its `present.*`, and the output fields to add for
 * those not declared yet; or why the pattern does not apply.
 */
function cacheAppendsOf(scan: GraphScan, pastNames: readonly string[]): { appended: Map<string, string>; added: Uint8Array[] } | { skipped: string } {
  const appended = new Map<string, string>();
  for (const past of pastNames) {
    const present = past.replace('past_key_values.', 'present.');
    const node = scan.producer.get(present);
    if (!node) return { skipped: `no node makes ${present}` };
    const axis = node.ints.get('axis');
    if (node.opType !== 'Concat' || node.domain !== '' || node.inputs.length !== 2 || node.inputs[0] !== past || (axis !== 2n && axis !== -2n)) {
      return { skipped: `${present} is made by ${node.domain ? `${node.domain}.` : ''}${node.opType}(${node.inputs.join(', ')}), not Concat(${past}, new positions) on axis 2` };
    }
    appended.set(past, node.inputs[1]);
  }
  const added = [...new Set(appended.values())].filter((n) => !scan.outputs.has(n)).map((n) => graphOutputField(n, ELEM.float, 4));
  return { appended, added };
}

/** Whether `node` is a default-domain `MatMul` reading `value` as its second operand (and only there). */
function isMatMulOperand(node: Node, value: string): boolean {
  return node.opType === 'MatMul' && node.domain === '' && node.inputs.length === 2 && node.inputs[1] === value && node.inputs[0] !== value;
}

/** Whether `node` is attention's key transpose, `Transpose(perm = [0, 1, 3, 2])`. */
function isKeyTranspose(node: Node): boolean {
  return node.opType === 'Transpose' && node.domain === '' && node.lists.get('perm')?.join(',') === '0,1,3,2';
}

/**
 * How a graph input is read when fed with one row for every row of the batch (batch dimension 1 instead of B):
 * `unread` (the computation reached never reads it), `broadcast` (read only as the second operand of a `MatMul`,
 * directly or through `Transpose(perm = [0, 1, 3, 2])`, or passed unchanged to a graph output, which then has one
 * row), or why neither holds.
 */
export type RowSharing = 'unread' | 'broadcast' | { skipped: string };

/**
 * Which of `names` (rank-4 `[B, H, S, D]` inputs, e.g. a decoder's cross-attention cache
 * `past_key_values.{i}.encoder.key|value`) may be fed with a batch dimension of 1 while the other inputs carry B
 * rows, every output computed from them (outputs that only pass such an input on aside) being what the input tiled to
 * B rows gives.
 *
 * Why it holds: ONNX `MatMul` broadcasts its leading dimensions as numpy does, so `MatMul(Q, K)` with Q `[B, H, s, D]`
 * and K `[1, H, D, S]` gives Q[b] × K[0] for every b — what K tiled to B rows gives — and onnxruntime reads K's one
 * copy for every row instead of B copies. A graph that reshapes or measures the input (transformers' older BART
 * attention reshapes the cache to `[B·H, S, D]`, `Shape` readers) is reported with the node that reads it.
 *
 * Subgraphs are followed: a value a subgraph reads from outside (the branches of Optimum's merged decoder read the
 * cache from the main graph) is checked there too, unless the subgraph declares or makes its own of that name; an
 * `If` whose condition is one of `trueInputs` is followed into its `then_branch` only (`use_cache_branch`: the
 * with-past branch).
 *
 * @returns per name, its {@link RowSharing}
 * @throws RangeError when the bytes are not a well-formed protobuf message
 */
export function rowSharing(src: ByteSource, names: readonly string[], trueInputs: readonly string[] = []): Map<string, RowSharing> {
  const graphField = [...fields(src, 0, src.length)].find((f) => f.field === 7 && f.wire === 2);
  if (!graphField) return new Map(names.map((n) => [n, { skipped: 'the model has no graph' }]));
  const describe = (node: Node) => `${node.domain ? `${node.domain}.` : ''}${node.opType}(${node.inputs.join(', ')})`;
  // The branches a node runs: an If on a known-true condition runs its then_branch only.
  const branches = (node: Node): Field[] => {
    if (node.opType === 'If' && node.domain === '' && trueInputs.includes(node.inputs[0])) return node.graphs.get('then_branch') ?? [];
    return [...node.graphs.values()].flat();
  };
  const scans = new Map<number, GraphScan>();
  const scanOf = (field: Field) => {
    let scan = scans.get(field.start);
    if (!scan) scans.set(field.start, (scan = scanGraph(src, field)));
    return scan;
  };
  /**
   * How graph `field` and the subgraphs below it read `value` (a model input, or a value the graph sees from outside);
   * `transposed`: `value` is the input already transposed, which may only be multiplied by.
   */
  const readsIn = (field: Field, value: string, transposed: boolean): RowSharing => {
    const scan = scanOf(field);
    const reads: RowSharing[] = [];
    if (scan.outputs.has(value)) reads.push(transposed ? { skipped: `the transposed ${value} is a graph output` } : 'broadcast');
    for (const node of scan.consumers.get(value) ?? []) {
      if (isMatMulOperand(node, value)) reads.push('broadcast');
      else if (!transposed && isKeyTranspose(node)) {
        const t = readsIn(field, node.outputs[0], true);
        reads.push(typeof t === 'object' ? { skipped: `${value} is transposed into ${node.outputs[0]}, and ${t.skipped}` } : t);
      }
      else if (!transposed && node.opType === 'Identity' && node.domain === '' && scan.outputs.has(node.outputs[0]) && !scan.consumers.has(node.outputs[0])) reads.push('broadcast');
      else reads.push({ skipped: `${value} is read by ${describe(node)}` });
    }
    const holders = new Map([...scan.producer.values()].filter((n) => n.graphs.size).map((n) => [n.field.start, n]));
    for (const node of holders.values()) {
      for (const sub of branches(node)) {
        const inner = scanOf(sub);
        if (!inner.declared.has(value) && !inner.producer.has(value)) reads.push(readsIn(sub, value, transposed));
      }
    }
    return reads.find((r) => typeof r === 'object') ?? (reads.includes('broadcast') ? 'broadcast' : 'unread');
  };
  return new Map(names.map((n) => [n, readsIn(graphField, n, false)]));
}

/** The graph input holding the shared prompt's cache for a cache input `past_key_values.{i}.key|value`. */
export function prefixInputName(past: string): string {
  return past.replace('past_key_values.', 'prefix_key_values.');
}

/** Node edits {@link sharedPrefixOf} makes: renamed inputs and outputs of existing nodes, nodes and inputs added. */
interface PrefixEdits {
  /** By the node's field start: the node's new input and output names (same order and count). */
  renamed: Map<number, { inputs: string[]; outputs: string[] }>;
  added: Uint8Array[];
}

/**
 * The nodes between a cache value (`present.{i}.key|value`) and attention's product when the model uses grouped-query
 * attention: Hugging Face's `repeat_kv` (`x[:, :, None].expand(b, kv, rep, t, d).reshape(b, kv·rep, t, d)`), exported as
 * `Unsqueeze → Expand → Reshape`, each read by the next alone. Empty when `value`'s one non-`Shape` reader is not an
 * `Unsqueeze` (multi-head attention: the product reads the cache as it is).
 *
 * @returns the chain's nodes in order and the value attention reads, or why the pattern does not hold
 */
function repeatKvChain(scan: GraphScan, readers: Node[]): { chain: Node[]; head: Node[] } | { skipped: string } {
  if (readers.length !== 1 || readers[0].opType !== 'Unsqueeze' || readers[0].domain !== '') return { chain: [], head: readers };
  const chain: Node[] = [readers[0]];
  for (const op of ['Expand', 'Reshape']) {
    const next = scan.consumers.get(chain[chain.length - 1].outputs[0]) ?? [];
    if (next.length !== 1 || next[0].opType !== op || next[0].domain !== '' || next[0].inputs[0] !== chain[chain.length - 1].outputs[0]) {
      return { skipped: `${chain[chain.length - 1].outputs[0]} is not read by one ${op} alone (repeat_kv's Unsqueeze → Expand → Reshape)` };
    }
    chain.push(next[0]);
  }
  return { chain, head: scan.consumers.get(chain[2].outputs[0]) ?? [] };
}

/**
 * Whether a `Shape` reader of a cache value serves only the shapes of `repeat_kv`'s chains: every path from its output
 * ends at the shape input (input 1) of an `Expand` or `Reshape` of a chain. Such a `Shape` must keep reporting the
 * row's own positions (the chain expands the row's own cache), where every other `Shape` of the cache reports the
 * prefix's positions too.
 */
function servesOnlyChains(scan: GraphScan, shape: Node, chainNodes: ReadonlySet<Node>): boolean {
  const seen = new Set<string>();
  const stack = [shape.outputs[0]];
  let reached = false;
  while (stack.length) {
    const value = stack.pop() as string;
    if (seen.has(value)) continue;
    seen.add(value);
    if (scan.outputs.has(value)) return false;
    const users = scan.consumers.get(value) ?? [];
    for (const n of users) {
      if (chainNodes.has(n)) {
        if (n.inputs.indexOf(value) < 1) return false;
        reached = true;
      } else if (SHAPE_ARITHMETIC.has(n.opType) && n.domain === '') stack.push(...n.outputs);
      // Reshaping or expanding the shape vector itself (torch's `expand` export), never an activation by a shape.
      else if ((n.opType === 'Reshape' || n.opType === 'Expand') && n.domain === '' && n.inputs[0] === value && n.inputs[1] !== value) stack.push(...n.outputs);
      else return false;
    }
  }
  return reached;
}

/** Operators torch's exporter uses to compute shapes from a `Shape` (integer tensors only, never activations). */
const SHAPE_ARITHMETIC = new Set(['Gather', 'Unsqueeze', 'Squeeze', 'Concat', 'Slice', 'Cast', 'Mul', 'Add', 'Sub', 'Div', 'Equal', 'Where', 'ConstantOfShape', 'Identity', 'Shape']);

/**
 * The edits that let every row attend to one shared prompt cache (bifurcated attention: Athiwaratkun et al., ICML
 * 2024): a `prefix_key_values.{i}.key|value` input `[1, kvHeads, P, headDim]` per cache input, whose positions come
 * before each row's own `past_key_values` positions. In each layer the scores of the queries against the prefix's
 * keys are one product per key/value head for all rows and new positions: the queries by head `[H, B, s, D]` are
 * regrouped as `[1, kvHeads, rep·B·s, D]` (query head h reads key/value head ⌊h / rep⌋, heads are contiguous; rep = 1
 * without grouped-query attention) and multiplied by the prefix's `[1, kvHeads, D, P]`, so each product has
 * rep·B·s rows (a decode step's B rows, or a prompt pass's s positions) against one read of the prefix. The scores
 * are regrouped back and joined before the graph's mask and softmax with the scores against the row's own keys; the
 * probabilities are split the same way for the values. Every `Shape` of a cache input or a `present.*` sees P more
 * positions, so masks and positions the graph derives from the cache length count the prefix. With an empty prefix
 * (P = 0) the graph computes what it did before.
 *
 * Grouped-query attention (`repeat_kv` between the cache and the product, {@link repeatKvChain}): the prefix is not
 * expanded. The row's own positions still go through the graph's chain, whose `Shape`s keep counting the row's own
 * positions ({@link servesOnlyChains}).
 *
 * (The first form of this edit multiplied by position, `[s, kvHeads, rep·B, D]` against `[1, kvHeads, D, P]`: s
 * products of rep·B rows each, which for a one-row prompt pass after a cached prefix packed the prefix once per new
 * position.)
 *
 * Applies when, for every layer, `present.{i}.key` (a Concat of the cache and the new positions, see
 * {@link cacheAppendsOf}) is read only by one `Transpose(perm 0,1,3,2)` — directly or through a `repeat_kv` chain —
 * that one `MatMul` reads as its second input (the query × keyᵀ scores), and by `Shape`s; `present.{i}.value` only by
 * one `MatMul` as its second input (the probabilities × values), directly or through a chain, and by `Shape`s; and each
 * cache input only by its Concat and by `Shape`s without start/end.
 */
function sharedPrefixOf(scan: GraphScan, pastNames: readonly string[]): PrefixEdits | { skipped: string } {
  const renamed = new Map<number, { inputs: string[]; outputs: string[] }>();
  const nodes: NodeSpec[] = [];
  const edit = (node: Node) => {
    let e = renamed.get(node.field.start);
    if (!e) {
      e = { inputs: [...node.inputs], outputs: [...node.outputs] };
      renamed.set(node.field.start, e);
    }
    return e;
  };
  const users = (name: string) => scan.consumers.get(name) ?? [];
  const isShape = (n: Node) => n.opType === 'Shape' && n.domain === '' && !n.ints.has('start') && !n.ints.has('end');
  const ns = '/reflect_eval_prefix/';
  nodes.push(
    { op: 'Constant', inputs: [], outputs: [`${ns}axis2`], attrs: { value_ints: [0, 0, 1, 0] } },
    { op: 'Constant', inputs: [], outputs: [`${ns}zero`], attrs: { value_ints: [0] } },
    { op: 'Constant', inputs: [], outputs: [`${ns}two`], attrs: { value_ints: [2] } },
    { op: 'Constant', inputs: [], outputs: [`${ns}three`], attrs: { value_ints: [3] } },
    { op: 'Constant', inputs: [], outputs: [`${ns}end`], attrs: { value_ints: [2 ** 62] } },
  );
  let shapes = 0;
  // A Shape of a cache value (an input, or the present it is concatenated into) reports P more positions on axis 2.
  const virtualShape = (node: Node, prefix: string) => {
    const out = node.outputs[0];
    const own = `${ns}shape${shapes++}`;
    edit(node).outputs[0] = `${own}/own`;
    nodes.push(
      { op: 'Shape', inputs: [prefix], outputs: [`${own}/prefix`] },
      { op: 'Mul', inputs: [`${own}/prefix`, `${ns}axis2`], outputs: [`${own}/prefixAxis2`] },
      { op: 'Add', inputs: [`${own}/own`, `${own}/prefixAxis2`], outputs: [out] },
    );
  };
  // `byHead` [H, B, s, X] regrouped as [1, kvHeads, rep·B·s, X] (kvHeads from the prefix's shape), and a product's
  // result [1, kvHeads, rep·B·s, Y] back to [H, B, s, Y].
  let groupConstants = false;
  const grouped = (layer: string, prefix: string, byHead: string, tag: string) => {
    // No -1 in the shape: with an empty prefix one of these tensors has no elements, and -1 is then undefined.
    const t = `${layer}${tag}`;
    if (!groupConstants) {
      groupConstants = true;
      nodes.push(
        { op: 'Constant', inputs: [], outputs: [`${ns}one`], attrs: { value_ints: [1] } },
        { op: 'Constant', inputs: [], outputs: [`${ns}four`], attrs: { value_ints: [4] } },
      );
    }
    nodes.push(
      { op: 'Shape', inputs: [prefix], outputs: [`${t}PrefixShape`] },
      { op: 'Slice', inputs: [`${t}PrefixShape`, `${ns}one`, `${ns}two`], outputs: [`${t}KvHeads`] },
      { op: 'Shape', inputs: [byHead], outputs: [`${t}ByHeadShape`] },
      { op: 'Slice', inputs: [`${t}ByHeadShape`, `${ns}zero`, `${ns}one`], outputs: [`${t}Heads`] },
      { op: 'Slice', inputs: [`${t}ByHeadShape`, `${ns}one`, `${ns}two`], outputs: [`${t}Rows`] },
      { op: 'Slice', inputs: [`${t}ByHeadShape`, `${ns}two`, `${ns}three`], outputs: [`${t}Positions`] },
      { op: 'Slice', inputs: [`${t}ByHeadShape`, `${ns}three`, `${ns}four`], outputs: [`${t}Width`] },
      { op: 'Mul', inputs: [`${t}Heads`, `${t}Rows`], outputs: [`${t}HeadRows`] },
      { op: 'Mul', inputs: [`${t}HeadRows`, `${t}Positions`], outputs: [`${t}HeadRowPositions`] },
      { op: 'Div', inputs: [`${t}HeadRowPositions`, `${t}KvHeads`], outputs: [`${t}GroupRows`] },
      // Rank 4, so that a width of 0 (an empty prefix's probabilities) sits where Reshape's 0 copies the input's own 0.
      { op: 'Concat', inputs: [`${ns}one`, `${t}KvHeads`, `${t}GroupRows`, `${t}Width`], outputs: [`${t}GroupShape`], attrs: { axis: 0 } },
      { op: 'Reshape', inputs: [byHead, `${t}GroupShape`], outputs: [`${t}Grouped`] },
      { op: 'Slice', inputs: [`${t}ByHeadShape`, `${ns}zero`, `${ns}three`], outputs: [`${t}Leading`] },
    );
    return { input: `${t}Grouped`, leading: `${t}Leading` };
  };
  // `last`: the axis of the prefix's shape that gives the product's last dimension (2: P for scores, 3: D for values).
  const ungroup = (layer: string, tag: string, product: string, leading: string, prefix: string, last: 2 | 3, out: string) => {
    nodes.push(
      { op: 'Shape', inputs: [prefix], outputs: [`${layer}${tag}LastShape`] },
      { op: 'Slice', inputs: [`${layer}${tag}LastShape`, last === 2 ? `${ns}two` : `${ns}three`, last === 2 ? `${ns}three` : `${ns}four`], outputs: [`${layer}${tag}Last`] },
      { op: 'Concat', inputs: [leading, `${layer}${tag}Last`], outputs: [`${layer}${tag}UngroupShape`], attrs: { axis: 0 } },
      { op: 'Reshape', inputs: [product, `${layer}${tag}UngroupShape`], outputs: [out] },
    );
  };
  for (const past of pastNames) {
    const prefix = prefixInputName(past);
    const present = past.replace('past_key_values.', 'present.');
    const concat = scan.producer.get(present);
    if (!concat) return { skipped: `no Concat makes ${present}` };
    for (const n of users(past)) {
      if (n === concat) continue;
      if (!isShape(n)) return { skipped: `${past} is read by ${n.opType}, not only by its Concat and Shape` };
      virtualShape(n, prefix);
    }
    const readers = users(present);
    const found = repeatKvChain(scan, readers.filter((n) => !isShape(n)));
    if ('skipped' in found) return found;
    const chainNodes = new Set(found.chain);
    for (const n of readers.filter(isShape)) if (!(found.chain.length && servesOnlyChains(scan, n, chainNodes))) virtualShape(n, prefix);
    const rest = found.head;
    const reads = found.chain.length ? found.chain[2].outputs[0] : present;
    const layer = `${ns}${past.slice('past_key_values.'.length)}/`;
    if (past.endsWith('.key')) {
      const t = rest.length === 1 ? rest[0] : undefined;
      if (!t || !isKeyTranspose(t)) return { skipped: `${reads} is not read by one Transpose(perm 0,1,3,2) alone` };
      const mm = users(t.outputs[0]);
      if (mm.length !== 1 || !isMatMulOperand(mm[0], t.outputs[0])) return { skipped: `the transposed ${reads} is not read by one MatMul alone` };
      const scores = mm[0].outputs[0];
      const query = mm[0].inputs[0];
      edit(mm[0]).outputs[0] = `${layer}ownScores`;
      nodes.push(
        { op: 'Transpose', inputs: [query], outputs: [`${layer}queryByHead`], attrs: { perm: [1, 0, 2, 3] } },
        { op: 'Transpose', inputs: [prefix], outputs: [`${layer}prefixKeyT`], attrs: { perm: [0, 1, 3, 2] } },
      );
      const g = grouped(layer, prefix, `${layer}queryByHead`, 'query');
      nodes.push({ op: 'MatMul', inputs: [g.input, `${layer}prefixKeyT`], outputs: [`${layer}prefixScoresGrouped`] });
      ungroup(layer, 'scores', `${layer}prefixScoresGrouped`, g.leading, prefix, 2, `${layer}prefixScoresByHead`);
      nodes.push(
        { op: 'Transpose', inputs: [`${layer}prefixScoresByHead`], outputs: [`${layer}prefixScores`], attrs: { perm: [1, 0, 2, 3] } },
        { op: 'Concat', inputs: [`${layer}prefixScores`, `${layer}ownScores`], outputs: [scores], attrs: { axis: 3 } },
      );
    } else {
      const mm = rest.length === 1 ? rest[0] : undefined;
      if (!mm || !isMatMulOperand(mm, reads)) return { skipped: `${reads} is not read by one MatMul alone` };
      const probs = mm.inputs[0];
      const out = mm.outputs[0];
      const e = edit(mm);
      e.inputs[0] = `${layer}ownProbs`;
      e.outputs[0] = `${layer}ownValues`;
      nodes.push(
        { op: 'Shape', inputs: [prefix], outputs: [`${layer}prefixShape`] },
        { op: 'Slice', inputs: [`${layer}prefixShape`, `${ns}two`, `${ns}three`], outputs: [`${layer}prefixLength`] },
        { op: 'Slice', inputs: [probs, `${ns}zero`, `${layer}prefixLength`, `${ns}three`], outputs: [`${layer}prefixProbs`] },
        { op: 'Slice', inputs: [probs, `${layer}prefixLength`, `${ns}end`, `${ns}three`], outputs: [`${layer}ownProbs`] },
        { op: 'Transpose', inputs: [`${layer}prefixProbs`], outputs: [`${layer}prefixProbsByHead`], attrs: { perm: [1, 0, 2, 3] } },
      );
      const g = grouped(layer, prefix, `${layer}prefixProbsByHead`, 'probs');
      nodes.push({ op: 'MatMul', inputs: [g.input, prefix], outputs: [`${layer}prefixValuesGrouped`] });
      ungroup(layer, 'values', `${layer}prefixValuesGrouped`, g.leading, prefix, 3, `${layer}prefixValuesByHead`);
      nodes.push(
        { op: 'Transpose', inputs: [`${layer}prefixValuesByHead`], outputs: [`${layer}prefixValues`], attrs: { perm: [1, 0, 2, 3] } },
        { op: 'Add', inputs: [`${layer}prefixValues`, `${layer}ownValues`], outputs: [out] },
      );
    }
  }
  const added = [...pastNames.map((p) => graphInputField(prefixInputName(p), ELEM.float, 4)), ...nodes.map((n, i) => graphNodeField(n, `${ns}n${i}`))];
  return { renamed, added };
}

/** The graph input that says how many of the last positions get logits (see {@link lastLogitsOf}). */
export const LOGITS_TO_KEEP = 'logits_to_keep';

/**
 * The edit that computes `logits` for the last k positions only, k fed as `logits_to_keep` (`[1]`, int64), as Hugging
 * Face's `logits_to_keep` does: the LM head's input `[B, S, D]` is sliced to its last k positions, so a prompt pass
 * of S tokens multiplies one position by the vocabulary instead of S (at Qwen3-0.6B's shape, 151,936 × 1,024 per
 * position: a quarter of a prefill's arithmetic), and returns `[B, k, V]`. Fed S, the graph computes what it did.
 *
 * Applies when `logits` is made by a default-domain `MatMul` whose first input is the hidden states, or by the LM
 * head of a dynamically quantized model ({@link quantizedHeadOf}). Either way the kept rows are bit for bit those of
 * the whole product: a row of a product depends on its own row of the input alone.
 */
function lastLogitsOf(scan: GraphScan): PrefixEdits | { skipped: string } {
  const head = scan.producer.get('logits');
  const plain = head && head.opType === 'MatMul' && head.domain === '' && head.inputs.length === 2 ? head : undefined;
  const quantized = plain || !head ? undefined : quantizedHeadOf(scan, head);
  const product = plain ?? (quantized && !('skipped' in quantized) ? quantized.product : undefined);
  if (!product) {
    const why = quantized && 'skipped' in quantized ? `; as a quantized head: ${quantized.skipped}` : '';
    return { skipped: `logits is made by ${head ? head.opType : 'no node'}, not the LM head's MatMul${why}` };
  }
  const ns = '/reflect_eval_logits/';
  const nodes: NodeSpec[] = [
    { op: 'Constant', inputs: [], outputs: [`${ns}end`], attrs: { value_ints: [2 ** 62] } },
    { op: 'Constant', inputs: [], outputs: [`${ns}axis`], attrs: { value_ints: [1] } },
    { op: 'Neg', inputs: [LOGITS_TO_KEEP], outputs: [`${ns}start`] },
    { op: 'Slice', inputs: [product.inputs[0], `${ns}start`, `${ns}end`, `${ns}axis`], outputs: [`${ns}kept`] },
  ];
  const renamed = new Map([[product.field.start, { inputs: [`${ns}kept`, ...product.inputs.slice(1)], outputs: [...product.outputs] }]]);
  return { renamed, added: [graphInputField(LOGITS_TO_KEEP, ELEM.int64, 1), ...nodes.map((n, i) => graphNodeField(n, `${ns}n${i}`))] };
}

/**
 * The integer product of a dynamically quantized LM head, as onnxruntime's `quantize_dynamic` writes a MatMul by a
 * weight (the hub's `model_quantized.onnx`, transformers.js dtype `q8`): `logits = Mul(Cast(MatMulInteger(x_q, W,
 * x_zero_point, w_zero_point)), s)` where `x_q` is the first output of a `DynamicQuantizeLinear(x)` and `s` is that
 * node's scale (a scalar) or its product with a declared tensor (the weight's scale). Slicing `x_q` keeps the scale
 * and zero point computed over every position, so the kept rows are exactly those of the whole head (slicing `x`
 * before the quantizer would not be: its scale would be the kept positions' own). The `Cast` and the integer
 * product must be read by the next node alone (and not be graph outputs).
 *
 * @returns the `MatMulInteger` node, or why `head` is not this pattern
 */
function quantizedHeadOf(scan: GraphScan, head: Node): { product: Node } | { skipped: string } {
  if (head.opType !== 'Mul' || head.domain !== '' || head.inputs.length !== 2) return { skipped: `not a Mul` };
  // Read by `reader` alone: no other node, and not a graph output (either would see the sliced rows).
  const only = (value: string, reader: Node) => !scan.outputs.has(value) && (scan.consumers.get(value) ?? []).every((n) => n === reader);
  for (const [k, scaleName] of [[0, 1], [1, 0]] as const) {
    const cast = scan.producer.get(head.inputs[k]);
    if (!cast || cast.opType !== 'Cast' || cast.domain !== '' || !only(cast.outputs[0], head)) continue;
    const product = scan.producer.get(cast.inputs[0]);
    if (!product || product.opType !== 'MatMulInteger' || product.domain !== '' || !only(product.outputs[0], cast)) continue;
    const quantizer = scan.producer.get(product.inputs[0]);
    if (!quantizer || quantizer.opType !== 'DynamicQuantizeLinear' || quantizer.domain !== '' || quantizer.outputs[0] !== product.inputs[0]) {
      return { skipped: `the integer product's input is not a DynamicQuantizeLinear's` };
    }
    if (product.inputs[2] !== undefined && product.inputs[2] !== '' && product.inputs[2] !== quantizer.outputs[2]) return { skipped: `the integer product's zero point is not its quantizer's` };
    const scale = head.inputs[scaleName];
    const scaleNode = scan.producer.get(scale);
    const constant = (v: string) => scan.declared.has(v) || scan.producer.get(v)?.opType === 'Constant';
    const scalar = scale === quantizer.outputs[1]
      || (scaleNode?.opType === 'Mul' && scaleNode.domain === '' && scaleNode.inputs.length === 2 && scaleNode.inputs.includes(quantizer.outputs[1]) && scaleNode.inputs.every((v) => v === quantizer.outputs[1] || constant(v)));
    if (!scalar) return { skipped: `the head's scale is not its quantizer's scale times a constant` };
    return { product };
  }
  return { skipped: `not Mul(Cast(MatMulInteger(…)), scale)` };
}

/** A `GraphProto.node` field with its inputs and outputs renamed (every other field copied as it is). */
function renamedNode(src: ByteSource, f: Field, names: { inputs: string[]; outputs: string[] }): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let i = 0;
  let o = 0;
  const encoder = new TextEncoder();
  for (const g of fields(src, f.valueStart, f.end)) {
    const name = g.field === 1 && g.wire === 2 ? names.inputs[i++] : g.field === 2 && g.wire === 2 ? names.outputs[o++] : undefined;
    if (name === undefined) parts.push(src.slice(g.start, g.end));
    else {
      const b = encoder.encode(name);
      parts.push(lengthDelimitedHeader(g.field, b.length), b);
    }
  }
  return [lengthDelimitedHeader(1, total(parts)), ...parts];
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
  const src = bufferSource(model);
  const graphField = [...fields(src, 0, model.length)].find((f) => f.field === 7 && f.wire === 2);
  if (!graphField) return { skipped: 'the model has no graph' };
  const scan = scanGraph(src, graphField);
  if (scan.external.length) return { skipped: 'its weights are in external data files' };
  const found = cacheAppendsOf(scan, pastNames);
  if ('skipped' in found) return found;
  const { appended, added } = found;
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

/** A model's structure (with the cache appends exposed when asked), its weights left in the model's file. */
export interface SlimModel {
  /**
   * A `ModelProto`: the model's fields in order, its graph with the outputs {@link exposeCacheAppends} adds, and every
   * initializer of at least `minBytes` of `raw_data` pointing at those bytes in the original file (`external_data`:
   * `location` = the `weights` argument, `offset`, `length`) instead of holding them.
   */
  bytes: Uint8Array;
  /** As in {@link CacheAppendOutputs} (empty when no cache inputs were given). */
  appended: Map<string, string>;
  /** The `location` of every initializer that was already in an external data file, as the graph names it. */
  external: string[];
  /**
   * With `sharedPrefix` asked for: whether the graph was given the `prefix_key_values.*` inputs (see
   * {@link sharedPrefixOf}), or why not (it is then staged without them).
   */
  sharedPrefix?: true | { skipped: string };
  /** With `logitsToKeep` asked for: whether the graph takes `logits_to_keep` ({@link lastLogitsOf}), or why not. */
  logitsToKeep?: true | { skipped: string };
}

/**
 * The structure of the model in `src`, with the cache appends of `pastNames` exposed (as {@link exposeCacheAppends};
 * none when empty), and its weights left where they are: each large initializer becomes an external-data reference
 * to its own `raw_data` bytes in the model's file. onnxruntime then opens a small file and reads the weights from
 * the original (see {@link stageModel}). Reads only the model's structure: each initializer's header, not its data.
 *
 * @param src - the bytes of an `.onnx` file (a `ModelProto`), e.g. {@link fileSource}
 * @param weights - the `location` to write: the name under which the original file will sit beside the new one
 * @param pastNames - the graph's cache inputs whose new positions to expose (`past_key_values.{i}.key|value`), or none
 * @param minBytes - initializers with less raw data stay inline (ONNX's own `size_threshold` is 1024)
 * @returns the new model, or `{ skipped }` saying why the pattern does not apply
 * @throws RangeError when the bytes are not a well-formed protobuf message
 */
export function slimModel(src: ByteSource, weights: string, pastNames: readonly string[] = [], minBytes = 1024, options: { sharedPrefix?: boolean; logitsToKeep?: boolean } = {}): SlimModel | { skipped: string } {
  const top = [...fields(src, 0, src.length)];
  const graphField = top.find((f) => f.field === 7 && f.wire === 2);
  if (!graphField) return { skipped: 'the model has no graph' };
  const scan = scanGraph(src, graphField);
  const found = cacheAppendsOf(scan, pastNames);
  if ('skipped' in found) return found;
  let opset: bigint | undefined;
  for (const f of top) {
    if (f.field !== 8 || f.wire !== 2) continue;
    let domain = '';
    let version: bigint | undefined;
    for (const g of fields(src, f.valueStart, f.end)) {
      if (g.field === 1 && g.wire === 2) domain = str(src, g);
      else if (g.field === 2 && g.wire === 0) version = g.varint;
    }
    if (domain === '' || domain === 'ai.onnx') opset = version;
  }
  const prefix = !options.sharedPrefix || !pastNames.length
    ? undefined
    : opset === undefined || opset < 12n
      ? { skipped: `the model's default opset is ${opset ?? 'not declared'} (the edit's Constant value_ints needs 12 or later)` }
      : sharedPrefixOf(scan, pastNames);
  const keep = options.logitsToKeep && pastNames.length ? lastLogitsOf(scan) : undefined;
  const edits: PrefixEdits | undefined = prefix && !('skipped' in prefix) ? { renamed: new Map(prefix.renamed), added: [...prefix.added] } : keep && !('skipped' in keep) ? { renamed: new Map(), added: [] } : undefined;
  if (edits && keep && !('skipped' in keep)) {
    for (const [k, v] of keep.renamed) edits.renamed.set(k, v);
    edits.added.push(...keep.added);
  }
  const body: Uint8Array[] = [];
  for (const f of fields(src, graphField.valueStart, graphField.end)) {
    const names = f.field === 1 && f.wire === 2 ? edits?.renamed.get(f.start) : undefined;
    if (names) {
      body.push(...renamedNode(src, f, names));
      continue;
    }
    // An initializer's fields, read once (from a file, each pass over them reads its header again).
    const tensorFields = f.field === 5 && f.wire === 2 ? [...fields(src, f.valueStart, f.end)] : [];
    const raw = externalLocation(src, tensorFields) === undefined ? tensorFields.find((g) => g.field === 9 && g.wire === 2) : undefined;
    if (!raw || raw.end - raw.valueStart < minBytes) {
      body.push(src.slice(f.start, f.end));
      continue;
    }
    const tensor: Uint8Array[] = [];
    for (const g of tensorFields) if (g !== raw) tensor.push(src.slice(g.start, g.end));
    tensor.push(externalDataFields(weights, raw.valueStart, raw.end - raw.valueStart));
    body.push(lengthDelimitedHeader(5, total(tensor)), ...tensor);
  }
  body.push(...found.added, ...(edits?.added ?? []));
  const parts: Uint8Array[] = [];
  for (const f of top) {
    if (f === graphField) parts.push(lengthDelimitedHeader(7, total(body)), ...body);
    else parts.push(src.slice(f.start, f.end));
  }
  const bytes = new Uint8Array(total(parts));
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  const sharedPrefix = prefix === undefined ? undefined : 'skipped' in prefix ? { skipped: prefix.skipped } : (true as const);
  const logitsToKeep = keep === undefined ? undefined : 'skipped' in keep ? { skipped: keep.skipped } : (true as const);
  return { bytes, appended: found.appended, external: [...new Set(scan.external)], ...(sharedPrefix ? { sharedPrefix } : {}), ...(logitsToKeep ? { logitsToKeep } : {}) };
}

const total = (parts: readonly Uint8Array[]) => parts.reduce((n, p) => n + p.length, 0);

/** A model file, its structure staged by {@link stageModel}, ready for onnxruntime to open by path. */
export interface StagedModel {
  /** The new model file (in a folder of its own, beside links to the original's data). */
  path: string;
  appended: Map<string, string>;
  /** As in {@link SlimModel}. */
  sharedPrefix?: true | { skipped: string };
  /** As in {@link SlimModel}. */
  logitsToKeep?: true | { skipped: string };
  /**
   * Removes the folder, as far as the platform lets it (once onnxruntime has read the weights: after the session is
   * created).
   */
  dispose(): Promise<void>;
}

/**
 * Writes {@link slimModel} of `file` (with the cache appends of `pastNames` exposed, if any) into a new folder, with
 * a hard link to `file` (its weights) and one to each external data file it names, so onnxruntime reads the weights
 * from the original files. Hard links, not
 * symbolic ones: onnxruntime 1.30 resolves an external data file's real path and refuses one outside the model's
 * folder. The folder is made in the first of `parents` where the links can be made (a hard link needs the same
 * file system): by default the system's temporary folder, then the model file's own folder. Staged folders there
 * older than an hour, which a platform refused to remove, are removed first.
 *
 * Why, beyond the cache appends: onnxruntime reads a model's weights from external data faster, and into less
 * memory, than it parses them from the model file itself: at gpt2-medium's size, `OnnxCausalLM.load` in a new
 * process took 13.1–13.6 s staged against 25.5–33.2 s from the file (RSS 2.0 against 3.1–3.2 GB; `npm run bench --
 * load`, docs/scale.md "Loading").
 *
 * @returns the staged model, or `{ skipped }` when the pattern does not apply or an external data location is not
 *   another file inside the model's folder
 * @throws when no parent allows the folder and its links (the caller then patches the model in memory: see
 *   {@link exposeCacheAppends}), or the file is not a well-formed protobuf message (RangeError)
 */
export async function stageModel(file: string, pastNames: readonly string[] = [], parents?: readonly string[], options: { sharedPrefix?: boolean; logitsToKeep?: boolean } = {}): Promise<StagedModel | { skipped: string }> {
  const real = await realpath(file);
  const name = basename(real);
  const fd = openSync(real, 'r');
  let slim: SlimModel | { skipped: string };
  try {
    slim = slimModel(fileSource(fd), name, pastNames, 1024, options);
  } finally {
    closeSync(fd);
  }
  if ('skipped' in slim) return slim;
  const outside = slim.external.find((l) => !l || isAbsolute(l) || normalize(l).split(/[\\/]/).includes('..') || normalize(l) === name);
  if (outside !== undefined) return { skipped: `an initializer's external data location "${outside}" is not another file inside the model's folder` };
  const links = [{ from: real, to: name }];
  for (const location of slim.external) links.push({ from: await realpath(resolve(dirname(file), location)), to: location });
  let failure: unknown;
  for (const parent of parents ?? [tmpdir(), dirname(real)]) {
    let dir: string | undefined;
    try {
      await sweepStaged(parent);
      dir = await mkdtemp(join(parent, STAGED_PREFIX));
      for (const { from, to } of links) {
        await mkdir(dirname(join(dir, to)), { recursive: true });
        await link(from, join(dir, to));
      }
      const path = join(dir, `reflect-eval-graph-${name}`);
      await writeFile(path, slim.bytes);
      const made = dir;
      return { path, appended: slim.appended, ...(slim.sharedPrefix ? { sharedPrefix: slim.sharedPrefix } : {}), ...(slim.logitsToKeep ? { logitsToKeep: slim.logitsToKeep } : {}), dispose: () => rm(made, { recursive: true, force: true }).catch(() => undefined) };
    } catch (e) {
      failure = e;
      if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }
  throw failure ?? new Error('no folder was given to stage the model in');
}

const STAGED_PREFIX = '.reflect-eval-graph-';

/**
 * Removes staged folders in `parent` older than `maxAgeMs` (best effort). A folder outlives its load only where the
 * platform would not remove it (Windows keeps a file that onnxruntime has mapped into memory), and its hard link
 * would keep a model's bytes on disk after the model itself is deleted.
 */
async function sweepStaged(parent: string, maxAgeMs = 3_600_000): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(parent)).filter((n) => n.startsWith(STAGED_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const dir = join(parent, name);
    try {
      if (Date.now() - (await stat(dir)).mtimeMs > maxAgeMs) await rm(dir, { recursive: true, force: true });
    } catch {
      // In use, or gone meanwhile.
    }
  }
}

/** The edited graph of {@link openCacheAppends}, as onnxruntime is to be given it. */
export interface CacheAppendSource {
  /** The path of a staged file ({@link stageModel}), or the whole model edited in memory ({@link exposeCacheAppends}). */
  source: string | Uint8Array;
  appended: Map<string, string>;
  /** As in {@link SlimModel}, when asked for (a graph edited in memory never has the prefix inputs). */
  sharedPrefix?: true | { skipped: string };
  /** As in {@link SlimModel}, when asked for (a graph edited in memory never has it). */
  logitsToKeep?: true | { skipped: string };
  /** Call once the session exists (removes a staged folder). */
  dispose(): Promise<void>;
}

/**
 * `file` with the cache appends exposed, for onnxruntime: staged beside hard links to its weights when a folder
 * allows the links (fast to load: onnxruntime reads the weights from the file), else read and edited in memory.
 *
 * @param parents - where the staged folder may go (default: the system's temporary folder, then the model's own;
 *   none: edited in memory)
 * @returns the source, or `{ skipped }` saying why the pattern does not apply
 * @throws RangeError when the file is not a well-formed protobuf message
 */
export async function openCacheAppends(file: string, pastNames: readonly string[], parents?: readonly string[], options: { sharedPrefix?: boolean; logitsToKeep?: boolean } = {}): Promise<CacheAppendSource | { skipped: string }> {
  const inMemory = async (): Promise<CacheAppendSource | { skipped: string }> => {
    const patched = exposeCacheAppends(await readModelWithRoom(file), pastNames, { inPlace: true });
    const sharedPrefix = options.sharedPrefix ? { sharedPrefix: { skipped: 'the graph was edited in memory, not staged' } } : {};
    return 'skipped' in patched ? patched : { source: patched.bytes, appended: patched.appended, ...sharedPrefix, dispose: async () => undefined };
  };
  if (parents?.length === 0) return inMemory();
  let staged: StagedModel | { skipped: string };
  try {
    staged = await stageModel(file, pastNames, parents, options);
  } catch (e) {
    if (e instanceof RangeError) throw e;
    return inMemory();
  }
  return 'skipped' in staged ? staged : { source: staged.path, appended: staged.appended, ...(staged.sharedPrefix ? { sharedPrefix: staged.sharedPrefix } : {}), ...(staged.logitsToKeep ? { logitsToKeep: staged.logitsToKeep } : {}), dispose: staged.dispose };
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
