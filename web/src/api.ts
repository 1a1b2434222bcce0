// Fetch wrapper for the session-authenticated dashboard API (docs/dashboard-api.md).
import {
  type ApiKey,
  type Artifact,
  type ArtifactList,
  type ArtifactVersion,
  type ArtifactVersionList,
  type ArtifactWritten,
  type AuditList,
  type AuditListParams,
  type CreateArtifactInput,
  type CreatedApiKey,
  type CreatedWebhook,
  type CreateMemoryInput,
  type CreatePromptInput,
  type DashboardConfig,
  type Integration,
  MAX_PER_PAGE,
  type Memory,
  type MemoryList,
  type MemoryRestored,
  type MemoryVersion,
  type MemoryVersionList,
  type MemoryWritten,
  type Message,
  type Prompt,
  type PromptCreated,
  type PromptEnvironmentList,
  type PromptEnvironmentSet,
  type PromptList,
  type PromptUpdated,
  type PromptVersion,
  type PromptVersionList,
  type RenderPromptInput,
  type RenderResult,
  type SetPromptEnvironmentInput,
  type UpdateArtifactInput,
  type UpdateMemoryInput,
  type UpdatePromptInput,
  type Usage,
  type User,
  type WebhookAttemptPage,
  type WebhookEndpoint,
} from '../../src/contract';

const BASE = '/dashboard/api';

/** An error answer of the API: `{error, message, details?}` plus the HTTP status. */
export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly details: Record<string, string> | undefined;
  readonly retryAfter: number | undefined;

  constructor(status: number, error: string, message: string, details?: Record<string, string>, retryAfter?: number) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.error = error;
    this.details = details;
    this.retryAfter = retryAfter;
  }
}

type QueryValue = string | number | boolean | undefined | null | readonly string[];
export type Query = Record<string, QueryValue>;

interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

let unauthorizedHandler: (() => void) | undefined;

/** Called whenever an answer is 401 (the session is missing or expired). */
export function onUnauthorized(handler: (() => void) | undefined): void {
  unauthorizedHandler = handler;
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) {
      for (const item of value) params.append(name, item);
    } else {
      params.append(name, String(value));
    }
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function asDetails(value: unknown): Record<string, string> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, message] of Object.entries(value)) out[key] = String(message);
  return out;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  const init: RequestInit = { method, headers, credentials: 'same-origin' };
  if (options.signal) init.signal = options.signal;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetch(`${BASE}${path}${queryString(options.query)}`, init);
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError(0, 'network_error', 'Could not reach the Cairn server. Check your connection and try again.');
  }
  const body = await readBody(response);
  if (response.ok) return body as T;

  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const error = typeof record.error === 'string' ? record.error : `http_${response.status}`;
  const message =
    typeof record.message === 'string' && record.message
      ? record.message
      : `The server answered ${response.status} ${response.statusText}`.trim();
  const retryAfter = typeof record.retry_after === 'number' ? record.retry_after : undefined;
  if (response.status === 401) unauthorizedHandler?.();
  throw new ApiError(response.status, error, message, asDetails(record.details), retryAfter);
}

const get = <T>(path: string, query?: Query, signal?: AbortSignal) =>
  request<T>('GET', path, { ...(query && { query }), ...(signal && { signal }) });
const post = <T>(path: string, body?: unknown) => request<T>('POST', path, { body });
const put = <T>(path: string, body: unknown, headers?: Record<string, string>) =>
  request<T>('PUT', path, { body, ...(headers && { headers }) });
const patch = <T>(path: string, body: unknown) => request<T>('PATCH', path, { body });
const del = <T>(path: string) => request<T>('DELETE', path);

const seg = encodeURIComponent;
/** Versions are the ETags of prompts and artifacts. */
const ifMatch = (version: number) => ({ 'If-Match': `"${version}"` });
const artifactPath = (project: string, slug: string) => `/artifacts/${seg(project)}/${seg(slug)}`;

