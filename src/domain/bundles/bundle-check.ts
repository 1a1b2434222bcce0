import { MAX_PROMPT_ENVIRONMENTS } from '../../contract/index.js';
import { oversize } from '../artifacts/artifact-records.js';
import { contentTypeSchema, createArtifactBody } from '../artifacts/artifact-schemas.js';
import { measureInput } from '../common/bounds.js';
import { sha256Hex } from '../common/digest.js';
import { ValidationError } from '../common/errors.js';
import { canonicalJson, sameJson } from '../common/json.js';
import { isValidSlug } from '../common/slug.js';
import { issuesToDetails } from '../common/validation.js';
import { createMemoryBody } from '../memories/memory-schemas.js';
import { createPromptBody } from '../prompts/prompt-schemas.js';
import { extractVariables } from '../prompts/template.js';
import { schemaMismatch } from '../prompts/variables.js';
import type { RawLine } from './bundle-lines.js';
import { artifactInput, noCounts, promptInput, versionInput } from './bundle-mapping.js';
import {
  type BundleArtifact,
  type BundleArtifactVersion,
  type BundleCounts,
  type BundlePrompt,
  bundleLine,
} from './bundle-schemas.js';

/** The problems reported at most, so a wrong file gives a readable answer rather than a flood. */
const MAX_PROBLEMS = 20;

/** The line types the end line counts, by type. */
const COUNTED = new Map<unknown, keyof BundleCounts>([
  ['prompt', 'prompts'],
  ['memory', 'memories'],
  ['artifact', 'artifacts'],
]);

/** Pass 1: every line checked; throws a ValidationError naming up to 20 problems by line. */
export async function checkBundle(maxArtifactBytes: number, lines: AsyncIterable<RawLine>): Promise<void> {
  const problems: Record<string, string> = {};
  const problem = (line: number, message: string) => {
    if (Object.keys(problems).length < MAX_PROBLEMS) problems[`line ${line}`] ??= message;
  };
  const fieldProblems = (line: number, details: Record<string, string>) => {
    const [first] = Object.entries(details);
    if (first) problem(line, `${first[0]}: ${first[1]}`);
  };
  const seen = { prompts: new Set<string>(), memories: new Set<string>(), artifacts: new Set<string>() };
  const counts = noCounts();
  let header = false;
  let end: { line: number; counts: BundleCounts } | undefined;
  let lastArtifact: { address: string; version: number; versions: Set<number> } | undefined;
  let lastMemory: { id: string; version: number; versions: Set<number> } | undefined;
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
    if (item.type !== 'memory' && item.type !== 'memory_version') lastMemory = undefined;
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
        lastMemory = { id: item.memory_id, version: item.version ?? 1, versions: new Set() };
        break;
      }
      case 'memory_version': {
        if (!lastMemory || lastMemory.id !== item.memory_id) {
          problem(number, `A version of memory '${item.memory_id}' must follow that memory's line`);
        } else if (item.version >= lastMemory.version || lastMemory.versions.has(item.version)) {
          problem(number, `Version ${item.version} of memory '${item.memory_id}' is not a distinct earlier version`);
        } else {
          lastMemory.versions.add(item.version);
        }
        const result = createMemoryBody.safeParse({
          text: item.text,
          project_name: item.project_name,
          metadata: item.metadata,
        });
        if (!result.success) fieldProblems(number, issuesToDetails(result.error.issues));
        break;
      }
      case 'artifact': {
        counts.artifacts++;
        const details = checkArtifact(maxArtifactBytes, item);
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
        const details = checkArtifactVersion(maxArtifactBytes, item);
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
    problem(end.line, `The end line counts ${canonicalJson(end.counts)} but the bundle holds ${canonicalJson(counts)}`);
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
  return checkEnvironments(p);
}

/** Pointers: names by the slug rules, distinct, at most MAX_PROMPT_ENVIRONMENTS, each to a version on the line. */
function checkEnvironments(p: BundlePrompt): Record<string, string> | undefined {
  const environments = p.environments ?? [];
  if (environments.length > MAX_PROMPT_ENVIRONMENTS) {
    return { environments: `A prompt has at most ${MAX_PROMPT_ENVIRONMENTS} environments` };
  }
  const versions = new Set([p.version, ...p.versions.map((v) => v.version)]);
  const names = new Set<string>();
  for (const [index, environment] of environments.entries()) {
    if (!isValidSlug(environment.name)) {
      return { [`environments.${index}.name`]: 'Environment names follow the slug rules' };
    }
    if (names.has(environment.name)) return { [`environments.${index}.name`]: 'A second environment of this name' };
    names.add(environment.name);
    if (!versions.has(environment.version)) {
      return { [`environments.${index}.version`]: `No version ${environment.version} on this line` };
    }
  }
  if (environments.filter((e) => e.marketplace).length > 1) {
    return { environments: 'At most one environment is marked for the marketplace' };
  }
  return undefined;
}

function checkPromptContent(input: unknown): Record<string, string> | undefined {
  const result = createPromptBody.safeParse(input);
  if (!result.success) return issuesToDetails(result.error.issues);
  const mismatch = schemaMismatch(result.data.variable_schema ?? {}, extractVariables(result.data.content));
  return mismatch ? { variable_schema: mismatch } : undefined;
}

function checkArtifact(maxBytes: number, a: BundleArtifact): Record<string, string> | undefined {
  const result = createArtifactBody.safeParse(artifactInput(a));
  if (!result.success) return issuesToDetails(result.error.issues);
  return checkContent(maxBytes, a.content, a.sha256, a.size_bytes);
}

/** A kept version passes the rules of live content: its size and its content type. */
function checkArtifactVersion(maxBytes: number, v: BundleArtifactVersion): Record<string, string> | undefined {
  const type = contentTypeSchema.safeParse(v.content_type);
  if (!type.success) return { content_type: issuesToDetails(type.error.issues).body ?? 'Invalid content type' };
  return checkContent(maxBytes, v.content, v.sha256, v.size_bytes);
}

function checkContent(
  maxBytes: number,
  content: string,
  hash?: string,
  size?: number,
): Record<string, string> | undefined {
  const bytes = Buffer.byteLength(content, 'utf8');
  const tooLarge = oversize(bytes, maxBytes);
  if (tooLarge) return { content: tooLarge };
  if (hash !== undefined && hash !== sha256Hex(content)) return { sha256: 'Does not match the content' };
  if (size !== undefined && size !== bytes) return { size_bytes: 'Does not match the content' };
  return undefined;
}
