import type { Page } from '../pagination.js';
import type { PromptStatus, PromptSummary } from './prompt-schemas.js';

export interface PromptRecord {
  id: string;
  userId: string;
  slug: string;
  title: string;
  description: string;
  content: string;
  status: PromptStatus;
  availableInMcp: boolean;
  labels: string[];
  createdAt: string;
  updatedAt: string;
}

export interface PromptListFilter {
  status?: PromptStatus;
  /** Only prompts exposed to MCP clients. */
  availableInMcp?: boolean;
  /** Every label must be present. */
  labels: string[];
  /** Lowercased terms; every one must occur in title, description or content. */
  terms: string[];
  offset: number;
  limit: number;
}

export type PromptPatch = Partial<
  Pick<PromptRecord, 'title' | 'description' | 'content' | 'status' | 'availableInMcp' | 'labels'>
>;

export interface PromptStore {
  /** Throws ConflictError when the user already has a prompt with this slug. */
  insert(prompt: PromptRecord): Promise<void>;
  findById(userId: string, id: string): Promise<PromptRecord | undefined>;
  findBySlug(userId: string, slug: string): Promise<PromptRecord | undefined>;
  /** Contents by slug, for expanding references a level at a time. */
  contentsBySlug(userId: string, slugs: string[]): Promise<Map<string, string>>;
  /** Newest `updated_at` first, ties by id. */
  list(userId: string, filter: PromptListFilter): Promise<Page<PromptSummary>>;
  /** Returns false when the prompt does not exist for this user. */
  update(userId: string, id: string, patch: PromptPatch, updatedAt: string): Promise<boolean>;
  delete(userId: string, id: string): Promise<boolean>;
  /** The user's slugs that start with `prefix`, for generating a free one. */
  slugsStartingWith(userId: string, prefix: string): Promise<string[]>;
}
