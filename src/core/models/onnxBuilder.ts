/**
 * A minimal writer of ONNX `ModelProto` bytes (protobuf wire format, onnx.proto3 field numbers), for the small
 * helper graphs ReflectEval runs next to a model — e.g. beam search's log-softmax + top-k over the whole batch
 * in C++ instead of JavaScript. Only what those graphs use: nodes with int / ints attributes, typed inputs and
 * outputs of unknown shape.
 */

import type * as ort from 'onnxruntime-common';
import { ortRuntime, type OrtModule } from './ortRuntime';

const enc = new TextEncoder();

/** Protobuf field writer. */
class Writer {
  private parts: number[] = [];

  varint(v: number | bigint): this {
    let x = BigInt.asUintN(64, BigInt(v));
    while (x >= 0x80n) {
      this.parts.push(Number((x & 0x7fn) | 0x80n));
      x >>= 7n;
    }
    this.parts.push(Number(x));
    return this;
  }

  tag(field: number, wire: 0 | 2): this {
    return this.varint((field << 3) | wire);
  }

  int(field: number, v: number): this {
    return this.tag(field, 0).varint(v);
  }

  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2).varint(b.length);
    for (const x of b) this.parts.push(x);
    return this;
  }

  str(field: number, s: string): this {
    return this.bytes(field, enc.encode(s));
  }

  msg(field: number, w: Writer): this {
    return this.bytes(field, w.done());
  }

  done(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

/** ONNX tensor element types used here. */
export const ELEM = { float: 1, int64: 7 } as const;

/** A graph node. */
export interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  /** Integer attributes (`int`) or integer-list attributes (`ints`). */
  attrs?: Record<string, number | number[]>;
}

function valueInfo(name: string, elem: number, rank: number): Writer {
  const shape = new Writer();
  for (let d = 0; d < rank; d++) shape.msg(1, new Writer().str(2, `d${d}`)); // Dimension.dim_param
  const tensor = new Writer().int(1, elem).msg(2, shape); // TypeProto.Tensor
  return new Writer().str(1, name).msg(2, new Writer().msg(1, tensor)); // ValueInfoProto
}

function nodeProto(n: NodeSpec, name: string): Writer {
  const node = new Writer();
  for (const x of n.inputs) node.str(1, x);
  for (const y of n.outputs) node.str(2, y);
  node.str(3, name).str(4, n.op);
  for (const [attr, v] of Object.entries(n.attrs ?? {})) {
    const a = new Writer().str(1, attr);
    if (Array.isArray(v)) {
      for (const x of v) a.int(8, x); // AttributeProto.ints
      a.int(20, 7); // type INTS
    } else {
      a.int(3, v).int(20, 2); // AttributeProto.i, type INT
    }
    node.msg(5, a);
  }
  return node;
}

/** The bytes of a `GraphProto.node` field (1) holding node `n` (default domain), named `name`. */
export function graphNodeField(n: NodeSpec, name: string): Uint8Array {
  return new Writer().msg(1, nodeProto(n, name)).done();
}

/** The bytes of a `GraphProto.input` field (11) declaring `name` of element type `elem` and rank `rank`. */
export function graphInputField(name: string, elem: number, rank: number): Uint8Array {
  return new Writer().msg(11, valueInfo(name, elem, rank)).done();
}

/** The bytes of a `GraphProto.output` field (12) declaring `name` of element type `elem` and rank `rank`. */
export function graphOutputField(name: string, elem: number, rank: number): Uint8Array {
  return new Writer().msg(12, valueInfo(name, elem, rank)).done();
}

/** The bytes of a length-delimited field's key and length (`field`, wire type 2, `length` ≥ 0). */
export function lengthDelimitedHeader(field: number, length: number): Uint8Array {
  return new Writer().tag(field, 2).varint(length).done();
}

/**
 * The fields of a `TensorProto` whose data is in an external file: `external_data` (13) entries `location`, `offset`
 * and `length` (bytes, as decimal strings, as onnx/external_data_helper.py writes them), and `data_location` (14) =
 * EXTERNAL.
 */
export function externalDataFields(location: string, offset: number, length: number): Uint8Array {
  const entry = (key: string, value: string) => new Writer().str(1, key).str(2, value);
  return new Writer().msg(13, entry('location', location)).msg(13, entry('offset', String(offset))).msg(13, entry('length', String(length))).int(14, 1).done();
}

/**
 * Bytes of an ONNX model (IR version 8, default-domain opset `opset`) with one graph.
 *
 * @param inputs / outputs - name, element type and rank (dimensions symbolic)
 */
export function buildOnnxModel(
  nodes: NodeSpec[],
  inputs: { name: string; elem: number; rank: number }[],
  outputs: { name: string; elem: number; rank: number }[],
  opset = 13,
): Uint8Array {
  const graph = new Writer();
  nodes.forEach((n, i) => graph.msg(1, nodeProto(n, `n${i}`)));
  graph.str(2, 'reflect_eval_helper');
  for (const v of inputs) graph.msg(11, valueInfo(v.name, v.elem, v.rank));
  for (const v of outputs) graph.msg(12, valueInfo(v.name, v.elem, v.rank));
  return new Writer()
    .int(1, 8) // ir_version
    .str(2, 'reflect-eval')
    .msg(7, graph)
    .msg(8, new Writer().str(1, '').int(2, opset)) // opset_import
    .done();
}

/**
 * A session of a helper graph built by {@link buildOnnxModel} (beam search's step, sampling's softmax): every graph
 * optimisation, one intra-op thread (they run between a model's passes, on a batch's logits).
 */
export async function openHelperSession(model: Uint8Array): Promise<{ rt: OrtModule; session: ort.InferenceSession }> {
  const rt = await ortRuntime();
  return { rt, session: await rt.InferenceSession.create(model, { graphOptimizationLevel: 'all', intraOpNumThreads: 1 }) };
}
