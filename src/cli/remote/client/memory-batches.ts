import { MEMORY_BATCH_MAX } from '../../../domain/memories/memory-schemas.js';
import type { ApiClient } from './api.js';

/**
 * Bytes of JSON per batch request: the server takes 8 times its single-request limit in a batch (8 MiB by
 * default), so 1 MiB stays under it even where an operator lowered the limit to 128 KiB.
 */
const BATCH_BYTES = 1024 * 1024;

/** What became of one memory to create: created, or refused with the server's reasons for it. */
export type BatchOutcome = { created: true } | { created: false; reason: string };

/**
 * Creates memories through `POST /memories/batch`, up to MEMORY_BATCH_MAX (and BATCH_BYTES) per request.
 * A batch is all or none, so when the server refuses some items (400, `details` keyed `memories.N.…`) those
 * are reported as failed and the rest of that batch is sent again. A server without the batch route
 * (404/405, an older version) gets one POST per memory. Other failures stop the run (they throw).
 */
export async function createMemoriesInBatches(
  client: ApiClient,
  memories: readonly unknown[],
): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  for (const chunk of chunks(memories)) outcomes.push(...(await createChunk(client, chunk)));
  return outcomes;
}

function* chunks(memories: readonly unknown[]): Generator<unknown[]> {
  let chunk: unknown[] = [];
  let bytes = 0;
  for (const memory of memories) {
    const size = Buffer.byteLength(JSON.stringify(memory));
    if (chunk.length > 0 && (chunk.length === MEMORY_BATCH_MAX || bytes + size > BATCH_BYTES)) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(memory);
    bytes += size + 1;
  }
  if (chunk.length > 0) yield chunk;
}

async function createChunk(client: ApiClient, chunk: unknown[]): Promise<BatchOutcome[]> {
  const outcomes: Array<BatchOutcome | undefined> = chunk.map(() => undefined);
  let pending = chunk.map((_, index) => index);
  while (pending.length > 0) {
    const response = await client.send('POST', '/memories/batch', {
      json: { memories: pending.map((index) => chunk[index]) },
      allow: [400, 404, 405],
    });
    if (response.status === 404 || response.status === 405) {
      await response.body?.cancel();
      return oneByOne(client, chunk);
    }
    if (response.ok) {
      await response.body?.cancel();
      for (const index of pending) outcomes[index] = { created: true };
      break;
    }
    const refusal = (await response.json()) as Refusal;
    const refused = refusedItems(refusal.details ?? {});
    // A 400 that names no item (the batch itself was refused): every item fails with that reason.
    if (refused.size === 0) {
      for (const index of pending) outcomes[index] = { created: false, reason: describe(refusal) };
      break;
    }
    for (const [position, reason] of refused) {
      const index = pending[position];
      if (index !== undefined) outcomes[index] = { created: false, reason };
    }
    pending = pending.filter((_, position) => !refused.has(position));
  }
  return outcomes.map((outcome) => outcome ?? { created: false, reason: 'not sent' });
}

interface Refusal {
  message?: string;
  details?: Record<string, string>;
}

const describe = ({ message, details = {} }: Refusal) => {
  const fields = Object.entries(details).map(([field, problem]) => `${field}: ${problem}`);
  return `invalid input: ${fields.length > 0 ? fields.join('; ') : (message ?? 'refused')}`;
};

/** `details` of a refused batch → reasons by item position (`memories.3.text` → 3: "text: …"). */
export function refusedItems(details: Record<string, string>): Map<number, string> {
  const reasons = new Map<number, string[]>();
  for (const [path, problem] of Object.entries(details)) {
    const match = /^memories\.(\d+)(?:\.(.+))?$/.exec(path);
    if (!match) continue;
    const position = Number(match[1]);
    reasons.set(position, [...(reasons.get(position) ?? []), `${match[2] ?? 'memory'}: ${problem}`]);
  }
  return new Map([...reasons].map(([position, list]) => [position, `invalid input: ${list.join('; ')}`]));
}

async function oneByOne(client: ApiClient, chunk: unknown[]): Promise<BatchOutcome[]> {
  const outcomes: BatchOutcome[] = [];
  for (const memory of chunk) {
    const response = await client.send('POST', '/memories', { json: memory, allow: [400] });
    if (response.ok) {
      await response.body?.cancel();
      outcomes.push({ created: true });
    } else outcomes.push({ created: false, reason: describe((await response.json()) as Refusal) });
  }
  return outcomes;
}
