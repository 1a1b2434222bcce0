import { type Command, Option } from 'commander';
import {
  MAX_PER_PAGE,
  type MemoryMetadata,
  PRIORITIES,
  type Priority,
  type RankedMemory,
  type UpdateMemoryInput,
} from '../../../contract/index.js';
import { CliError, EXIT, printJson, printTable, say } from '../../output.js';
import {
  type PageOptions,
  pageFooter,
  pageQuery,
  positiveInt,
  shortDate,
  type TextOptions,
  textFrom,
  withPageOptions,
  withTextOptions,
} from '../client/options.js';
import { collect, confirmDeletion, connect } from '../client/terminal.js';

interface MemoryOptions extends TextOptions {
  title?: string;
  project?: string;
  global?: boolean;
  category?: string;
  priority?: Priority;
  tag?: string[];
  json?: boolean;
  expiresAt?: string;
  ttl?: number;
  pin?: boolean;
  unpin?: boolean;
  clearExpiry?: boolean;
  supersedes?: string[];
  clearSupersedes?: boolean;
}

/**
 * A memory's lifecycle state as a list shows it: pinned (never hidden), superseded, expired (both hidden
 * from search and context), else the expiry to come, or nothing.
 */
export function memoryState(
  m: Pick<RankedMemory, 'expires_at' | 'pinned' | 'superseded_by'>,
  now: Date = new Date(),
): string {
  if (m.pinned) return 'pinned';
  if (m.superseded_by) return `superseded by ${m.superseded_by}`;
  if (m.expires_at && Date.parse(m.expires_at) <= now.getTime()) return 'expired';
  return m.expires_at ? `expires ${shortDate(m.expires_at)}` : '';
}

/** The lifecycle options of `add` and `update` as request fields. */
function lifecycleFrom(options: MemoryOptions): Partial<UpdateMemoryInput> {
  const given = [options.expiresAt !== undefined, options.ttl !== undefined, options.clearExpiry === true];
  if (given.filter(Boolean).length > 1) {
    throw new CliError('give one of --expires-at, --ttl and --clear-expiry', EXIT.usage);
  }
  if (options.pin && options.unpin) throw new CliError('give --pin or --unpin, not both', EXIT.usage);
  if (options.clearSupersedes && options.supersedes) {
    throw new CliError('give --supersedes or --clear-supersedes, not both', EXIT.usage);
  }
  return {
    ...(options.expiresAt !== undefined && { expires_at: options.expiresAt }),
    ...(options.ttl !== undefined && { ttl_seconds: options.ttl }),
    ...(options.clearExpiry && { expires_at: null }),
    ...(options.pin && { pinned: true }),
    ...(options.unpin && { pinned: false }),
    ...(options.supersedes !== undefined && { supersedes: options.supersedes }),
    ...(options.clearSupersedes && { supersedes: [] }),
  };
}

/** The known metadata keys given as options (the title lives in metadata: memories have no title field). */
function metadataFrom(options: MemoryOptions): Record<string, unknown> {
  const metadata: Record<string, unknown> = {};
  if (options.title !== undefined) metadata.title = options.title;
  if (options.category !== undefined) metadata.category = options.category;
  if (options.priority !== undefined) metadata.priority = options.priority;
  if (options.tag !== undefined) metadata.tags = options.tag;
  return metadata;
}

const summary = (text: string) => text.split('\n').find((line) => line.trim() !== '') ?? '';

function printMemories(memories: RankedMemory[], ranked: boolean): void {
  printTable(
    memories.map((m) => {
      // The server checked the known keys (memory-schemas.ts); the rest are free.
      const metadata = m.metadata as MemoryMetadata;
      return {
        id: m.memory_id,
        ...(ranked ? { score: typeof m.score === 'number' ? m.score.toFixed(3) : '' } : {}),
        project: m.project_name ?? '(global)',
        priority: metadata.priority ?? '',
        tags: Array.isArray(metadata.tags) ? metadata.tags.join(',') : '',
        text: typeof metadata.title === 'string' ? `${metadata.title}: ${summary(m.text)}` : summary(m.text),
        state: memoryState(m),
        updated: shortDate(m.updated_at),
      };
    }),
    ['id', ...(ranked ? ['score'] : []), 'project', 'priority', 'tags', 'text', 'state', 'updated'],
    { maxCellWidth: 60 },
  );
}

const withMetadataOptions = (command: Command) =>
  command
    .option('--title <title>', 'title (kept in metadata.title)')
    .option('--project <name>', 'project, e.g. acme/backend (default: global)')
    .option('--category <category>', 'category, e.g. coding_standards')
    .addOption(new Option('--priority <priority>', 'ranking priority').choices(PRIORITIES))
    .option('--tag <tag>', 'tag (repeatable)', collect)
    .option('--expires-at <time>', 'expire at this ISO 8601 time (with a zone, e.g. 2026-12-31T00:00:00Z)')
    .option('--ttl <seconds>', 'expire this many seconds from now', positiveInt)
    .option('--pin', 'pin it: always in its project context, never expires while pinned')
    .option('--supersedes <id>', 'an older memory this one replaces (repeatable; on update: the full list)', collect)
    .option('--json', "print the server's JSON");

