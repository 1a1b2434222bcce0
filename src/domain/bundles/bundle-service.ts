import { contentTypeSchema, createArtifactBody } from '../artifacts/artifact-schemas.js';
import { type ArtifactService, artifactUnchanged, newArtifactRecord, oversize } from '../artifacts/artifact-service.js';
import type { ArtifactStore } from '../artifacts/artifact-store.js';
import type { Actor } from '../common/actor.js';
import { measureInput } from '../common/bounds.js';
import type { Clock } from '../common/clock.js';
import { sha256Hex } from '../common/digest.js';
import { ConflictError, PayloadTooLargeError, ValidationError } from '../common/errors.js';
import { derivedId, type IdGenerator, isId } from '../common/ids.js';
import { canonicalJson, sameJson } from '../common/json.js';
import { issuesToDetails } from '../common/validation.js';
import { createMemoryBody } from '../memories/memory-schemas.js';
import { memoryUnchanged } from '../memories/memory-service.js';
import type { MemoryStore } from '../memories/memory-store.js';
import { createPromptBody, type PromptVersion } from '../prompts/prompt-schemas.js';
import { newPromptRecord, type PromptService, promptUnchanged } from '../prompts/prompt-service.js';
import type { PromptRecord, PromptStore } from '../prompts/prompt-store.js';
import { extractVariables } from '../prompts/template.js';
import { schemaMismatch } from '../prompts/variables.js';
import type { RawLine } from './bundle-lines.js';
import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  type BundleArtifact,
  type BundleArtifactVersion,
  type BundleCounts,
  type BundleLine,
  type BundleMemory,
  type BundlePrompt,
  type BundlePromptVersion,
  bundleLine,
  type ImportResult,
} from './bundle-schemas.js';
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
}

export type { RawLine };

/** The problems reported at most, so a wrong file gives a readable answer rather than a flood. */
const MAX_PROBLEMS = 20;
const IMPORT_MESSAGE = 'Imported';

/** The line types the end line counts, by type. */
const COUNTED = new Map<unknown, keyof BundleCounts>([
  ['prompt', 'prompts'],
  ['memory', 'memories'],
  ['artifact', 'artifacts'],
]);

const zero = (): BundleCounts => ({ prompts: 0, memories: 0, artifacts: 0 });

/**
 * The id a memory gets in this account when its own id is taken by someone else's memory (a bundle
 * imported into a second account): derived from the account and the original id, so importing the same
 * bundle again finds it (idempotent) without ever revealing whose the original id is.
 */
const derivedMemoryId = (userId: string, id: string) => derivedId('mem', `${userId}\n${id}`);

/**
 * Export and import of a user's whole content as a JSON Lines bundle (see bundle-schemas.ts). Export
 * streams in bounded batches. Import reads the bundle twice: first it checks every line (shape, the
 * create endpoints' rules, order, counts) and changes nothing if any is wrong; then it applies each item in
 * its own transaction. Items are matched (prompts by slug, memories by id, artifacts by project and slug),
 * so importing a bundle again changes nothing, and an interrupted import completes when run again.
 */
