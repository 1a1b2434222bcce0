import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Command, Option } from 'commander';
import {
  PROMPT_DESCRIPTION_MAX,
  PROMPT_STATUSES,
  PROMPT_TITLE_MAX,
  type PromptStatus,
} from '../../../contract/index.js';
import { CliError, EXIT, printJson, printTable, say, warn } from '../../output.js';
import type { ApiClient } from '../client/api.js';
import {
  type PageOptions,
  pageFooter,
  pageQuery,
  positiveInt,
  readTextFile,
  shortDate,
  type TextOptions,
  textFrom,
  variable,
  withPageOptions,
  withTextOptions,
} from '../client/options.js';
import { changedFields, fileToPrompt, fromServer, promptToFile } from '../client/prompt-file.js';
import { promptFilePath } from '../client/safe-path.js';
import { collect, confirmDeletion, connect } from '../client/terminal.js';
import { registerPromptFileCommands } from './prompt-files.js';

/**
 * Writes text as it is to a file or pipe (so `--raw > file` is exact); on a terminal, made terminal-safe and
 * ended with a newline.
 */
export function writeRaw(text: string): void {
  if (!process.stdout.isTTY) return void process.stdout.write(text);
  say(text);
  if (!text.endsWith('\n')) process.stdout.write('\n');
}

export function registerPromptCommands(program: Command): void {
  const prompts = program.command('prompts').description('Prompts on the server (needs `cairn login`)');
  addListCommand(prompts);
  addGetCommand(prompts);
  addCreateCommand(prompts);
  addEditCommand(prompts);
  addDeleteCommand(prompts);
  addRenderCommand(prompts);
  addVersionsCommand(prompts);
  registerPromptFileCommands(prompts);
}

interface ListOptions extends PageOptions {
  status?: PromptStatus;
  label?: string[];
  search?: string;
  json?: boolean;
}

function addListCommand(prompts: Command): void {
  withPageOptions(
    prompts
      .command('list')
      .description('List prompts, newest first')
      .addOption(new Option('--status <status>', 'only drafts or published ones').choices(PROMPT_STATUSES))
      .option('--label <label>', 'only prompts with this label (repeatable: all must match)', collect)
      .option('--search <text>', 'every word must occur in the title, description or content'),
    'prompts',
  )
    .option('--json', "print the server's JSON")
    .action(async (options: ListOptions) => {
      const body = await connect().prompts.list({
        status: options.status,
        label: options.label,
        search: options.search,
        ...pageQuery(options),
      });
      if (options.json) return printJson(body);
      if (body.prompts.length === 0) return void say(body.total > 0 ? pageFooter(0, body) : 'No prompts.\n');
      printTable(
        body.prompts.map((p) => ({
          slug: p.slug,
          title: p.title,
          status: p.status,
          mcp: p.available_in_mcp ? 'yes' : '',
          labels: p.labels.join(','),
          updated: shortDate(p.updated_at),
        })),
        ['slug', 'title', 'status', 'mcp', 'labels', 'updated'],
        { maxCellWidth: 50 },
      );
      say(pageFooter(body.prompts.length, body));
    });
}

function addGetCommand(prompts: Command): void {
  prompts
    .command('get')
    .description('Show a prompt')
    .argument('<id_or_slug>', 'prompt id (prm_…) or slug')
    .option('--raw', 'print the content alone, exactly')
    .option('--environment <name>', 'the version this environment (e.g. production) points to')
    .option('--json', "print the server's JSON")
    .action(async (idOrSlug: string, options: { raw?: boolean; json?: boolean; environment?: string }) => {
      const prompt = await connect().prompts.get(idOrSlug, options.environment);
      if (options.json) return printJson(prompt);
      if (options.raw) return writeRaw(prompt.content);
      const lines = [
        `${prompt.title}  (${prompt.slug}, ${prompt.id})`,
        prompt.description ? prompt.description : undefined,
        `status: ${prompt.status}${prompt.available_in_mcp ? ', available in MCP' : ''}${prompt.version ? `, version ${prompt.version}` : ''}${prompt.environment ? ` (environment ${prompt.environment})` : ''}`,
        prompt.labels.length > 0 ? `labels: ${prompt.labels.join(', ')}` : undefined,
        prompt.variables.length > 0 ? `variables: ${prompt.variables.join(', ')}` : undefined,
        prompt.references.length > 0
          ? `references: ${prompt.references.map((r: string) => `@${r.replace(/^@/, '')}`).join(', ')}`
          : undefined,
        prompt.broken_references?.length > 0 ? `broken references: ${prompt.broken_references.join(', ')}` : undefined,
        `updated: ${prompt.updated_at}`,
        '',
      ].filter((line) => line !== undefined);
      say(`${lines.join('\n')}\n`);
      // Human output, even when piped: terminal-safe (`--raw` is the exact content).
      say(prompt.content);
      if (process.stdout.isTTY && !prompt.content.endsWith('\n')) process.stdout.write('\n');
    });
}

