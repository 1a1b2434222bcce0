import type { Embedder } from '../domain/memories/embedding-store.js';

/** An OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, Ollama, llama.cpp server, vLLM, TEI, …). */
export interface EmbeddingsClientConfig {
  url: string;
  model: string;
  apiKey: string | undefined;
  /** Texts per request. */
  batchSize: number;
  /** One request's budget. */
  timeoutMs: number;
  /** Retries of a failed request (network error, timeout, 429, 5xx), with exponential backoff. */
  retries: number;
  /** Requests in flight at once from this process. */
  concurrency: number;
}

/** The largest vector accepted from a provider (text-embedding-3-large has 3072). */
export const MAX_DIMENSIONS = 16_384;
const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 8000;

export class EmbeddingsError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EmbeddingsError';
  }
}

/** `…/v1` or `…/v1/embeddings`: the endpoint itself. */
export const endpointOf = (url: string): string =>
  /\/embeddings\/?$/.test(url) ? url.replace(/\/$/, '') : `${url.replace(/\/$/, '')}/embeddings`;

/** At most `limit` calls of `work` at once; the others wait their turn (first come, first served). */
function limiter(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(work: () => Promise<T>): Promise<T> => {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function parseVectors(body: unknown, count: number): Float32Array[] {
  const data = (body as { data?: unknown })?.data;
  if (!Array.isArray(data) || data.length !== count) {
    throw new EmbeddingsError(
      `the provider answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} texts`,
      false,
    );
  }
  const vectors: Float32Array[] = new Array(count);
  data.forEach((item: { embedding?: unknown; index?: unknown }, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    const embedding = item?.embedding;
    if (!Array.isArray(embedding) || embedding.length === 0 || embedding.length > MAX_DIMENSIONS) {
      throw new EmbeddingsError('the provider answered an embedding that is not a list of 1 to 16384 numbers', false);
    }
    if (!embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) {
      throw new EmbeddingsError('the provider answered an embedding with a value that is not a finite number', false);
    }
    if (index < 0 || index >= count || vectors[index])
      throw new EmbeddingsError('the provider answered bad indexes', false);
    vectors[index] = Float32Array.from(embedding as number[]);
  });
  const size = vectors[0]?.length;
  if (vectors.some((vector) => vector.length !== size)) {
    throw new EmbeddingsError('the provider answered vectors of different sizes', false);
  }
  return vectors;
}

/**
 * The embeddings provider over HTTP: texts in batches of `batchSize`, at most `concurrency` requests in
 * flight, each bounded by `timeoutMs` (and by the caller's `timeoutMs` for the whole call), retried on
 * network errors, timeouts, 429 and 5xx with exponential backoff. Other answers fail at once.
 */
export function createEmbeddingsClient(config: EmbeddingsClientConfig): Embedder {
  const endpoint = endpointOf(config.url);
  const run = limiter(config.concurrency);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

  async function request(texts: readonly string[], deadline: number): Promise<Float32Array[]> {
    const budget = Math.min(config.timeoutMs, deadline - Date.now());
    if (budget <= 0) throw new EmbeddingsError('the embeddings request ran out of time', true);
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: config.model, input: texts, encoding_format: 'float' }),
        signal: AbortSignal.timeout(budget),
      });
    } catch (error) {
      throw new EmbeddingsError(`the embeddings provider could not be reached (${(error as Error).message})`, true, {
        cause: error,
      });
    }
    if (!response.ok) {
      // The body may say why (a wrong model name, a bad key); a little of it is enough.
      const detail = (await response.text().catch(() => '')).slice(0, 200);
      throw new EmbeddingsError(
        `the embeddings provider answered ${response.status}${detail ? `: ${detail}` : ''}`,
        response.status === 429 || response.status >= 500,
      );
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch (error) {
      throw new EmbeddingsError('the embeddings provider answered something that is not JSON', true, { cause: error });
    }
    return parseVectors(body, texts.length);
  }

  async function withRetries(texts: readonly string[], deadline: number): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await run(() => request(texts, deadline));
      } catch (error) {
        const retryable = error instanceof EmbeddingsError && error.retryable;
        const backoff = Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt) * (0.5 + Math.random() / 2);
        if (!retryable || attempt >= config.retries || Date.now() + backoff >= deadline) throw error;
        await sleep(backoff);
      }
    }
  }

  return {
    model: config.model,
    async embed(texts, options = {}) {
      const deadline = Date.now() + (options.timeoutMs ?? Number.MAX_SAFE_INTEGER / 2);
      const batches: Array<readonly string[]> = [];
      for (let i = 0; i < texts.length; i += config.batchSize) batches.push(texts.slice(i, i + config.batchSize));
      const results = await Promise.all(batches.map((batch) => withRetries(batch, deadline)));
      const vectors = results.flat();
      if (vectors.some((vector) => vector.length !== vectors[0]?.length)) {
        throw new EmbeddingsError('the provider answered vectors of different sizes', false);
      }
      return vectors;
    },
  };
}
