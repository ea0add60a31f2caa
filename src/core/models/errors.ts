/**
 * The error every model loader throws for a model it cannot use: a folder that lacks a file, ONNX graphs that do
 * not match, a hub model that cannot be fetched. The message names the folder or hub id, the file, and what to do.
 */

/** A model folder lacks a file, its ONNX graphs do not match, or a hub download failed. Names the folder or id and what is missing. */
export class ModelSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelSourceError';
  }
}