interface CreateOptions extends TextOptions {
  title: string;
  description?: string;
  label?: string[];
  status?: PromptStatus;
  mcp?: boolean;
  slug?: string;
  json?: boolean;
}

function addCreateCommand(prompts: Command): void {
  withTextOptions(
    prompts
      .command('create')
      .description('Create a prompt; the content as an argument, --content, --file or stdin')
      .argument('[content]', 'the content (- = stdin)')
      .requiredOption('--title <title>', `title (1–${PROMPT_TITLE_MAX} characters)`),
    'content',
  )
    .option('--description <text>', `short description (≤ ${PROMPT_DESCRIPTION_MAX} characters)`)
    .option('--label <label>', 'label (repeatable)', collect)
    .addOption(new Option('--status <status>', 'draft or published').choices(PROMPT_STATUSES))
    .option('--mcp', 'offer it to AI tools as an MCP prompt')
    .option('--slug <slug>', 'slug (default: made from the title)')
    .option('--json', "print the server's JSON")
    .action(async (positional: string | undefined, options: CreateOptions) => {
      const content = (await textFrom(positional, options, 'prompt content', true)) as string;
      const created = await connect().prompts.create({
        title: options.title,
        content,
        description: options.description,
        labels: options.label,
        status: options.status,
        available_in_mcp: options.mcp ? true : undefined,
        slug: options.slug,
      });
      if (options.json) return printJson(created);
      say(`Created prompt ${created.slug} (${created.id}${created.version ? `, version ${created.version}` : ''})\n`);
    });
}

function addEditCommand(prompts: Command): void {
  prompts
    .command('edit')
    .description('Edit a prompt in $VISUAL / $EDITOR as Markdown with front matter; saving it unchanged sends nothing')
    .argument('<id_or_slug>', 'prompt id (prm_…) or slug')
    .option('--message <text>', 'commit message of the new version')
    .option('--json', "print the server's JSON")
    .action((idOrSlug: string, options: { message?: string; json?: boolean }) =>
      editPrompt(connect(), idOrSlug, options),
    );
}

/**
 * `prompts edit`: the prompt as a file in a private temporary directory, the editor, then a PUT of the
 * changed fields with If-Match on the version it was read at.
 */
