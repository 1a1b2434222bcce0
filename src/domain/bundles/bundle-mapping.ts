import { contentTypeSchema } from '../artifacts/artifact-schemas.js';
import type { ArtifactRecord } from '../artifacts/artifact-store.js';
import { sha256Hex } from '../common/digest.js';
import { createMemoryBody } from '../memories/memory-schemas.js';
import type { MemoryRecord, MemoryVersionRecord } from '../memories/memory-store.js';
import { createPromptBody, type PromptVersion } from '../prompts/prompt-schemas.js';
import type { PromptEnvironmentRecord, PromptRecord } from '../prompts/prompt-store.js';
import type {
  BundleArtifact,
  BundleArtifactVersion,
  BundleCounts,
  BundleMemory,
  BundleMemoryVersion,
  BundlePrompt,
  BundlePromptVersion,
} from './bundle-schemas.js';
import type { ArtifactVersionRecord } from './bundle-store.js';

// Bundle lines and the domain's shapes: what export writes for a record, and what import hands to the create
// schemas and the stores for a line.

export const noCounts = (): BundleCounts => ({ prompts: 0, memories: 0, artifacts: 0 });

export function promptLine(
  p: PromptRecord,
  versions: PromptVersion[],
  environments: PromptEnvironmentRecord[] = [],
): BundlePrompt {
  return {
    type: 'prompt',
    id: p.id,
    slug: p.slug,
    title: p.title,
    description: p.description,
    content: p.content,
    status: p.status,
    available_in_mcp: p.availableInMcp,
    labels: p.labels,
    variable_schema: p.variableSchema,
    version: p.version,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    versions,
    environments: environments.map((e) => ({ name: e.name, version: e.version, marketplace: e.marketplace })),
  };
}

export const memoryLine = (m: MemoryRecord & { version: number }): BundleMemory => ({
  type: 'memory',
  memory_id: m.id,
  text: m.text,
  project_name: m.projectName,
  metadata: m.metadata,
  created_at: m.createdAt,
  updated_at: m.updatedAt,
  last_accessed_at: m.lastAccessedAt,
  expires_at: m.expiresAt ?? null,
  pinned: m.pinned ?? false,
  superseded_by: m.supersededBy ?? null,
  version: m.version,
});

export const memoryVersionLine = (memoryId: string, v: MemoryVersionRecord): BundleMemoryVersion => ({
  type: 'memory_version',
  memory_id: memoryId,
  version: v.version,
  text: v.text,
  project_name: v.projectName,
  metadata: v.metadata,
  created_at: v.createdAt,
});

/** A memory's kept version as stored: normalised by the create schema, as live content is. */
export const keptMemoryVersion = (v: BundleMemoryVersion): MemoryVersionRecord => {
  const data = createMemoryBody.parse({ text: v.text, project_name: v.project_name, metadata: v.metadata });
  return {
    version: v.version,
    text: data.text,
    projectName: data.project_name ?? null,
    metadata: data.metadata ?? {},
    createdAt: v.created_at,
  };
};

export const artifactLine = (a: ArtifactRecord): BundleArtifact => ({
  type: 'artifact',
  id: a.id,
  project: a.project,
  slug: a.slug,
  title: a.title,
  description: a.description,
  content: a.content,
  content_type: a.contentType,
  labels: a.labels,
  metadata: a.metadata,
  version: a.version,
  size_bytes: a.sizeBytes,
  sha256: a.sha256,
  created_at: a.createdAt,
  updated_at: a.updatedAt,
});

export const artifactVersionLine = (a: ArtifactRecord, v: ArtifactVersionRecord): BundleArtifactVersion => ({
  type: 'artifact_version',
  project: a.project,
  slug: a.slug,
  version: v.version,
  content: v.content,
  content_type: v.contentType,
  size_bytes: v.sizeBytes,
  sha256: v.sha256,
  created_at: v.createdAt,
});

export const promptInput = (p: BundlePrompt) => ({
  title: p.title,
  content: p.content,
  description: p.description,
  status: p.status,
  available_in_mcp: p.available_in_mcp,
  labels: p.labels,
  slug: p.slug,
  variable_schema: p.variable_schema,
});

export const versionInput = (v: BundlePromptVersion) => ({
  title: v.title,
  content: v.content,
  description: v.description,
  labels: v.labels,
  variable_schema: v.variable_schema,
  commit_message: v.commit_message,
});

/** A version as stored: normalised by the same schema as live content (trimmed title, unique labels, …). */
export const keptPromptVersion = (v: BundlePromptVersion): PromptVersion => {
  const data = createPromptBody.parse(versionInput(v));
  return {
    version: v.version,
    title: data.title,
    description: data.description,
    content: data.content,
    labels: data.labels,
    variable_schema: data.variable_schema ?? {},
    commit_message: data.commit_message ?? null,
    created_at: v.created_at,
  };
};

export const artifactInput = (a: BundleArtifact) => ({
  project: a.project,
  slug: a.slug,
  title: a.title,
  description: a.description,
  content: a.content,
  content_type: a.content_type,
  labels: a.labels,
  metadata: a.metadata,
});

/** An artifact's kept version as stored. */
export const keptVersion = (v: BundleArtifactVersion) => ({
  version: v.version,
  content: v.content,
  contentType: contentTypeSchema.parse(v.content_type),
  sizeBytes: Buffer.byteLength(v.content, 'utf8'),
  sha256: sha256Hex(v.content),
  createdAt: v.created_at,
});