export function createBundleService(deps: BundleServiceDeps) {
  const { bundles, clock, ids } = deps;

  async function* exportBundle(actor: Actor): AsyncGenerator<BundleLine> {
    const userId = actor.userId;
    const counts = zero();
    yield { type: 'header', format: BUNDLE_FORMAT, version: BUNDLE_VERSION, exported_at: clock.now().toISOString() };

    for (let after = ''; ; ) {
      const batch = await bundles.prompts(userId, after, 100);
      if (batch.length === 0) break;
      const versions = await bundles.promptVersions(
        userId,
        batch.map((p) => p.id),
      );
      for (const p of batch) {
        counts.prompts++;
        yield promptLine(p, versions.get(p.id) ?? []);
      }
      after = (batch[batch.length - 1] as PromptRecord).id;
    }

    for (let after = 0; ; ) {
      const batch = await bundles.memories(userId, after, 500);
      if (batch.length === 0) break;
      for (const m of batch) {
        counts.memories++;
        yield {
          type: 'memory',
          memory_id: m.id,
          text: m.text,
          project_name: m.projectName,
          metadata: m.metadata,
          created_at: m.createdAt,
          updated_at: m.updatedAt,
          last_accessed_at: m.lastAccessedAt,
        };
      }
      after = batch[batch.length - 1]?.seq ?? after;
    }

    // Artifacts are large: a few at a time, and their kept versions a few at a time.
    for (let after = 0; ; ) {
      const batch = await bundles.artifacts(userId, after, 10);
      if (batch.length === 0) break;
      for (const a of batch) {
        counts.artifacts++;
        yield {
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
        };
        for (let afterVersion = 0; ; ) {
          const versions = await bundles.artifactVersions(userId, a.id, afterVersion, 10);
          if (versions.length === 0) break;
          for (const v of versions) {
            yield {
              type: 'artifact_version',
              project: a.project,
              slug: a.slug,
              version: v.version,
              content: v.content,
              content_type: v.contentType,
              size_bytes: v.sizeBytes,
              sha256: v.sha256,
              created_at: v.createdAt,
            };
          }
          afterVersion = versions[versions.length - 1]?.version ?? afterVersion;
        }
      }
      after = batch[batch.length - 1]?.seq ?? after;
    }

    yield { type: 'end', counts };
  }

  function promptLine(p: PromptRecord, versions: PromptVersion[]): BundlePrompt {
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
    };
  }

  /** Pass 1: every line checked; throws a ValidationError naming up to 20 problems by line. */
  async function check(lines: AsyncIterable<RawLine>): Promise<void> {
    const problems: Record<string, string> = {};
    const problem = (line: number, message: string) => {
      if (Object.keys(problems).length < MAX_PROBLEMS) problems[`line ${line}`] ??= message;
    };
    const fieldProblems = (line: number, details: Record<string, string>) => {
      const [first] = Object.entries(details);
      if (first) problem(line, `${first[0]}: ${first[1]}`);
    };
    const seen = { prompts: new Set<string>(), memories: new Set<string>(), artifacts: new Set<string>() };
    const counts = zero();
    let header = false;
    let end: { line: number; counts: BundleCounts } | undefined;
    let lastArtifact: { address: string; version: number; versions: Set<number> } | undefined;
    let lastNumber = 0;

    for await (const { number, text } of lines) {
      lastNumber = number;
      if (text.trim() === '') continue;
      if (Object.keys(problems).length >= MAX_PROBLEMS) break;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        problem(number, 'Not valid JSON');
        continue;
      }
      const parsed = bundleLine.safeParse(json);
      // U+0000 anywhere is refused as in live content (PostgreSQL cannot store it); the line's size is
      // bounded by IMPORT_MAX_LINE_BYTES, so only the text is checked here, not the request budgets.
      const nul = measureInput(json, 'line', false).text;
      if (!parsed.success || nul) {
        fieldProblems(number, { ...nul, ...(parsed.success ? {} : issuesToDetails(parsed.error.issues)) });
        // Still counted by its type, so one bad item is not also reported as a wrong end count.
        const kind = COUNTED.get((json as { type?: unknown } | null)?.type);
        if (kind) counts[kind]++;
        continue;
      }
      const item = parsed.data;
      if (end) problem(number, 'Nothing may follow the end line');
      if (!header && item.type !== 'header') {
        problem(number, 'The bundle must start with its header line');
        header = true;
      }
      if (item.type !== 'artifact' && item.type !== 'artifact_version') lastArtifact = undefined;
      switch (item.type) {
        case 'header':
          if (header) problem(number, 'A second header line');
          header = true;
          break;
        case 'prompt': {
          counts.prompts++;
          const details = checkPrompt(item);
          if (details) fieldProblems(number, details);
          if (seen.prompts.has(item.slug)) problem(number, `A second prompt with slug '${item.slug}'`);
          seen.prompts.add(item.slug);
          break;
        }
        case 'memory': {
          counts.memories++;
          const result = createMemoryBody.safeParse({
            text: item.text,
            project_name: item.project_name,
            metadata: item.metadata,
          });
          if (!result.success) fieldProblems(number, issuesToDetails(result.error.issues));
          if (seen.memories.has(item.memory_id)) problem(number, `A second memory with id '${item.memory_id}'`);
          seen.memories.add(item.memory_id);
          break;
        }
        case 'artifact': {
          counts.artifacts++;
          const details = checkArtifact(item);
          if (details) fieldProblems(number, details);
          const address = `${item.project}/${item.slug}`;
          if (seen.artifacts.has(address)) problem(number, `A second artifact at '${address}'`);
          seen.artifacts.add(address);
          lastArtifact = { address, version: item.version, versions: new Set() };
          break;
        }
        case 'artifact_version': {
          const address = `${item.project}/${item.slug}`;
          if (!lastArtifact || lastArtifact.address !== address) {
            problem(number, `A version of '${address}' must follow that artifact's line`);
          } else if (item.version >= lastArtifact.version || lastArtifact.versions.has(item.version)) {
            problem(number, `Version ${item.version} of '${address}' is not a distinct earlier version`);
          } else {
            lastArtifact.versions.add(item.version);
          }
          const details = checkArtifactVersion(item);
          if (details) fieldProblems(number, details);
          break;
        }
        case 'end':
          end = { line: number, counts: item.counts };
          break;
      }
    }
    if (!header && Object.keys(problems).length === 0) problem(1, 'The bundle is empty');
    if (!end) problem(lastNumber + 1, 'The end line is missing: the bundle is truncated');
    else if (!sameJson(end.counts, counts)) {
      problem(
        end.line,
        `The end line counts ${canonicalJson(end.counts)} but the bundle holds ${canonicalJson(counts)}`,
      );
    }
    if (Object.keys(problems).length > 0) {
      const [first] = Object.entries(problems);
      throw new ValidationError(problems, `The bundle is invalid (${first?.[0]}: ${first?.[1]})`);
    }
  }

  /** The prompt and every version of its history pass the rules of live content (as create checks them). */
  function checkPrompt(p: BundlePrompt): Record<string, string> | undefined {
    const current = checkPromptContent(promptInput(p));
    if (current) return current;
    const numbers = p.versions.map((v) => v.version);
    if (new Set(numbers).size !== numbers.length || numbers.some((n) => n > p.version)) {
      return { versions: 'Version numbers must be distinct and at most the current version' };
    }
    for (const [index, version] of p.versions.entries()) {
      const details = checkPromptContent(versionInput(version));
      if (details) {
        return Object.fromEntries(
          Object.entries(details).map(([field, message]) => [`versions.${index}.${field}`, message]),
        );
      }
    }
    return undefined;
  }

  function checkPromptContent(input: unknown): Record<string, string> | undefined {
    const result = createPromptBody.safeParse(input);
    if (!result.success) return issuesToDetails(result.error.issues);
    const mismatch = schemaMismatch(result.data.variable_schema ?? {}, extractVariables(result.data.content));
    return mismatch ? { variable_schema: mismatch } : undefined;
  }

  function checkArtifact(a: BundleArtifact): Record<string, string> | undefined {
    const result = createArtifactBody.safeParse(artifactInput(a));
    if (!result.success) return issuesToDetails(result.error.issues);
    return checkContent(a.content, a.sha256, a.size_bytes);
  }

  /** A kept version passes the rules of live content: its size and its content type. */
  function checkArtifactVersion(v: BundleArtifactVersion): Record<string, string> | undefined {
    const type = contentTypeSchema.safeParse(v.content_type);
    if (!type.success) return { content_type: issuesToDetails(type.error.issues).body ?? 'Invalid content type' };
    return checkContent(v.content, v.sha256, v.size_bytes);
  }

  function checkContent(content: string, hash?: string, size?: number): Record<string, string> | undefined {
    const bytes = Buffer.byteLength(content, 'utf8');
    const tooLarge = oversize(bytes, deps.maxArtifactBytes);
    if (tooLarge) return { content: tooLarge };
    if (hash !== undefined && hash !== sha256Hex(content)) return { sha256: 'Does not match the content' };
    if (size !== undefined && size !== bytes) return { size_bytes: 'Does not match the content' };
    return undefined;
  }

  const promptInput = (p: BundlePrompt) => ({
    title: p.title,
    content: p.content,
    description: p.description,
    status: p.status,
    available_in_mcp: p.available_in_mcp,
    labels: p.labels,
    slug: p.slug,
    variable_schema: p.variable_schema,
  });

  const versionInput = (v: BundlePromptVersion) => ({
    title: v.title,
    content: v.content,
    description: v.description,
    labels: v.labels,
    variable_schema: v.variable_schema,
    commit_message: v.commit_message,
  });

  /** A version as stored: normalised by the same schema as live content (trimmed title, unique labels, …). */
  const keptPromptVersion = (v: BundlePromptVersion): PromptVersion => {
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

  const artifactInput = (a: BundleArtifact) => ({
    project: a.project,
    slug: a.slug,
    title: a.title,
    description: a.description,
    content: a.content,
    content_type: a.content_type,
    labels: a.labels,
    metadata: a.metadata,
  });

  /** Pass 2: each item created, updated or left alone (only counted in a dry run). */
  async function apply(actor: Actor, lines: AsyncIterable<RawLine>, dryRun: boolean): Promise<ImportResult> {
    const result: ImportResult = { dry_run: dryRun, created: zero(), updated: zero(), unchanged: zero() };
    /** The artifact just created, which takes the kept versions that follow it. */
    let fresh: { id: string; address: string } | undefined;
    for await (const { text } of lines) {
      if (text.trim() === '') continue;
      const item = bundleLine.parse(JSON.parse(text));
      if (item.type !== 'artifact_version') fresh = undefined;
      switch (item.type) {
        case 'prompt':
          result[await applyPrompt(actor, item, dryRun)].prompts++;
          break;
        case 'memory':
          result[await applyMemory(actor, item, dryRun)].memories++;
          break;
        case 'artifact': {
          const outcome = await applyArtifact(actor, item, dryRun);
          result[outcome.change].artifacts++;
          fresh = outcome.createdId ? { id: outcome.createdId, address: `${item.project}/${item.slug}` } : undefined;
          break;
        }
        case 'artifact_version':
          if (fresh && !dryRun && fresh.address === `${item.project}/${item.slug}`) {
            await bundles.insertArtifactVersion(actor.userId, fresh.id, keptVersion(item));
          }
          break;
        default:
          break;
      }
    }
    return result;
  }

  type Change = 'created' | 'updated' | 'unchanged';

  async function applyPrompt(actor: Actor, p: BundlePrompt, dryRun: boolean): Promise<Change> {
    const data = createPromptBody.parse(promptInput(p));
    const variableSchema = data.variable_schema ?? {};
    const existing = await deps.prompts.findBySlug(actor.userId, p.slug);
    if (existing) {
      const fields = {
        title: data.title,
        description: data.description,
        content: data.content,
        status: data.status,
        available_in_mcp: data.available_in_mcp,
        labels: data.labels,
        variable_schema: variableSchema,
      };
      if (promptUnchanged(existing, fields)) return 'unchanged';
      if (!dryRun) await deps.promptService.update(actor, existing.id, { ...fields, commit_message: IMPORT_MESSAGE });
      return 'updated';
    }
    if (dryRun) return 'created';
    const versions = p.versions.map(keptPromptVersion).sort((a, b) => a.version - b.version);
    if (!versions.some((v) => v.version === p.version)) {
      versions.push({
        version: p.version,
        title: data.title,
        description: data.description,
        content: data.content,
        labels: data.labels,
        variable_schema: variableSchema,
        commit_message: null,
        created_at: p.updated_at,
      });
    }
    const record = newPromptRecord(data, {
      id: isId('prm', p.id) ? p.id : ids('prm'),
      userId: actor.userId,
      slug: p.slug,
      version: p.version,
      createdAt: p.created_at,
      updatedAt: p.updated_at,
    });
    await insertWithFreeId(
      () => deps.prompts.insert(record, versions),
      async () => !(await deps.prompts.findBySlug(actor.userId, p.slug)),
      () => {
        record.id = ids('prm');
      },
    );
    return 'created';
  }

  async function applyMemory(actor: Actor, m: BundleMemory, dryRun: boolean): Promise<Change> {
    const data = createMemoryBody.parse({ text: m.text, project_name: m.project_name, metadata: m.metadata });
    const derived = derivedMemoryId(actor.userId, m.memory_id);
    const existing =
      (await deps.memories.findById(actor.userId, m.memory_id)) ??
      (await deps.memories.findById(actor.userId, derived));
    const projectName = data.project_name ?? null;
    const metadata = data.metadata ?? {};
    if (existing) {
      if (memoryUnchanged(existing, { text: data.text, projectName, metadata })) return 'unchanged';
      if (!dryRun) {
        await deps.memories.update(actor.userId, existing.id, { text: data.text, projectName, metadata }, m.updated_at);
      }
      return 'updated';
    }
    if (dryRun) return 'created';
    const record = {
      id: m.memory_id,
      userId: actor.userId,
      text: data.text,
      projectName,
      metadata,
      createdAt: m.created_at,
      updatedAt: m.updated_at,
      lastAccessedAt: m.last_accessed_at,
    };
    if (!(await bundles.insertMemory(record))) {
      // The id belongs to another account's memory: this account gets its own, stable one.
      if (!(await bundles.insertMemory({ ...record, id: derived }))) {
        throw new ConflictError(`Memory ${m.memory_id} could not be given an id; import again`);
      }
    }
    return 'created';
  }

  async function applyArtifact(
    actor: Actor,
    a: BundleArtifact,
    dryRun: boolean,
  ): Promise<{ change: Change; createdId?: string }> {
    const data = createArtifactBody.parse(artifactInput(a));
    const existing = await deps.artifacts.find(actor.userId, data.project, a.slug);
    if (existing) {
      const fields = {
        title: data.title,
        description: data.description,
        content: data.content,
        content_type: data.content_type,
        labels: data.labels,
        metadata: data.metadata,
      };
      if (artifactUnchanged(existing, fields)) return { change: 'unchanged' };
      if (!dryRun) await deps.artifactService.update(actor, data.project, a.slug, fields);
      return { change: 'updated' };
    }
    if (dryRun) return { change: 'created' };
    const record = newArtifactRecord(data, {
      id: isId('art', a.id) ? a.id : ids('art'),
      userId: actor.userId,
      slug: a.slug,
      version: a.version,
      versionCreatedAt: a.updated_at,
      createdAt: a.created_at,
      updatedAt: a.updated_at,
    });
    await insertWithFreeId(
      () => deps.artifacts.insert(record),
      async () => !(await deps.artifacts.find(actor.userId, data.project, a.slug)),
      () => {
        record.id = ids('art');
      },
    );
    return { change: 'created', createdId: record.id };
  }

  /**
   * Inserts keeping the bundle's id when it is free. A conflict while the address (slug) is still free
   * means the id is taken (the bundle came from another account on this server): a new id, once.
   */
  async function insertWithFreeId(
    insert: () => Promise<void>,
    addressFree: () => Promise<boolean>,
    renew: () => void,
  ): Promise<void> {
    try {
      await insert();
    } catch (error) {
      if (!(error instanceof ConflictError) || !(await addressFree())) throw error;
      renew();
      await insert();
    }
  }

  const keptVersion = (v: BundleArtifactVersion) => ({
    version: v.version,
    content: v.content,
    contentType: contentTypeSchema.parse(v.content_type),
    sizeBytes: Buffer.byteLength(v.content, 'utf8'),
    sha256: sha256Hex(v.content),
    createdAt: v.created_at,
  });

  return {
    export: exportBundle,

    /**
     * Imports a bundle. `lines` must give the bundle's lines afresh on each call (it is read twice).
     * Nothing changes unless every line is valid; `dryRun` only counts what would change.
     */
    async import(
      actor: Actor,
      lines: () => AsyncIterable<RawLine>,
      options: { dryRun: boolean },
    ): Promise<ImportResult> {
      await check(lines());
      return apply(actor, lines(), options.dryRun);
    },
  };
}

export type BundleService = ReturnType<typeof createBundleService>;

/** Thrown by the transport when a bundle is larger than it accepts. */
export const bundleTooLarge = (limit: number) =>
  new PayloadTooLargeError(`The bundle is larger than the import limit of ${limit} bytes`);
