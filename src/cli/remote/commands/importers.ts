import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import { type Artifact, type Memory, PROMPT_STATUSES } from '../../../contract/index.js';
import { sameJson } from '../../../domain/common/json.js';
import { slugify } from '../../../domain/common/slug.js';
import { CliError, EXIT, printJson, say } from '../../output.js';
import { type ApiClient, artifactPath } from '../client/api.js';
import { contentTypeFor } from '../client/content-type.js';
import { parseFrontMatter } from '../client/front-matter.js';
import { createMemoriesInBatches } from '../client/memory-batches.js';
import { graphToMemories, type MemoryDraft, SOURCE } from '../client/memory-jsonl.js';
import { readTextFile, stem } from '../client/options.js';
import type { PromptFile } from '../client/prompt-file.js';
import { connect } from '../client/terminal.js';
import { putArtifact } from './artifacts.js';
import { pushPromptFile } from './prompt-files.js';

type Outcome = 'created' | 'updated' | 'unchanged' | 'failed' | 'conflict';
interface Result {
  source: string;
  target: string;
  outcome: Outcome;
  reason?: string;
}

function report(results: Result[], json: boolean | undefined, dryRun: boolean | undefined): void {
  if (json) printJson(results);
  else {
    for (const r of results) {
      if (r.outcome !== 'unchanged') {
        say(`${r.outcome.padEnd(9)} ${r.source} → ${r.target}${r.reason ? `: ${r.reason}` : ''}\n`);
      }
    }
    const n = (o: Outcome) => results.filter((r) => r.outcome === o).length;
    const failed = n('failed') + n('conflict');
    say(
      `${dryRun ? 'Dry run' : 'Imported'}: ${n('created')} created, ${n('updated')} updated, ${n('unchanged')} unchanged${failed ? `, ${failed} failed` : ''}\n`,
    );
  }
  const failed = results.filter((r) => r.outcome === 'failed' || r.outcome === 'conflict').length;
  if (failed > 0) throw new CliError(`${failed} item${failed === 1 ? '' : 's'} could not be imported`, EXIT.failure);
}

/** Every memory of the project (exactly that project; global when none) that an earlier run imported. */
async function importedMemories(client: ApiClient, project: string | undefined): Promise<Map<string, Memory>> {
  const found = new Map<string, Memory>();
  for (const memory of await client.memories.all({ project_name: project })) {
    const { metadata } = memory;
    if (
      metadata?.source === SOURCE &&
      typeof metadata.entity === 'string' &&
      memory.project_name === (project ?? null)
    ) {
      found.set(metadata.entity, memory);
    }
  }
  return found;
}

const IMPORTED_KEYS = ['title', 'category', 'tags', 'source', 'entity'] as const;

/** The PUT body that brings an imported memory up to date, or undefined when it already is. */
export function memoryUpdate(
  existing: Pick<Memory, 'text' | 'metadata'>,
  draft: MemoryDraft,
): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  for (const key of IMPORTED_KEYS) {
    const wanted = draft.metadata[key];
    if (!sameJson(existing.metadata?.[key] ?? null, wanted ?? null)) patch[key] = wanted ?? null;
  }
  const body: Record<string, unknown> = {};
  if (existing.text !== draft.text) body.text = draft.text;
  if (Object.keys(patch).length > 0) body.metadata = patch;
  return Object.keys(body).length > 0 ? body : undefined;
}

function markdownFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && /\.(md|markdown)$/i.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    throw new CliError(`cannot read the directory ${dir}: ${(error as NodeJS.ErrnoException).code}`, EXIT.notFound);
  }
}

const firstHeading = (body: string) => /^#\s+(.+?)\s*#*\s*$/m.exec(body)?.[1];
const stringOr = (value: unknown, fallback?: string) =>
  typeof value === 'string' && value.trim() !== '' ? value : fallback;
const stringList = (value: unknown): string[] | undefined =>
  Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string')
    : typeof value === 'string'
      ? value
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean)
      : undefined;

/** A Markdown file from elsewhere as a prompt: front matter honoured where it names our fields. */
export function markdownToPrompt(name: string, text: string): PromptFile {
  // Without front matter the body is the whole text.
  const { data = {}, body: content } = parseFrontMatter(text, name);
  const fallbackSlug = slugify(stem(name), 'prompt');
  const status = PROMPT_STATUSES.find((s) => s === data.status) ?? 'draft';
  return {
    slug: stringOr(data.slug, fallbackSlug) as string,
    title: stringOr(data.title, firstHeading(content) ?? stem(name)) as string,
    description: stringOr(data.description, '') as string,
    labels: stringList(data.labels ?? data.tags) ?? [],
    status,
    available_in_mcp: data.available_in_mcp === true,
    variable_schema:
      data.variable_schema && typeof data.variable_schema === 'object' && !Array.isArray(data.variable_schema)
        ? (data.variable_schema as Record<string, unknown>)
        : {},
    // Same convention as prompt files: one final newline is the file's, not the content's.
    content: content.endsWith('\n') ? content.slice(0, -1) : content,
  };
}

