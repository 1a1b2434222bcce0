import type { AuditAction } from '../../contract/index.js';
import type { Change } from '../common/audit.js';
import type { Page } from '../common/pagination.js';
import type { PromptStatus, PromptVersion } from './prompt-schemas.js';
import type { VariableSchema } from './variables.js';

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
  variableSchema: VariableSchema;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** A prompt as lists read it: without content, schema and version. */
export type PromptSummaryRecord = Omit<PromptRecord, 'userId' | 'content' | 'variableSchema' | 'version'>;

export interface PromptVersionSummaryRecord {
  version: number;
  title: string;
  commitMessage: string | null;
  createdAt: string;
}

export interface PromptListFilter {
  status?: PromptStatus;
  /** Only prompts exposed to MCP clients. */
  availableInMcp?: boolean;
  /** Every label must be present. */
  labels: string[];
  /** Lowercased terms; every one must occur in title, description or content. */
  terms: string[];
  /** Only prompts with this environment, each as the version it points to. */
  environment?: string;
  offset: number;
  limit: number;
}

/** An environment: a named pointer from a prompt to one of its versions. */
export interface PromptEnvironmentRecord {
  name: string;
  version: number;
  /** Marketplace-only keys see the prompt through this pointer alone (at most one per prompt). */
  marketplace: boolean;
  updatedAt: string;
}

/** Which pointer to follow: by name, or the one marked for the marketplace. */
export type EnvironmentTarget = { name: string } | { marketplace: true };

export type SetEnvironmentOutcome = 'set' | 'no_prompt' | 'no_version' | 'too_many';

/** The fields every version keeps; a change of any of them makes a new version. */
export type VersionedFields = Pick<PromptRecord, 'title' | 'description' | 'content' | 'labels' | 'variableSchema'>;

export type PromptPatch = Partial<VersionedFields & Pick<PromptRecord, 'status' | 'availableInMcp'>>;

export interface PromptUpdate {
  patch: PromptPatch;
  updatedAt: string;
  /** The write lands only if the prompt is still at this version (optimistic concurrency). */
  expectedVersion: number;
  /** When present, the result is stored as version `expectedVersion + 1` with this message. */
  newVersion?: { commitMessage: string | null };
  /** What the audit trail calls this change (default `updated`). */
  action?: AuditAction;
}

/** What a render needs of each reachable prompt. */
export interface PromptTemplate {
  content: string;
  variableSchema: VariableSchema;
  /** So that a key seeing published prompts only never gets a draft expanded into what it reads. */
  status: PromptStatus;
}

/**
 * Every write takes the change's change and appends its audit row in the same transaction
 * (storage's `appendAudit`); a write that changes nothing appends nothing.
 */
export interface PromptStore {
  /**
   * Inserts the prompt with its versions (at creation just version 1; an import brings the history).
   * Throws ConflictError when the slug (or the id) is taken.
   */
  insert(prompt: PromptRecord, versions: PromptVersion[], change: Change): Promise<void>;
  findById(userId: string, id: string): Promise<PromptRecord | undefined>;
  findBySlug(userId: string, slug: string): Promise<PromptRecord | undefined>;
  /** Content and variable schema by slug, for rendering a level of references at a time. */
  templatesBySlug(userId: string, slugs: string[]): Promise<Map<string, PromptTemplate>>;
  /** Which of `slugs` the user has a prompt for (optionally only of one status). */
  existingSlugs(userId: string, slugs: string[], options?: { status?: PromptStatus }): Promise<Set<string>>;
  /** Newest `updated_at` first, ties by id. */
  list(userId: string, filter: PromptListFilter): Promise<Page<PromptSummaryRecord>>;
  /** The same list with whole records (content included). */
  listRecords(userId: string, filter: PromptListFilter): Promise<Page<PromptRecord>>;
  /** Prompts whose content references `slug`, newest first (optionally only of one status). */
  referencedBy(
    userId: string,
    slug: string,
    options: { status?: PromptStatus; offset: number; limit: number },
  ): Promise<Page<PromptSummaryRecord>>;
  /** False when the prompt is gone or no longer at `expectedVersion`. */
  update(userId: string, id: string, update: PromptUpdate, change: Change): Promise<boolean>;
  delete(userId: string, id: string, change: Change): Promise<boolean>;
  /** The user's slugs that start with `prefix`, for generating a free one. */
  slugsStartingWith(userId: string, prefix: string): Promise<string[]>;
  /** Versions of one prompt, newest first. */
  listVersions(
    userId: string,
    promptId: string,
    options: { offset: number; limit: number },
  ): Promise<Page<PromptVersionSummaryRecord>>;
  findVersion(userId: string, promptId: string, version: number): Promise<PromptVersion | undefined>;
  /** The prompt's environments, by name. */
  listEnvironments(userId: string, promptId: string): Promise<PromptEnvironmentRecord[]>;
  /** The version a pointer targets, in one query; undefined when the prompt has no such pointer. */
  environmentVersion(
    userId: string,
    promptId: string,
    target: EnvironmentTarget,
  ): Promise<{ environment: string; version: PromptVersion } | undefined>;
  /**
   * Creates or moves a pointer, in one transaction: refused when the version does not exist or the prompt
   * would have more than `maxCount` pointers. A pointer marked `marketplace` takes the mark from any other.
   */
  setEnvironment(
    userId: string,
    promptId: string,
    environment: PromptEnvironmentRecord,
    maxCount: number,
    change: Change,
  ): Promise<SetEnvironmentOutcome>;
  /** The versions the marketplace pointers of these prompts target, by prompt id (one query). */
  marketplaceVersions(userId: string, promptIds: string[]): Promise<Map<string, PromptVersion>>;
  /** False when the prompt has no such pointer. Both writes append their audit row (`prompt_environment`). */
  removeEnvironment(userId: string, promptId: string, name: string, change: Change): Promise<boolean>;
}
