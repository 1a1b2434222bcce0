import { describe, expect, it } from 'vitest';
import { ApiClient } from './api.js';
import { createMemoriesInBatches, refusedItems } from './memory-batches.js';

type Memory = { text: string };

/** A stand-in server: refuses items whose text is "bad" as the real one does, and records each request. */
function fakeServer(options: { batchRoute?: boolean } = {}) {
  const requests: Array<{ path: string; count: number }> = [];
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const fetchImpl = (async (url: string, init: RequestInit) => {
    const path = new URL(url).pathname.replace('/api/v1', '');
    const body = JSON.parse(String(init.body));
    if (path === '/memories/batch') {
      if (options.batchRoute === false) return json(405, { error: 'method_not_allowed', message: 'no' });
      const memories = body.memories as Memory[];
      requests.push({ path, count: memories.length });
      const details: Record<string, string> = {};
      for (const [i, m] of memories.entries()) if (m.text === 'bad') details[`memories.${i}.text`] = 'Text is bad';
      if (Object.keys(details).length > 0) return json(400, { error: 'validation_error', message: 'x', details });
      return json(201, { memories, message: 'ok' });
    }
    requests.push({ path, count: 1 });
    if ((body as Memory).text === 'bad')
      return json(400, { error: 'validation_error', message: 'x', details: { text: 'Text is bad' } });
    return json(201, body);
  }) as typeof fetch;
  const client = new ApiClient({ url: 'http://cairn.test', apiKey: 'svk_x', keySource: 'environment' }, fetchImpl);
  return { client, requests };
}

const memories = (n: number, bad: number[] = []) =>
  Array.from({ length: n }, (_, i) => ({ text: bad.includes(i) ? 'bad' : `m${i}` }));

describe('createMemoriesInBatches', () => {
  it('sends at most 100 memories per request', async () => {
    const { client, requests } = fakeServer();
    const outcomes = await createMemoriesInBatches(client, memories(250));
    expect(requests.map((r) => r.count)).toEqual([100, 100, 50]);
    expect(outcomes).toHaveLength(250);
    expect(outcomes.every((o) => o.created)).toBe(true);
  });

  it('splits by bytes too', async () => {
    const { client, requests } = fakeServer();
    const big = Array.from({ length: 5 }, () => ({ text: 'x'.repeat(400_000) }));
    await createMemoriesInBatches(client, big);
    expect(requests.map((r) => r.count)).toEqual([2, 2, 1]);
  });

  it('reports refused items as failed, at their own place, and sends the rest of their batch again', async () => {
    const { client, requests } = fakeServer();
    const outcomes = await createMemoriesInBatches(client, memories(150, [3, 120, 149]));
    expect(requests.map((r) => r.count)).toEqual([100, 99, 50, 48]);
    for (const [i, outcome] of outcomes.entries()) {
      expect(outcome, String(i)).toEqual(
        [3, 120, 149].includes(i) ? { created: false, reason: 'invalid input: text: Text is bad' } : { created: true },
      );
    }
  });

  it('falls back to one POST per memory on a server without the batch route', async () => {
    const { client, requests } = fakeServer({ batchRoute: false });
    const outcomes = await createMemoriesInBatches(client, memories(3, [1]));
    expect(requests).toEqual([
      { path: '/memories', count: 1 },
      { path: '/memories', count: 1 },
      { path: '/memories', count: 1 },
    ]);
    expect(outcomes.map((o) => o.created)).toEqual([true, false, true]);
  });
});

describe('refusedItems', () => {
  it('groups the details of a refused batch by item', () => {
    const refused = refusedItems({
      'memories.2.text': 'Text is required',
      'memories.2.metadata.priority': 'Priority must be high, medium or low',
      'memories.10': 'Expected object',
      memories: 'At most 100 memories per batch',
    });
    expect([...refused]).toEqual([
      [2, 'invalid input: text: Text is required; metadata.priority: Priority must be high, medium or low'],
      [10, 'invalid input: memory: Expected object'],
    ]);
  });
});