export function registerMemoryCommands(program: Command): void {
  const memories = program.command('memories').description('Memories: context for AI tools (needs `cairn login`)');
  addAddCommand(memories);
  addListCommand(memories);
  addSearchCommand(memories);
  addGetCommand(memories);
  addUpdateCommand(memories);
  addDeleteCommand(memories);
  addHistoryCommand(memories);
  addRestoreCommand(memories);
}

function addAddCommand(memories: Command): void {
  withMetadataOptions(
    withTextOptions(
      memories
        .command('add')
        .description('Add a memory; the text as an argument, --content, --file or stdin')
        .argument('[text]', 'the text (- = stdin)'),
      'text',
    ),
  ).action(async (positional: string | undefined, options: MemoryOptions) => {
    const text = (await textFrom(positional, options, 'memory text', true)) as string;
    const metadata = metadataFrom(options);
    const lifecycle = lifecycleFrom(options);
    if (lifecycle.expires_at === null) throw new CliError('--clear-expiry is for update', EXIT.usage);
    const created = await connect().memories.create({
      text,
      ...(options.project ? { project_name: options.project } : {}),
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      ...(lifecycle as Omit<typeof lifecycle, 'expires_at'> & { expires_at?: string }),
    });
    if (options.json) return printJson(created);
    const where = created.project_name ? ` in ${created.project_name}` : '';
    if (created.deduped)
      return say(`Already stored as memory ${created.memory_id}${where} (same text): nothing added\n`);
    say(`Added memory ${created.memory_id}${created.project_name ? ` to ${created.project_name}` : ''}\n`);
    if (options.supersedes?.length) say(`  supersedes: ${options.supersedes.join(', ')}\n`);
    for (const d of created.possible_duplicates ?? []) {
      say(`  similar: ${d.memory_id} (similarity ${d.similarity}); delete or update it if this one replaces it\n`);
    }
  });
}

function addListCommand(memories: Command): void {
  withPageOptions(
    memories
      .command('list')
      .description('List memories, newest first')
      .option('--project <name>', 'that project and its descendants')
      .option('--category <category>', 'only this category')
      .addOption(new Option('--priority <priority>', 'only this priority').choices(PRIORITIES))
      .option('--tag <tag>', 'only memories with this tag (repeatable: all must match)', collect)
      .option('--include-expired', 'also expired and superseded memories')
      .option('--stale', 'only expired and superseded memories'),
    'memories',
  )
    .option('--json', "print the server's JSON")
    .action(async (options: PageOptions & MemoryOptions & { includeExpired?: boolean; stale?: boolean }) => {
      const body = await connect().memories.list({
        project_name: options.project,
        category: options.category,
        priority: options.priority,
        tag: options.tag,
        ...(options.includeExpired && { include_expired: true }),
        ...(options.stale && { stale: true }),
        ...pageQuery(options),
      });
      if (options.json) return printJson(body);
      if (body.memories.length === 0) return void say('No memories.\n');
      printMemories(body.memories, false);
      say(pageFooter(body.memories.length, body));
    });
}

function addSearchCommand(memories: Command): void {
  memories
    .command('search')
    .description('Ranked search (keywords, project, priority, recency); without a query: the automatic context')
    .argument('[query]', 'words to look for')
    .option('--project <name>', 'rank for this project (its own, descendants, ancestors and global memories)')
    .option('--limit <n>', `at most this many results (1–${MAX_PER_PAGE}, default 10)`, positiveInt)
    .option('--json', "print the server's JSON")
    .action(async (query: string | undefined, options: { project?: string; limit?: number; json?: boolean }) => {
      const body = await connect().memories.list({
        search: query ?? '',
        project_name: options.project,
        per_page: options.limit ?? 10,
      });
      if (options.json) return printJson(body);
      if (body.memories.length === 0) return void say('No matching memories.\n');
      printMemories(body.memories, true);
    });
}

function addGetCommand(memories: Command): void {
  memories
    .command('get')
    .description('Show a memory (counts as an access)')
    .argument('<id>', 'memory id (mem_…)')
    .option('--json', "print the server's JSON")
    .action(async (id: string, options: { json?: boolean }) => {
      const memory = await connect().memories.get(id);
      if (options.json) return printJson(memory);
      const { title, ...rest } = memory.metadata;
      const lines = [
        `${memory.memory_id}${typeof title === 'string' ? `  ${title}` : ''}`,
        `project: ${memory.project_name ?? '(global)'}`,
        ...Object.entries(rest).map(
          ([key, value]) =>
            `${key}: ${Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : JSON.stringify(value)}`,
        ),
        `updated: ${memory.updated_at}`,
        ...(memory.pinned ? ['pinned: yes'] : []),
        ...(memory.expires_at ? [`expires: ${memory.expires_at}`] : []),
        ...(memory.superseded_by ? [`superseded by: ${memory.superseded_by}`] : []),
        '',
        memory.text,
      ];
      say(`${lines.join('\n')}${memory.text.endsWith('\n') ? '' : '\n'}`);
    });
}

