/** Float32 vectors as stored (little-endian bytes, both databases) and compared in the application. */

export function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function readVector(bytes: Uint8Array): Float32Array {
  // A copy: driver buffers need not be 4-byte aligned.
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(bytes.byteLength / 4));
}

export function norm(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) * (vector[i] as number);
  return Math.sqrt(sum);
}

/** Cosine similarity; NaN when either vector is zero or the sizes differ (no similarity: callers leave it out). */
export function cosine(a: Float32Array, b: Float32Array, normA = norm(a)): number {
  if (a.length !== b.length) return Number.NaN;
  let dot = 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const y = b[i] as number;
    dot += (a[i] as number) * y;
    sum += y * y;
  }
  const denominator = normA * Math.sqrt(sum);
  return denominator === 0 ? Number.NaN : dot / denominator;
}