/** Errors of one item (bad input, conflicts) are reported per item; anything else stops the run. */
async function perItem(
  source: string,
  target: string,
  work: () => Promise<Omit<Result, 'source' | 'target'>>,
): Promise<Result> {
  try {
    return { source, target, ...(await work()) };
  } catch (error) {
    if (
      error instanceof CliError &&
      (error.exitCode === EXIT.usage || error.exitCode === EXIT.conflict || error.exitCode === EXIT.notFound)
    ) {
      return { source, target, outcome: 'failed', reason: error.message };
    }
    throw error;
  }
}

export function registerImporters(importCommand: Command): void {
  importCommand
    .command('memory-jsonl')
    .description(
      'Import the MCP reference memory server’s memory.jsonl: one memory per entity (observations and relations as text); re-runs update instead of duplicating',
    )
    .argument('<file>', 'memory.jsonl')
    .option('--project <name>', 'put the memories in this project (default: global)')
    .option('--dry-run', 'report what would change, change nothing')
    .option('--json', 'print [{source, target, outcome}] as JSON')
    .action(async (file: string, options: { project?: string; dryRun?: boolean; json?: boolean }) => {
      const drafts = graphToMemories(readTextFile(file), options.project, file);
      const client = connect();
      const existing = await importedMemories(client, options.project);
      const results: Result[] = [];
      // New memories go in batches (POST /memories/batch) once the updates are done; their results keep their place.
      const created: Array<{ draft: MemoryDraft; result: Result }> = [];
      for (const draft of drafts) {
        const entity = draft.metadata.entity;
        const found = existing.get(entity);
        if (!found) {
          const result: Result = { source: entity, target: 'new memory', outcome: 'created' };
          results.push(result);
          created.push({ draft, result });
          continue;
        }
        results.push(
          await perItem(entity, found.memory_id, async () => {
            const update = memoryUpdate(found, draft);
            if (!update) return { outcome: 'unchanged' };
            if (!options.dryRun)
              await client.json('PUT', `/memories/${encodeURIComponent(found.memory_id)}`, { json: update });
            return { outcome: 'updated' };
          }),
        );
      }
      if (!options.dryRun) {
        const outcomes = await createMemoriesInBatches(
          client,
          created.map(({ draft }) => draft),
        );
        for (const [i, { result }] of created.entries()) {
          const outcome = outcomes[i];
          if (outcome && !outcome.created) Object.assign(result, { outcome: 'failed', reason: outcome.reason });
        }
      }
      report(results, options.json, options.dryRun);
    });

  importCommand
    .command('markdown')
    .description(
      'Import a directory of Markdown files (front matter honoured) as artifacts of a project, or as prompts',
    )
    .argument('<dir>', 'directory; its *.md files are imported (not subdirectories)')
    .addOption(
      new Option('--as <kind>', 'what each file becomes').choices(['artifacts', 'prompts']).makeOptionMandatory(),
    )
    .option('--project <name>', 'the project of the artifacts (required with --as artifacts)')
    .option('--dry-run', 'report what would change, change nothing')
    .option('--json', 'print [{source, target, outcome}] as JSON')
    .action(
      async (
        dir: string,
        options: { as: 'artifacts' | 'prompts'; project?: string; dryRun?: boolean; json?: boolean },
      ) => {
        if (options.as === 'artifacts' && !options.project) {
          throw new CliError('--as artifacts needs --project NAME', EXIT.usage);
        }
        const files = markdownFiles(dir).map((name) => ({ name, text: readTextFile(join(dir, name)) }));
        const client = connect();
        const results: Result[] = [];
        for (const { name, text } of files) {
          if (options.as === 'prompts') {
            const prompt = markdownToPrompt(name, text);
            results.push(
              await perItem(name, `prompt ${prompt.slug}`, () =>
                pushPromptFile(client, prompt, { force: true, dryRun: options.dryRun }),
              ),
            );
            continue;
          }
          const project = options.project as string;
          const { data: fields = {}, body: content } = parseFrontMatter(text, name);
          const slug = stringOr(fields.slug, slugify(stem(name), 'artifact')) as string;
          const wanted = {
            title: stringOr(fields.title, firstHeading(content) ?? stem(name)) as string,
            description: stringOr(fields.description),
            content_type: stringOr(fields.content_type, contentTypeFor(name)),
            labels: stringList(fields.labels ?? fields.tags),
          };
          results.push(
            await perItem(name, `${project}/${slug}`, async () => {
              const response = await client.send('GET', artifactPath(project, slug), { allow: [404] });
              if (response.status !== 404) {
                const current = (await response.json()) as Artifact;
                const same =
                  current.content === content &&
                  current.title === wanted.title &&
                  (wanted.description === undefined || current.description === wanted.description) &&
                  (wanted.content_type === undefined || current.content_type === wanted.content_type) &&
                  (wanted.labels === undefined || sameJson(current.labels, wanted.labels));
                if (same) return { outcome: 'unchanged' };
                if (options.dryRun) return { outcome: 'updated' };
              } else {
                await response.body?.cancel();
                if (options.dryRun) return { outcome: 'created' };
              }
              const { created } = await putArtifact(client, { project, slug }, content, wanted, wanted.title);
              return { outcome: created ? 'created' : 'updated' };
            }),
          );
        }
        report(results, options.json, options.dryRun);
      },
    );
}
