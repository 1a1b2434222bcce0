import { isDeeplyFrozen } from '../domain/common/json.js';

/** A JSON text and its length in bytes (the `content-length`). */
export interface JsonText {
  text: string;
  bytes: number;
}

/**
 * JSON of an answer. Services build their responses field by field, so plain serialisation is safe and
 * fastest; a deeply frozen answer (a cached read, shared by every request that reads it) can never change,
 * so its text is made once and kept with it.
 */
export function createJsonWriter() {
  const frozenTexts = new WeakMap<object, JsonText>();
  const frozen = (data: object): JsonText => {
    let known = frozenTexts.get(data);
    if (known === undefined) {
      const text = JSON.stringify(data);
      known = { text, bytes: Buffer.byteLength(text) };
      frozenTexts.set(data, known);
    }
    return known;
  };
  return {
    /** The serializer of every route (app.ts). */
    stringify(data: unknown): string {
      if (typeof data !== 'object' || data === null || !isDeeplyFrozen(data)) return JSON.stringify(data);
      return frozen(data).text;
    },
    /** The text of a deeply frozen answer, with its byte length (hot-reads.ts). */
    frozen,
  };
}

export type JsonWriter = ReturnType<typeof createJsonWriter>;
