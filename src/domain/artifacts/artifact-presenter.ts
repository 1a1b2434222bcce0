import { cutText, leadingFitting, type PreviewShape, partLength } from '../common/budget.js';
import type {
  Artifact,
  ArtifactListItem,
  ArtifactSummary,
  ArtifactVersion,
  VersionSummary,
} from './artifact-schemas.js';
import type { ArtifactRecord, ArtifactSummaryRecord, ArtifactVersionRecord } from './artifact-store.js';

/** Records (as stores return them) → the API's shapes. The one place artifact fields are renamed for clients. */
export function toSummary(record: ArtifactSummaryRecord): ArtifactSummary {
  return {
    id: record.id,
    project: record.project,
    slug: record.slug,
    title: record.title,
    description: record.description,
    content_type: record.contentType,
    labels: record.labels,
    metadata: record.metadata,
    size_bytes: record.sizeBytes,
    sha256: record.sha256,
    version: record.version,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

export const toArtifact = (record: ArtifactRecord): Artifact => ({ ...toSummary(record), content: record.content });

/** The current version of an artifact, as a version record. */
export const currentVersion = (record: ArtifactRecord): ArtifactVersionRecord & { content: string } => ({
  version: record.version,
  content: record.content,
  contentType: record.contentType,
  sizeBytes: record.sizeBytes,
  sha256: record.sha256,
  createdAt: record.versionCreatedAt,
});

export const toVersionSummary = (version: ArtifactVersionRecord, current: boolean): VersionSummary => ({
  version: version.version,
  size_bytes: version.sizeBytes,
  sha256: version.sha256,
  content_type: version.contentType,
  created_at: version.createdAt,
  current,
});

export const toVersion = (version: ArtifactVersionRecord & { content: string }, current: boolean): ArtifactVersion => ({
  version: version.version,
  content: version.content,
  content_type: version.contentType,
  size_bytes: version.sizeBytes,
  sha256: version.sha256,
  created_at: version.createdAt,
  current,
});

/**
 * How an artifact list item shrinks in a budgeted answer (lists never carry content): title (never below 80
 * characters), description and content type (never below 60) cut, labels to the leading ones that fit,
 * metadata longer than the cut left out (`{}`). Its id, project, slug, size, hash and version stay.
 */
export const artifactListItemPreview: PreviewShape<ArtifactListItem> = {
  extent: (a) =>
    Math.max(a.title.length, a.description.length, a.content_type.length, partLength(a.labels), partLength(a.metadata)),
  preview: (a, cut) => ({
    ...a,
    title: cutText(a.title, Math.max(cut, 80)),
    description: cutText(a.description, cut),
    content_type: cutText(a.content_type, Math.max(cut, 60)),
    labels: leadingFitting(a.labels, Math.max(cut, 100)),
    metadata: partLength(a.metadata) <= cut ? a.metadata : {},
    truncated: true,
  }),
};