function addUpdateCommand(memories: Command): void {
  withMetadataOptions(
    memories
      .command('update')
      .description('Change a memory; only the given fields change (--tag replaces the tags)')
      .argument('<id>', 'memory id (mem_…)')
      .argument('[text]', 'the new text (- = stdin)')
      .option('--content <text>', 'the new text')
      .option('--file <path>', 'read the new text from this file (- = stdin)')
      .option('--global', 'make it global (no project)')
      .option('--unpin', 'unpin it')
      .option('--clear-expiry', 'remove its expiry')
      .option('--clear-supersedes', 'remove its supersede links (the memories it replaced come back)'),
  ).action(async (id: string, positional: string | undefined, options: MemoryOptions) => {
    if (options.global && options.project) throw new CliError('give --project or --global, not both', EXIT.usage);
    const text = await textFrom(positional, options, 'memory text', false);
    const metadata = metadataFrom(options);
    const body: UpdateMemoryInput = {};
    if (text !== undefined) body.text = text;
    if (options.project) body.project_name = options.project;
    if (options.global) body.project_name = null;
    if (Object.keys(metadata).length > 0) body.metadata = metadata;
    Object.assign(body, lifecycleFrom(options));
    if (Object.keys(body).length === 0) {
      throw new CliError(
        'nothing to change: give the text (argument, --content or --file), --title, --project, --tag, --pin, --ttl, …',
        EXIT.usage,
      );
    }
    const updated = await connect().memories.update(id, body);
    if (options.json) return printJson(updated);
    say(
      `Updated memory ${updated.memory_id}: ${Object.keys({ ...body, ...metadata })
        .filter((k) => k !== 'metadata')
        .join(', ')}\n`,
    );
  });
}

function addDeleteCommand(memories: Command): void {
  memories
    .command('delete')
    .description('Delete a memory (asks first on a terminal)')
    .argument('<id>', 'memory id (mem_…)')
    .option('-y, --yes', 'do not ask')
    .option('--json', "print the server's JSON")
    .action(async (id: string, options: { yes?: boolean; json?: boolean }) => {
      const client = connect();
      await confirmDeletion(`memory ${id}`, options.yes);
      const deleted = await client.memories.delete(id);
      if (options.json) return printJson(deleted);
      say(`Deleted memory ${id}\n`);
    });
}

function addHistoryCommand(memories: Command): void {
  withPageOptions(
    memories
      .command('history')
      .description("List a memory's versions, the current one first, or show one")
      .argument('<id>', 'memory id (mem_…)')
      .option('--show <n>', 'print version N whole (its project, metadata and text)', positiveInt),
    'versions',
  )
    .option('--json', "print the server's JSON")
    .action(async (id: string, options: PageOptions & { show?: number; json?: boolean }) => {
      const client = connect();
      if (options.show !== undefined) {
        const version = await client.memories.version(id, options.show);
        if (options.json) return printJson(version);
        const lines = [
          `${version.memory_id} version ${version.version}${version.current ? ' (current)' : ''}`,
          `project: ${version.project_name ?? '(global)'}`,
          `metadata: ${JSON.stringify(version.metadata)}`,
          `written: ${version.created_at}`,
          '',
          version.text,
        ];
        return say(`${lines.join('\n')}${version.text.endsWith('\n') ? '' : '\n'}`);
      }
      const body = await client.memories.versions(id, pageQuery(options));
      if (options.json) return printJson(body);
      if (body.versions.length === 0) return void say('No versions on this page.\n');
      printTable(
        body.versions.map((v) => ({
          version: `${v.version}${v.current ? ' (current)' : ''}`,
          project: v.project_name ?? '(global)',
          text: summary(v.text_preview),
          written: shortDate(v.created_at),
        })),
        ['version', 'project', 'text', 'written'],
        { maxCellWidth: 60 },
      );
      say(pageFooter(body.versions.length, body));
    });
}

function addRestoreCommand(memories: Command): void {
  memories
    .command('restore')
    .description('Bring back an earlier version of a memory, as a new version (nothing is lost)')
    .argument('<id>', 'memory id (mem_…)')
    .argument('<version>', 'the version to bring back (see `cairn memories history`)', positiveInt)
    .option('--json', "print the server's JSON")
    .action(async (id: string, version: number, options: { json?: boolean }) => {
      const restored = await connect().memories.restore(id, version);
      if (options.json) return printJson(restored);
      say(`${restored.message} (memory ${restored.memory_id})\n`);
    });
}
