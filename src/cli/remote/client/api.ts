import {
  type ApiErrorBody,
  type Artifact,
  type ArtifactList,
  type ArtifactListParams,
  type ArtifactWritten,
  CLI_CLIENT_NAME,
  CLI_VERSION,
  type CreateArtifactInput,
  type CreateMemoryInput,
  type CreatePromptInput,
  fetchAllPages,
  type ImportResult,
  type Me,
  type Memory,
  type MemoryCreated,
  type MemoryList,
  type MemoryListParams,
  type MemoryRestored,
  type MemoryVersion,
  type MemoryVersionList,
  type MemoryWritten,
  type Message,
  type PageParams,
  type Prompt,
  type PromptCreated,
  type PromptList,
  type PromptListItem,
  type PromptListParams,
  type PromptUpdated,
  type PromptVersion,
  type PromptVersionList,
  type RankedMemory,
  type RenderPromptInput,
  type RenderResult,
  type UpdateArtifactInput,
  type UpdateMemoryInput,
  type UpdatePromptInput,
} from '../../../contract/index.js';
import { CliError, EXIT } from '../../output.js';
import type { ClientSettings } from './config.js';

/** The JSON error body of every API failure (docs/api.md), as far as the server sent it. */
type ErrorBody = Partial<ApiErrorBody>;

export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export interface RequestOptions {
  query?: Query;
  /** JSON body (serialised here) or a stream/bytes sent as they are with `contentType`. */
  json?: unknown;
  body?: RequestInit['body'];
  contentType?: string;
  headers?: Record<string, string>;
  /** Statuses returned to the caller instead of thrown (e.g. 404 for create-or-update). */
  allow?: readonly number[];
}

export interface RateLimit {
  limit: number;
  remaining: number;
  /** Epoch seconds of the next window. */
  reset: number;
}

/** A REST client for one server and key. Every failure becomes a CliError with the exit code of its kind. */
export class ApiClient {
  constructor(
    readonly settings: Pick<ClientSettings, 'url' | 'apiKey' | 'keySource'>,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  url(path: string, query: Query = {}): string {
    const url = new URL(`${this.settings.url}/api/v1${path}`);
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
    }
    return url.href;
  }

