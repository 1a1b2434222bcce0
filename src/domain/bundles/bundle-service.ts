import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { ArtifactStore } from '../artifacts/artifact-store.js';
import type { Actor } from '../common/actor.js';
import type { Clock } from '../common/clock.js';
import { PayloadTooLargeError } from '../common/errors.js';
import type { IdGenerator } from '../common/ids.js';
import type { MemoryStore } from '../memories/memory-store.js';
import type { PromptService } from '../prompts/prompt-service.js';
import type { PromptStore } from '../prompts/prompt-store.js';
import { checkBundle } from './bundle-check.js';
import { exportBundle } from './bundle-export.js';
import { applyBundle } from './bundle-import.js';
import type { RawLine } from './bundle-lines.js';
import type { ImportResult } from './bundle-schemas.js';
import type { BundleStore } from './bundle-store.js';

export interface BundleServiceDeps {
  bundles: BundleStore;
  prompts: PromptStore;
  memories: MemoryStore;
  artifacts: ArtifactStore;
  promptService: PromptService;
  artifactService: ArtifactService;
  clock: Clock;
  ids: IdGenerator;
  maxArtifactBytes: number;
  /** Previous versions kept per memory (MEMORY_VERSION_RETENTION). */
  memoryVersionRetention?: number;
  /** Told after an import wrote content (semantic search embeds the user's new memories in the background). */
  afterImport?: (userId: string) => void;
}

export type { RawLine };

/**
 * Export and import of a user's whole content as a JSON Lines bundle (see bundle-schemas.ts). Export
 * streams in bounded batches (bundle-export.ts). Import reads the bundle twice: first it checks every line
 * (shape, the create endpoints' rules, order, counts; bundle-check.ts) and changes nothing if any is wrong;
 * then it applies each item in its own transaction (bundle-import.ts). Items are matched (prompts by slug,
 * memories by id, artifacts by project and slug), so importing a bundle again changes nothing, and an
 * interrupted import completes when run again.
 */
export function createBundleService(deps: BundleServiceDeps) {
  return {
    export: (actor: Actor) => exportBundle(deps, actor),

    /**
     * Imports a bundle. `lines` must give the bundle's lines afresh on each call (it is read twice).
     * Nothing changes unless every line is valid; `dryRun` only counts what would change.
     */
    async import(
      actor: Actor,
      lines: () => AsyncIterable<RawLine>,
      options: { dryRun: boolean },
    ): Promise<ImportResult> {
      await checkBundle(deps.maxArtifactBytes, lines());
      const result = await applyBundle(deps, actor, lines(), options.dryRun);
      if (!options.dryRun) deps.afterImport?.(actor.userId);
      return result;
    },
  };
}

export type BundleService = ReturnType<typeof createBundleService>;

/** Thrown by the transport when a bundle is larger than it accepts. */
export const bundleTooLarge = (limit: number) =>
  new PayloadTooLargeError(`The bundle is larger than the import limit of ${limit} bytes`);
