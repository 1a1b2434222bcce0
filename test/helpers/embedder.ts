import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small deterministic embedder behind a real HTTP server that speaks the OpenAI embeddings protocol
 * (`POST /v1/embeddings` `{model, input}` → `{data: [{embedding, index}]}`), for semantic-search tests and
 * the search evaluation. A text's vector is a hashed bag of its concepts: words are lowercased, a plural
 * `s` dropped, filler words left out, and words of one synonym group count as the same concept, so
 * paraphrases ("ship to production" / "releases go out through the pipeline") land close together while
 * sharing no word. The model name chooses the size: `hash-<n>` gives n dimensions (default 64), so a test
 * can change model or dimensions.
 */
export const SYNONYM_GROUPS: string[][] = [
  [
    'ship',
    'shipping',
    'deploy',
    'deployment',
    'deploys',
    'release',
    'releases',
    'rollout',
    'rollouts',
    'production',
    'prod',
    'pipeline',
    'live',
    'launch',
  ],
  ['lunch', 'food', 'meal', 'eat', 'eating', 'dinner', 'breakfast', 'snack'],
  ['bug', 'defect', 'issue', 'error', 'crash', 'failure', 'incident', 'outage'],
  ['test', 'tests', 'testing', 'spec', 'specs', 'check', 'checks', 'verify'],
  ['database', 'db', 'postgres', 'postgresql', 'sqlite', 'storage', 'sql'],
  ['secret', 'secrets', 'password', 'passwords', 'credential', 'credentials', 'token', 'tokens', 'key', 'keys'],
  ['meeting', 'meetings', 'standup', 'sync', 'call', 'calls'],
  ['style', 'format', 'formatting', 'indent', 'indentation', 'tabs', 'spaces', 'lint', 'linter'],
  ['holiday', 'vacation', 'leave', 'pto', 'off'],
  ['cost', 'costs', 'price', 'budget', 'spend', 'money', 'bill', 'billing'],
];

const FILLER = new Set(
  'a an the to of in on at for and or is are be we do does how what when where why who our us you it this that with through go out goes by from as can should'.split(
    ' ',
  ),
);

type ConceptTable = Map<string, string>;

function conceptTable(groups: readonly (readonly string[])[]): ConceptTable {
  const table: ConceptTable = new Map();
  for (const group of groups) for (const word of group) table.set(word, `concept:${group[0]}`);
  return table;
}

const DEFAULT_CONCEPTS = conceptTable(SYNONYM_GROUPS);

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function concepts(text: string, table: ConceptTable = DEFAULT_CONCEPTS): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((word) => !FILLER.has(word))
    .map((word) => table.get(word) ?? table.get(word.replace(/s$/, '')) ?? word.replace(/s$/, ''));
}

/** The deterministic vector of `text` in `dimensions` (unit length; a text of only filler words gives a fixed vector). */
export function embedText(text: string, dimensions: number, table: ConceptTable = DEFAULT_CONCEPTS): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const found = concepts(text, table);
  for (const concept of found.length > 0 ? found : ['(empty)']) {
    const hash = fnv1a(concept);
    // Concepts (synonym groups) weigh more than single words: they carry the meaning of a paraphrase.
    vector[hash % dimensions] =
      (vector[hash % dimensions] ?? 0) + (hash & 0x8000_0000 ? -1 : 1) * (concept.startsWith('concept:') ? 3 : 1);
  }
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0)) || 1;
  return vector.map((value) => value / norm);
}

export const dimensionsOf = (model: string): number => {
  const match = /^hash-(\d+)$/.exec(model);
  return match ? Number(match[1]) : 64;
};

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export class TestEmbedder {
  /** While true every request is answered 503 (a provider that is down). */
  down = false;
  /** The next n requests are answered 503, then normal service resumes. */
  failNext = 0;
  /** Requests numbered this or later (1-based, counting every request so far) are answered 503. */
  failFrom: number | undefined;
  /** Each answer waits this long (timeouts, concurrency). */
  delayMs = 0;
  requests = 0;
  /** Texts per request, in arrival order. */
  batches: number[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** The Authorization header of the last request. */
  lastAuthorization: string | undefined;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly table: ConceptTable,
  ) {}

  /** `groups`: the synonym table (what this "model" knows); SYNONYM_GROUPS by default. */
  static async start(groups: readonly (readonly string[])[] = SYNONYM_GROUPS): Promise<TestEmbedder> {
    let self: TestEmbedder | undefined;
    const server = createServer((request, response) => {
      void self?.handle(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new TestEmbedder(server, `http://127.0.0.1:${port}/v1`, conceptTable(groups));
    return self;
  }

  private async handle(request: IncomingMessage, response: import('node:http').ServerResponse) {
    this.requests++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      this.lastAuthorization = request.headers.authorization;
      const body = await readBody(request);
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      if (request.method !== 'POST' || request.url !== '/v1/embeddings') {
        response.writeHead(404).end('not found');
        return;
      }
      const failing = this.failFrom !== undefined && this.requests >= this.failFrom;
      if (this.down || this.failNext > 0 || failing) {
        if (this.failNext > 0) this.failNext--;
        response.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"unavailable"}');
        return;
      }
      const { model, input } = JSON.parse(body) as { model: string; input: string | string[] };
      const texts = Array.isArray(input) ? input : [input];
      this.batches.push(texts.length);
      const dimensions = dimensionsOf(model);
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          object: 'list',
          model,
          data: texts.map((text, index) => ({
            object: 'embedding',
            index,
            embedding: embedText(text, dimensions, this.table),
          })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      );
    } finally {
      this.inFlight--;
    }
  }

  /** Environment turning semantic search on against this server. */
  env(model = 'hash-64', extra: Record<string, string> = {}): Record<string, string> {
    return {
      EMBEDDINGS_URL: this.url,
      EMBEDDINGS_MODEL: model,
      EMBEDDINGS_RETRIES: '0',
      EMBEDDINGS_RETRY_AFTER_MS: '0',
      EMBEDDINGS_QUERY_TIMEOUT_MS: '5000',
      ...extra,
    };
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