  /** Sends a request; resolves with the response when it is 2xx (or allowed), else throws a CliError. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const url = this.url(path, options.query);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.settings.apiKey}`,
      accept: 'application/json',
      'user-agent': `${CLI_CLIENT_NAME}/${CLI_VERSION}`,
      ...options.headers,
    };
    let body = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] = 'application/json';
    } else if (options.contentType) headers['content-type'] = options.contentType;
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers,
        body,
        // Streams as bodies need half-duplex in Node's fetch.
        ...(body && typeof (body as ReadableStream).getReader === 'function' ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (error) {
      throw unreachable(this.settings.url, error);
    }
    if (response.ok || options.allow?.includes(response.status)) return response;
    throw await failure(response, this.settings);
  }

  /** A JSON request; the parsed body, exactly as the server sent it. */
  async json<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    return (await readJson(response, this.settings.url)) as T;
  }

  get = <T = unknown>(path: string, query?: Query) => this.json<T>('GET', path, { query });

  /** A GET whose 404 is an answer (undefined), not a failure. */
  async find<T>(path: string): Promise<T | undefined> {
    const response = await this.send('GET', path, { allow: [404] });
    if (response.status !== 404) return (await readJson(response, this.settings.url)) as T;
    await response.body?.cancel();
    return undefined;
  }

  // The API's resources, typed by the contract (src/contract). Commands call these, not paths.

  readonly prompts = {
    list: (params: PromptListParams = {}) => this.get<PromptList>('/prompts', params),
    /** Every prompt, whole (`full=true`): one request per MAX_PER_PAGE prompts, not one per prompt. */
    all: (environment?: string): Promise<PromptListItem[]> =>
      fetchAllPages(async (page, per_page) => {
        const body = await this.prompts.list({ page, per_page, full: true, environment });
        return { items: body.prompts, total: body.total };
      }),
    /** With `environment`, the version it points to (404 → exit 3 when the prompt has no such environment). */
    get: (idOrSlug: string, environment?: string) =>
      this.get<Prompt>(promptPath(idOrSlug), environment === undefined ? {} : { environment }),
    find: (idOrSlug: string) => this.find<Prompt>(promptPath(idOrSlug)),
    create: (input: CreatePromptInput) => this.json<PromptCreated>('POST', '/prompts', { json: input }),
    /** With `version`, only if the prompt is still at it (412 → exit 4). */
    update: (idOrSlug: string, input: UpdatePromptInput, version?: number) =>
      this.json<PromptUpdated>('PUT', promptPath(idOrSlug), { json: input, headers: ifMatch(version) }),
    delete: (idOrSlug: string) => this.json<Message>('DELETE', promptPath(idOrSlug)),
    render: (idOrSlug: string, input: RenderPromptInput) =>
      this.json<RenderResult>('POST', promptPath(idOrSlug, '/render'), { json: input }),
    versions: (idOrSlug: string, params: PageParams = {}) =>
      this.get<PromptVersionList>(promptPath(idOrSlug, '/versions'), params),
    version: (idOrSlug: string, version: number) =>
      this.get<PromptVersion>(promptPath(idOrSlug, `/versions/${version}`)),
    findVersion: (idOrSlug: string, version: number) =>
      this.find<PromptVersion>(promptPath(idOrSlug, `/versions/${version}`)),
  };

  readonly memories = {
    list: (params: MemoryListParams = {}) => this.get<MemoryList>('/memories', params),
    /** Every memory the filters select, a page of MAX_PER_PAGE at a time. */
    all: (params: Omit<MemoryListParams, 'page' | 'per_page'> = {}): Promise<RankedMemory[]> =>
      fetchAllPages(async (page, per_page) => {
        const body = await this.memories.list({ ...params, page, per_page });
        return { items: body.memories, total: body.total };
      }),
    get: (id: string) => this.get<Memory>(memoryPath(id)),
    create: (input: CreateMemoryInput) => this.json<MemoryCreated>('POST', '/memories', { json: input }),
    update: (id: string, input: UpdateMemoryInput) => this.json<MemoryWritten>('PUT', memoryPath(id), { json: input }),
    delete: (id: string) => this.json<Message>('DELETE', memoryPath(id)),
    versions: (id: string, params: PageParams = {}) => this.get<MemoryVersionList>(memoryPath(id, '/versions'), params),
    version: (id: string, version: number) => this.get<MemoryVersion>(memoryPath(id, `/versions/${version}`)),
    restore: (id: string, version: number) =>
      this.json<MemoryRestored>('POST', memoryPath(id, '/restore'), { json: { version } }),
  };

  readonly artifacts = {
    list: (params: ArtifactListParams = {}) => this.get<ArtifactList>('/artifacts', params),
    get: (project: string, slug: string) => this.get<Artifact>(artifactPath(project, slug)),
    find: (project: string, slug: string) => this.find<Artifact>(artifactPath(project, slug)),
    /** The content as stored, byte for byte; the ETag header carries its version. */
    raw: (project: string, slug: string) =>
      this.send('GET', artifactPath(project, slug, '/raw'), { headers: { accept: '*/*' } }),
    create: (input: CreateArtifactInput) => this.json<ArtifactWritten>('POST', '/artifacts', { json: input }),
    /** Undefined when there is no such artifact (so the caller may create it). */
    updateIfExists: async (project: string, slug: string, input: UpdateArtifactInput) => {
      const response = await this.send('PUT', artifactPath(project, slug), { json: input, allow: [404] });
      if (response.status !== 404) return (await readJson(response, this.settings.url)) as ArtifactWritten;
      await response.body?.cancel();
      return undefined;
    },
    delete: (project: string, slug: string) => this.json<Message>('DELETE', artifactPath(project, slug)),
  };

  /** `GET /me`, with this hour's rate-limit figures from the same answer's headers. */
  async me(): Promise<{ me: Me; rate: RateLimit | undefined }> {
    const response = await this.send('GET', '/me');
    return { me: (await readJson(response, this.settings.url)) as Me, rate: rateLimitOf(response) };
  }

  readonly bundles = {
    /** The NDJSON export, as a response to stream from. */
    export: () => this.send('GET', '/export', { headers: { accept: 'application/x-ndjson' } }),
    import: (body: ReadableStream, dryRun: boolean) =>
      this.json<ImportResult>('POST', '/import', {
        query: dryRun ? { dry_run: 'true' } : {},
        body,
        contentType: 'application/x-ndjson',
      }),
  };
}

export const promptPath = (idOrSlug: string, rest = '') => `/prompts/${encodeURIComponent(idOrSlug)}${rest}`;
export const memoryPath = (id: string, rest = '') => `/memories/${encodeURIComponent(id)}${rest}`;
/** The project is one path segment, its '/' percent-encoded (docs/api.md). */
export const artifactPath = (project: string, slug: string, rest = '') =>
  `/artifacts/${encodeURIComponent(project)}/${encodeURIComponent(slug)}${rest}`;