export const api = {
  // Account
  config: (signal?: AbortSignal) => get<DashboardConfig>('/config', undefined, signal),
  me: (signal?: AbortSignal) => get<{ user: User }>('/me', undefined, signal),
  signup: (email: string, password: string, inviteCode?: string) =>
    post<{ user: User }>('/signup', { email, password, ...(inviteCode && { invite_code: inviteCode }) }),
  login: (email: string, password: string) => post<{ user: User }>('/login', { email, password }),
  logout: () => post<Message>('/logout'),
  changePassword: (currentPassword: string, newPassword: string) =>
    post<Message>('/password', { current_password: currentPassword, new_password: newPassword }),

  // API keys
  keys: (signal?: AbortSignal) => get<{ keys: ApiKey[] }>('/keys', undefined, signal),
  createKey: (name: string, integrations: Integration[]) => post<CreatedApiKey>('/keys', { name, integrations }),
  revokeKey: (id: string) => post<ApiKey>(`/keys/${seg(id)}/revoke`),
  deleteKey: (id: string) => del<Message>(`/keys/${seg(id)}`),

  // Webhooks (docs/webhooks.md)
  webhooks: (signal?: AbortSignal) => get<{ webhooks: WebhookEndpoint[] }>('/webhooks', undefined, signal),
  createWebhook: (input: { url: string; events: string[]; description?: string }) =>
    post<CreatedWebhook>('/webhooks', input),
  updateWebhook: (id: string, input: { enabled?: boolean; events?: string[]; url?: string; description?: string }) =>
    put<WebhookEndpoint>(`/webhooks/${seg(id)}`, input),
  deleteWebhook: (id: string) => del<Message>(`/webhooks/${seg(id)}`),
  testWebhook: (id: string) => post<{ event_id: string; message: string }>(`/webhooks/${seg(id)}/test`),
  webhookAttempts: (id: string, signal?: AbortSignal) =>
    get<WebhookAttemptPage>(`/webhooks/${seg(id)}/attempts`, { per_page: 20 }, signal),

  // Usage
  usage: (hours: number, signal?: AbortSignal) => get<Usage>('/usage', { hours }, signal),

  // Prompts
  prompts: (query: Query, signal?: AbortSignal) => get<PromptList>('/prompts', query, signal),
  prompt: (idOrSlug: string, signal?: AbortSignal) => get<Prompt>(`/prompts/${seg(idOrSlug)}`, undefined, signal),
  createPrompt: (input: CreatePromptInput) => post<PromptCreated>('/prompts', input),
  /** With `version`, only if the prompt is still at that version (412 otherwise). */
  updatePrompt: (id: string, input: UpdatePromptInput, version?: number) =>
    put<PromptUpdated>(`/prompts/${seg(id)}`, input, version === undefined ? undefined : ifMatch(version)),
  promptVersions: (id: string, page: number, signal?: AbortSignal) =>
    get<PromptVersionList>(`/prompts/${seg(id)}/versions`, { page, per_page: 50 }, signal),
  promptVersion: (id: string, version: number, signal?: AbortSignal) =>
    get<PromptVersion>(`/prompts/${seg(id)}/versions/${version}`, undefined, signal),
  restorePrompt: (id: string, version: number, commitMessage: string, current?: number) =>
    request<PromptUpdated>('POST', `/prompts/${seg(id)}/restore`, {
      body: { version, ...(commitMessage && { commit_message: commitMessage }) },
      ...(current !== undefined && { headers: ifMatch(current) }),
    }),
  renderPrompt: (id: string, input: RenderPromptInput, signal?: AbortSignal) =>
    request<RenderResult>('POST', `/prompts/${seg(id)}/render`, { body: input, ...(signal && { signal }) }),
  referencedBy: (id: string, signal?: AbortSignal) =>
    get<PromptList>(`/prompts/${seg(id)}/referenced-by`, { per_page: 50 }, signal),
  deletePrompt: (id: string) => del<Message>(`/prompts/${seg(id)}`),
  promptEnvironments: (id: string, signal?: AbortSignal) =>
    get<PromptEnvironmentList>(`/prompts/${seg(id)}/environments`, undefined, signal),
  setPromptEnvironment: (id: string, name: string, input: SetPromptEnvironmentInput) =>
    put<PromptEnvironmentSet>(`/prompts/${seg(id)}/environments/${seg(name)}`, input),
  removePromptEnvironment: (id: string, name: string) => del<Message>(`/prompts/${seg(id)}/environments/${seg(name)}`),

  // Memories
  memories: (query: Query, signal?: AbortSignal) => get<MemoryList>('/memories', query, signal),
  memory: (id: string, signal?: AbortSignal) => get<Memory>(`/memories/${seg(id)}`, undefined, signal),
  createMemory: (input: CreateMemoryInput) => post<MemoryWritten>('/memories', input),
  updateMemory: (id: string, input: UpdateMemoryInput) => put<MemoryWritten>(`/memories/${seg(id)}`, input),
  deleteMemory: (id: string) => del<Message>(`/memories/${seg(id)}`),
  memoryVersions: (id: string, page: number, signal?: AbortSignal) =>
    get<MemoryVersionList>(`/memories/${seg(id)}/versions`, { page, per_page: 50 }, signal),
  memoryVersion: (id: string, version: number, signal?: AbortSignal) =>
    get<MemoryVersion>(`/memories/${seg(id)}/versions/${version}`, undefined, signal),
  restoreMemory: (id: string, version: number) => post<MemoryRestored>(`/memories/${seg(id)}/restore`, { version }),

  // Artifacts
  artifacts: (query: Query, signal?: AbortSignal) => get<ArtifactList>('/artifacts', query, signal),
  artifact: (project: string, slug: string, signal?: AbortSignal) =>
    get<Artifact>(artifactPath(project, slug), undefined, signal),
  createArtifact: (input: CreateArtifactInput) => post<ArtifactWritten>('/artifacts', input),
  updateArtifact: (project: string, slug: string, version: number, input: UpdateArtifactInput) =>
    put<ArtifactWritten>(artifactPath(project, slug), input, ifMatch(version)),
  deleteArtifact: (project: string, slug: string) => del<Message>(artifactPath(project, slug)),
  artifactVersions: (project: string, slug: string, signal?: AbortSignal) =>
    get<ArtifactVersionList>(`${artifactPath(project, slug)}/versions`, { per_page: MAX_PER_PAGE }, signal),
  artifactVersion: (project: string, slug: string, version: number, signal?: AbortSignal) =>
    get<ArtifactVersion>(`${artifactPath(project, slug)}/versions/${version}`, undefined, signal),

  // Activity (the audit trail)
  audit: (query: AuditListParams, signal?: AbortSignal) => get<AuditList>('/audit', query as Query, signal),

  // Admin
  adminUsers: (signal?: AbortSignal) => get<{ users: User[] }>('/admin/users', undefined, signal),
  updateUser: (id: string, changes: { tier?: string; rate_limit?: number | null }) =>
    patch<{ user: User }>(`/admin/users/${seg(id)}`, changes),
  createInvite: () => post<{ code: string }>('/admin/invites'),
};

/** The message to show for any thrown value (an ApiError carries the server's sentence). */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

export const isAbort = (error: unknown): boolean => error instanceof DOMException && error.name === 'AbortError';
