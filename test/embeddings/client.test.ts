import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmbeddingsClient, EmbeddingsError, endpointOf } from '../../src/embeddings/client.js';
import { embedText, TestEmbedder } from '../helpers/embedder.js';

/** The embeddings client against a real HTTP server speaking the OpenAI protocol (test/helpers/embedder.ts). */
describe('embeddings client', () => {
  let server: TestEmbedder;
  beforeAll(async () => {
    server = await TestEmbedder.start();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    server.down = false;
    server.failNext = 0;
    server.delayMs = 0;
    server.batches = [];
    server.maxInFlight = 0;
  });

  const client = (extra: Partial<Parameters<typeof createEmbeddingsClient>[0]> = {}) =>
    createEmbeddingsClient({
      url: server.url,
      model: 'hash-8',
      apiKey: undefined,
      batchSize: 3,
      timeoutMs: 5000,
      retries: 2,
      concurrency: 2,
      ...extra,
    });

  it('accepts the base URL or the endpoint', () => {
    expect(endpointOf('http://h:1/v1')).toBe('http://h:1/v1/embeddings');
    expect(endpointOf('http://h:1/v1/')).toBe('http://h:1/v1/embeddings');
    expect(endpointOf('http://h:1/v1/embeddings')).toBe('http://h:1/v1/embeddings');
  });

  it('batches texts, keeps their order, caps requests in flight and sends the key', async () => {
    server.delayMs = 30;
    const texts = Array.from({ length: 10 }, (_, i) => `text number ${i}`);
    const vectors = await client({ apiKey: 'sk-test' }).embed(texts);
    expect(vectors).toHaveLength(10);
    vectors.forEach((vector, i) => {
      expect(Array.from(vector)).toEqual(Array.from(Float32Array.from(embedText(texts[i] as string, 8))));
    });
    expect(server.batches.sort()).toEqual([1, 3, 3, 3]);
    expect(server.maxInFlight).toBe(2);
    expect(server.lastAuthorization).toBe('Bearer sk-test');
  });

  it('retries a 503 with backoff, then succeeds', async () => {
    server.failNext = 2;
    const before = server.requests;
    const [vector] = await client().embed(['hello']);
    expect(vector).toHaveLength(8);
    expect(server.requests - before).toBe(3);
  });

  it('gives up after its retries, and at once on a client error', async () => {
    server.down = true;
    const before = server.requests;
    await expect(client({ retries: 1 }).embed(['hello'])).rejects.toThrow(/answered 503/);
    expect(server.requests - before).toBe(2);
    server.down = false;
    const wrong = createEmbeddingsClient({
      url: `${server.url}/nowhere`,
      model: 'hash-8',
      apiKey: undefined,
      batchSize: 3,
      timeoutMs: 5000,
      retries: 3,
      concurrency: 1,
    });
    const start = server.requests;
    const error = await wrong.embed(['hello']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddingsError);
    expect((error as EmbeddingsError).retryable).toBe(false);
    expect(server.requests - start).toBe(1);
  });

  it('bounds a call by its timeout, and reports an unreachable provider', async () => {
    server.delayMs = 2000;
    await expect(client({ retries: 0 }).embed(['slow'], { timeoutMs: 100 })).rejects.toThrow(
      /could not be reached|out of time/,
    );
    const closed = createEmbeddingsClient({
      url: 'http://127.0.0.1:1/v1',
      model: 'm',
      apiKey: undefined,
      batchSize: 1,
      timeoutMs: 1000,
      retries: 0,
      concurrency: 1,
    });
    await expect(closed.embed(['x'])).rejects.toThrow(/could not be reached/);
  });
});