/** If-Match value for a version (none: the write is unconditional). */
export const ifMatch = (version: number | undefined): Record<string, string> =>
  version === undefined ? {} : { 'if-match': `"${version}"` };

export async function readJson(response: Response, base: string): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(
      `${base} answered ${response.status} with something that is not JSON: is this a Cairn server?`,
      EXIT.failure,
    );
  }
}

export function rateLimitOf(response: Response): RateLimit | undefined {
  const limit = Number(response.headers.get('x-ratelimit-limit'));
  const remaining = Number(response.headers.get('x-ratelimit-remaining'));
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  if (!response.headers.has('x-ratelimit-limit') || [limit, remaining, reset].some(Number.isNaN)) return undefined;
  return { limit, remaining, reset };
}

function unreachable(base: string, error: unknown): CliError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (error as Error).message;
  return new CliError(`cannot reach the Cairn server at ${base} (${reason})`, EXIT.unavailable);
}

/** Seconds → "14:00:00 UTC, in 12 min" (the moment the hourly window resets). */
/**
 * When a rate limit resets, and how long that is. `resetAt` (epoch seconds, the server's
 * `X-RateLimit-Reset`) is the exact moment; without it, now plus the whole seconds of `Retry-After`, which
 * can land a second past the window's end.
 */
export function describeReset(retryAfterSeconds: number, now = Date.now(), resetAt?: number): string {
  const at = new Date(resetAt !== undefined ? resetAt * 1000 : now + retryAfterSeconds * 1000)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  const wait =
    retryAfterSeconds < 90 ? `${retryAfterSeconds} s` : `${Math.ceil(retryAfterSeconds / 60).toString()} min`;
  return `${at} (in ${wait})`;
}

async function failure(response: Response, settings: ApiClient['settings']): Promise<CliError> {
  let body: ErrorBody = {};
  const text = await response.text().catch(() => '');
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    // A proxy's HTML page, say: described by the status alone.
  }
  const status = response.status;
  const serverSays = body.message ?? (text.length > 0 && text.length < 200 ? text.trim() : response.statusText);
  const requestId = response.headers.get('x-request-id');
  switch (status) {
    case 400: {
      const details = Object.entries(body.details ?? {}).map(([field, problem]) => `${field}: ${problem}`);
      return new CliError(`invalid input: ${details.length > 0 ? details.join('; ') : serverSays}`, EXIT.usage);
    }
    case 401: {
      const fix =
        settings.keySource === 'environment'
          ? 'check CAIRN_API_KEY (it overrides the key stored by `cairn login`)'
          : 'run `cairn login` with a valid key';
      return new CliError(`the server refused the API key: ${serverSays}; ${fix}`, EXIT.auth);
    }
    case 403:
      return new CliError(`forbidden: ${serverSays}`, EXIT.auth);
    case 404:
      return new CliError(serverSays, EXIT.notFound);
    case 409:
      return new CliError(`conflict: ${serverSays}`, EXIT.conflict);
    case 412:
      return new CliError(`changed on the server since it was read: ${serverSays}`, EXIT.conflict);
    case 413:
      return new CliError(`too large: ${serverSays}`, EXIT.usage);
    case 429: {
      const seconds = retryAfter(body, response);
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      const resetAt = response.headers.has('x-ratelimit-reset') && reset > 0 ? reset : undefined;
      const when = seconds === undefined ? '' : `; the limit resets at ${describeReset(seconds, Date.now(), resetAt)}`;
      return new CliError(`rate limit reached: ${serverSays}${when}`, EXIT.rateLimited);
    }
    case 502:
    case 503:
    case 504:
      return new CliError(
        `the server at ${settings.url} is unavailable (${status}): ${serverSays}; try again shortly`,
        EXIT.unavailable,
      );
    default:
      return new CliError(
        `the server answered ${status} ${body.error ?? ''}: ${serverSays}${requestId ? ` (request id ${requestId})` : ''}`.replace(
          /\s+:/,
          ':',
        ),
        EXIT.failure,
      );
  }
}

function retryAfter(body: ErrorBody, response: Response): number | undefined {
  if (typeof body.retry_after === 'number') return body.retry_after;
  const header = Number(response.headers.get('retry-after'));
  if (!Number.isNaN(header) && response.headers.has('retry-after')) return header;
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  if (!Number.isNaN(reset) && reset > 0) return Math.max(0, Math.ceil(reset - Date.now() / 1000));
  return undefined;
}