async function editPrompt(client: ApiClient, idOrSlug: string, options: { message?: string; json?: boolean }) {
  const remote = fromServer(await client.prompts.get(idOrSlug));
  const dir = mkdtempSync(join(tmpdir(), 'cairn-edit-'));
  const file = promptFilePath(dir, remote.slug);
  const original = promptToFile(remote);
  writeFileSync(file, original, { mode: 0o600 });
  let edited = original;
  let keep = false;
  try {
    runEditor(file);
    edited = readFileSync(file, 'utf8');
    if (edited === original) return void say('No changes; nothing sent.\n');
    const local = fileToPrompt(edited, remote.slug, 'edited file');
    if (local.slug !== remote.slug) throw new CliError('the slug cannot be changed', EXIT.usage);
    const changes = changedFields(local, remote);
    if (Object.keys(changes).length === 0) return void say('No changes; nothing sent.\n');
    const updated = await client.prompts.update(
      remote.slug,
      options.message ? { ...changes, commit_message: options.message } : changes,
      remote.version,
    );
    if (options.json) return printJson(updated);
    say(
      `Updated prompt ${updated.slug}${updated.version ? ` (version ${updated.version})` : ''}: ${Object.keys(changes).join(', ')}\n`,
    );
  } catch (error) {
    // Never lose an edit: the file stays where it is, and the message says where.
    keep = edited !== original;
    if (keep) warn(`cairn: your edited file is kept at ${file}\n`);
    throw error;
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

function addDeleteCommand(prompts: Command): void {
  prompts
    .command('delete')
    .description('Delete a prompt (asks first on a terminal)')
    .argument('<id_or_slug>', 'prompt id (prm_…) or slug')
    .option('-y, --yes', 'do not ask')
    .option('--json', "print the server's JSON")
    .action(async (idOrSlug: string, options: { yes?: boolean; json?: boolean }) => {
      const client = connect();
      await confirmDeletion(`prompt ${idOrSlug}`, options.yes);
      const deleted = await client.prompts.delete(idOrSlug);
      if (options.json) return printJson(deleted);
      say(`Deleted prompt ${idOrSlug}\n`);
    });
}

interface RenderOptions {
  var?: Record<string, string>;
  varsFile?: string;
  resolve: boolean;
  strict: boolean;
  json?: boolean;
}

function addRenderCommand(prompts: Command): void {
  prompts
    .command('render')
    .description('Render a prompt: variables filled in, @references expanded')
    .argument('<id_or_slug>', 'prompt id (prm_…) or slug')
    .option('--var <name=value>', 'a variable (repeatable)', variable)
    .option('--vars-file <path>', 'variables from a JSON object file ({"name": "value"})')
    .option('--no-resolve', 'leave @references as they are')
    .option('--no-strict', 'allow missing or unknown variables')
    .option('--json', "print the server's JSON")
    .action(async (idOrSlug: string, options: RenderOptions) => {
      const fromFile = options.varsFile ? readVariablesFile(options.varsFile) : {};
      const rendered = await connect().prompts.render(idOrSlug, {
        variables: { ...fromFile, ...options.var },
        resolve: options.resolve,
        strict: options.strict,
      });
      if (options.json) return printJson(rendered);
      writeRaw(rendered.content);
    });
}

/** `--vars-file`: a JSON object of values; the server checks the values themselves. */
function readVariablesFile(path: string): Record<string, string | number | boolean> {
  let variables: unknown;
  try {
    variables = JSON.parse(readTextFile(path));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${path} is not valid JSON`, EXIT.usage);
  }
  if (!variables || typeof variables !== 'object' || Array.isArray(variables)) {
    throw new CliError(`${path} must hold a JSON object of variables`, EXIT.usage);
  }
  return variables as Record<string, string | number | boolean>;
}

function addVersionsCommand(prompts: Command): void {
  withPageOptions(
    prompts
      .command('versions')
      .description("List a prompt's versions, newest first, or show one")
      .argument('<id_or_slug>', 'prompt id (prm_…) or slug')
      .option('--show <n>', 'print the content of version N', positiveInt),
    'versions',
  )
    .option('--json', "print the server's JSON")
    .action(async (idOrSlug: string, options: PageOptions & { show?: number; json?: boolean }) => {
      const client = connect();
      if (options.show !== undefined) {
        const version = await client.prompts.version(idOrSlug, options.show);
        if (options.json) return printJson(version);
        return writeRaw(version.content);
      }
      const body = await client.prompts.versions(idOrSlug, pageQuery(options));
      if (options.json) return printJson(body);
      printTable(
        body.versions.map((v) => ({
          version: String(v.version),
          title: v.title ?? '',
          message: v.commit_message ?? '',
          created: shortDate(v.created_at),
        })),
        ['version', 'title', 'message', 'created'],
        { maxCellWidth: 60 },
      );
      say(pageFooter(body.versions.length, body));
    });
}

/**
 * Opens the file in $VISUAL or $EDITOR (default vi) and waits. The editor setting may carry arguments
 * (`code --wait`), so it runs through the shell with the path quoted.
 */
function runEditor(file: string): void {
  const editor = process.env.VISUAL || process.env.EDITOR || (process.platform === 'win32' ? 'notepad' : 'vi');
  const quoted = process.platform === 'win32' ? `"${file}"` : `'${file.replaceAll("'", "'\\''")}'`;
  const result = spawnSync(`${editor} ${quoted}`, { shell: true, stdio: 'inherit' });
  if (result.error) throw new CliError(`cannot start the editor (${editor}): ${result.error.message}`, EXIT.failure);
  if (result.status !== 0)
    throw new CliError(`the editor (${editor}) exited with ${result.status}; nothing sent`, EXIT.failure);
}
