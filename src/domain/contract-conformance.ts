/**
 * The contract (src/contract) states the API's shapes for the clients; the schemas here produce them. Each
 * line below fails to compile when a schema's inferred type and its contract type differ in any way (a field
 * added, removed, renamed, made optional or given another type), so the two cannot drift apart. Types only:
 * nothing here runs.
 */
import type { z } from 'zod';
import type * as contract from '../contract/index.js';
import type { ApiKeyView, adminUserPatch, createKeyInput, Me, UserView } from './accounts/account-schemas.js';
import type {
  Artifact,
  ArtifactList,
  ArtifactListItem,
  ArtifactSummary,
  ArtifactVersion,
  ArtifactWritten,
  CreateArtifactInput,
  UpdateArtifactInput,
  VersionSummary,
  versionListSchema,
} from './artifacts/artifact-schemas.js';
import type { AuditEvent, AuditList } from './audit/audit-schemas.js';
import type { BundleCounts, ImportResult } from './bundles/bundle-schemas.js';
import type {
  CreateMemoryInput,
  Memory,
  MemoryCreated,
  MemoryList,
  MemoryWritten,
  Metadata,
  PossibleDuplicate,
  RankedMemory,
  ScoreParts,
  UpdateMemoryInput,
} from './memories/memory-schemas.js';
import type {
  MemoryRestored,
  MemoryVersion,
  MemoryVersionList,
  MemoryVersionSummary,
  RestoreMemoryInput,
} from './memories/memory-version-schemas.js';
import type {
  CreatePromptInput,
  Prompt,
  PromptCreated,
  PromptEnvironment,
  PromptEnvironmentList,
  PromptEnvironmentSet,
  PromptList,
  PromptListItem,
  PromptSummary,
  PromptUpdated,
  PromptVersion,
  PromptVersionList,
  PromptVersionSummary,
  RenderPromptInput,
  RenderResult,
  RestorePromptInput,
  SetPromptEnvironmentInput,
  UpdatePromptInput,
  variableSchemaSchema,
} from './prompts/prompt-schemas.js';

/** True only when A and B are the same type (not merely assignable one way). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Holds<T extends true> = T;

export type ContractConformance = [
  // Accounts
  Holds<Same<UserView, contract.User>>,
  Holds<Same<ApiKeyView, contract.ApiKey>>,
  Holds<Same<Me, contract.Me>>,
  Holds<Same<z.input<typeof createKeyInput>, contract.CreateKeyInput>>,
  Holds<Same<z.input<typeof adminUserPatch>['tier'], contract.Tier | undefined>>,
  // Prompts
  Holds<Same<z.infer<typeof variableSchemaSchema>, contract.VariableSchema>>,
  Holds<Same<PromptSummary, contract.PromptSummary>>,
  Holds<Same<Prompt, contract.Prompt>>,
  Holds<Same<PromptListItem, contract.PromptListItem>>,
  Holds<Same<PromptList, contract.PromptList>>,
  Holds<Same<PromptCreated, contract.PromptCreated>>,
  Holds<Same<PromptUpdated, contract.PromptUpdated>>,
  Holds<Same<PromptVersionSummary, contract.PromptVersionSummary>>,
  Holds<Same<PromptVersion, contract.PromptVersion>>,
  Holds<Same<PromptVersionList, contract.PromptVersionList>>,
  Holds<Same<RenderResult, contract.RenderResult>>,
  Holds<Same<CreatePromptInput, contract.CreatePromptInput>>,
  Holds<Same<UpdatePromptInput, contract.UpdatePromptInput>>,
  Holds<Same<RestorePromptInput, contract.RestorePromptInput>>,
  Holds<Same<PromptEnvironment, contract.PromptEnvironment>>,
  Holds<Same<PromptEnvironmentList, contract.PromptEnvironmentList>>,
  Holds<Same<PromptEnvironmentSet, contract.PromptEnvironmentSet>>,
  Holds<Same<SetPromptEnvironmentInput, contract.SetPromptEnvironmentInput>>,
  Holds<Same<RenderPromptInput, contract.RenderPromptInput>>,
  // Memories
  Holds<Same<Memory, contract.Memory>>,
  Holds<Same<Metadata, contract.MemoryMetadata>>,
  Holds<Same<ScoreParts, contract.ScoreParts>>,
  Holds<Same<RankedMemory, contract.RankedMemory>>,
  Holds<Same<MemoryList, contract.MemoryList>>,
  Holds<Same<MemoryWritten, contract.MemoryWritten>>,
  Holds<Same<MemoryCreated, contract.MemoryCreated>>,
  Holds<Same<PossibleDuplicate, contract.PossibleDuplicate>>,
  Holds<Same<CreateMemoryInput, contract.CreateMemoryInput>>,
  Holds<Same<UpdateMemoryInput, contract.UpdateMemoryInput>>,
  Holds<Same<MemoryVersionSummary, contract.MemoryVersionSummary>>,
  Holds<Same<MemoryVersion, contract.MemoryVersion>>,
  Holds<Same<MemoryVersionList, contract.MemoryVersionList>>,
  Holds<Same<RestoreMemoryInput, contract.RestoreMemoryInput>>,
  Holds<Same<MemoryRestored, contract.MemoryRestored>>,
  // Artifacts
  Holds<Same<ArtifactSummary, contract.ArtifactSummary>>,
  Holds<Same<Artifact, contract.Artifact>>,
  Holds<Same<ArtifactListItem, contract.ArtifactListItem>>,
  Holds<Same<ArtifactList, contract.ArtifactList>>,
  Holds<Same<ArtifactWritten, contract.ArtifactWritten>>,
  Holds<Same<VersionSummary, contract.ArtifactVersionSummary>>,
  Holds<Same<ArtifactVersion, contract.ArtifactVersion>>,
  Holds<Same<z.infer<typeof versionListSchema>, contract.ArtifactVersionList>>,
  Holds<Same<CreateArtifactInput, contract.CreateArtifactInput>>,
  Holds<Same<UpdateArtifactInput, contract.UpdateArtifactInput>>,
  // Export and import
  Holds<Same<BundleCounts, contract.BundleCounts>>,
  Holds<Same<ImportResult, contract.ImportResult>>,
  // Audit trail
  Holds<Same<AuditEvent, contract.AuditEvent>>,
  Holds<Same<AuditList, contract.AuditList>>,
];
