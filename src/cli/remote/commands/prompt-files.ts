import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { CliError, EXIT, printJson, say } from '../../output.js';
import type { ApiClient } from '../client/api.js';
import { stem } from '../client/options.js';
import {
  changedFields,
  createBody,
  fileToPrompt,
  fromServer,
  type PromptFile,
  promptToFile,
} from '../client/prompt-file.js';
import { promptFilePath } from '../client/safe-path.js';
import { connect } from '../client/terminal.js';

type Outcome = 'created' | 'updated' | 'unchanged' | 'conflict';
interface Result {
  file: string;
  slug: string;
  outcome: Outcome;
  version?: number;
  reason?: string;
}

/** Every prompt of the user as a file (with full=true every list item carries its content). */
const allPrompts = async (client: ApiClient, environment?: string): Promise<PromptFile[]> =>
  (await client.prompts.all(environment)).map((prompt) => fromServer({ ...prompt, content: prompt.content ?? '' }));

const markdownFiles = (dir: string): string[] => {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    throw new CliError(`cannot read the directory ${dir}: ${(error as NodeJS.ErrnoException).code}`, EXIT.notFound);
  }
};

/**
 * One file against the server:
 * - slug unknown on the server → POST (a file that was pulled before, i.e. has a version, is a conflict:
 *   the prompt was deleted on the server; --force recreates it);
 * - same fields as the server → unchanged, nothing sent;
 * - changed, and the server is still at the file's version → PUT with If-Match (exactly one new version);
 * - changed, but the server moved on (or the file has no version) → conflict, unless --force.
 */
export async function pushPromptFile(
  client: ApiClient,
  local: PromptFile,
  options: { force?: boolean; dryRun?: boolean },
  /** The server's prompt when already known (from a full list): null = none with this slug. */
  known?: PromptFile | null,
): Promise<{ outcome: Outcome; version?: number; reason?: string }> {
  let remote = known;
  if (remote === undefined) {
    const found = await client.prompts.find(local.slug);
    remote = found ? fromServer(found) : null;
  }
  if (remote === null) {
    if (local.version !== undefined && !options.force) {
      return { outcome: 'conflict', reason: `deleted on the server since version ${local.version} was pulled` };
    }
    if (options.dryRun) return { outcome: 'created' };
    const created = await client.prompts.create(createBody(local));
    return { outcome: 'created', version: created.version };
  }
  const changes = changedFields(local, remote);
  if (Object.keys(changes).length === 0) return { outcome: 'unchanged', version: remote.version };
  if (!options.force && local.version !== remote.version) {
    return {
      outcome: 'conflict',
      reason:
        local.version === undefined
          ? `exists on the server (version ${remote.version}) but the file has no version: pull it first`
          : `changed on the server since version ${local.version} was pulled (now ${remote.version})`,
    };
  }
  if (options.dryRun) return { outcome: 'updated', version: remote.version };
  try {
    const updated = await client.prompts.update(local.slug, changes, options.force ? undefined : local.version);
    return { outcome: 'updated', version: updated.version };
  } catch (error) {
    if (error instanceof CliError && error.exitCode === EXIT.conflict) {
      return { outcome: 'conflict', reason: 'changed on the server while pushing (412)' };
    }
    throw error;
  }
}

function printSummary(results: Result[], verb: string): void {
  for (const r of results) {
    if (r.outcome === 'unchanged') continue;
    const detail = r.outcome === 'conflict' ? `: ${r.reason}` : r.version ? ` (version ${r.version})` : '';
    say(`${r.outcome.padEnd(9)} ${r.file}${detail}\n`);
  }
  const count = (o: Outcome) => results.filter((r) => r.outcome === o).length;
  say(
    `${verb}: ${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged, ${count('conflict')} conflicts\n`,
  );
}

export function registerPromptFileCommands(prompts: Command): void {
  prompts
    .command('pull')
    .description('Write every prompt to DIR/<slug>.md (front matter + content), for editing and `cairn prompts push`')
    .argument('<dir>', 'directory (created if missing)')
    .option('--force', 'overwrite files that have local changes')
    .option(
      '--environment <name>',
      'only the prompts with this environment (e.g. production), each as the version it points to',
    )
    .option('--json', 'print [{slug, file, version, outcome}] as JSON')
    .action(async (dir: string, options: { force?: boolean; json?: boolean; environment?: string }) => {
      const client = connect();
      // Every slug is checked before anything is written: a server cannot place a file outside DIR.
      const remotes = (await allPrompts(client, options.environment)).map((remote) => ({
        remote,
        file: promptFilePath(dir, remote.slug),
      }));
      mkdirSync(dir, { recursive: true });
      const results: { slug: string; file: string; version?: number; outcome: string; reason?: string }[] = [];
      for (const { remote, file } of remotes) {
        const slug = remote.slug;
        const text = promptToFile(remote);
        const existing = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
        if (existing === text) {
          results.push({ slug, file, version: remote.version, outcome: 'unchanged' });
          continue;
        }
        if (existing !== undefined && !options.force) {
          const reason = await localChanges(client, existing, slug, file, remote);
          if (reason) {
            results.push({ slug, file, version: remote.version, outcome: 'skipped', reason });
            continue;
          }
        }
        writeFileSync(file, text);
        results.push({ slug, file, version: remote.version, outcome: existing === undefined ? 'written' : 'updated' });
      }
      if (options.json) printJson(results);
      else {
        for (const r of results.filter((r) => r.outcome === 'skipped')) {
          say(`skipped   ${r.file}: ${r.reason}\n`);
        }
        const n = (o: string) => results.filter((r) => r.outcome === o).length;
        say(
          `Pulled ${results.length} prompts into ${dir}: ${n('written')} new, ${n('updated')} updated, ${n('unchanged')} unchanged, ${n('skipped')} skipped\n`,
        );
      }
      if (results.some((r) => r.outcome === 'skipped')) {
        throw new CliError(
          'some files have local changes and were not overwritten (push them, or --force)',
          EXIT.conflict,
        );
      }
    });

  prompts
    .command('push')
    .description('Send the changed DIR/*.md prompt files to the server; unchanged files send nothing')
    .argument('<dir>', 'directory of prompt files')
    .option('--force', 'overwrite server changes made since the pull (no If-Match)')
    .option('--dry-run', 'report what would happen, send nothing')
    .option('--json', 'print [{file, slug, outcome, version, reason}] as JSON')
    .action(async (dir: string, options: { force?: boolean; dryRun?: boolean; json?: boolean }) => {
      // Every file is read and checked before anything is sent.
      const files = markdownFiles(dir).map((name) => {
        const path = join(dir, name);
        return { name, path, prompt: fileToPrompt(readFileSync(path, 'utf8'), stem(name), path) };
      });
      const seen = new Map<string, string>();
      for (const f of files) {
        const other = seen.get(f.prompt.slug);
        if (other) throw new CliError(`${other} and ${f.name} both have the slug ${f.prompt.slug}`, EXIT.usage);
        seen.set(f.prompt.slug, f.name);
      }
      const client = connect();
      // The server's side of every file from one full list (a page per 100 prompts), not a read per file.
      const onServer = new Map((await allPrompts(client)).map((p) => [p.slug, p]));
      const results: Result[] = [];
      for (const f of files) {
        const result = await pushPromptFile(client, f.prompt, options, onServer.get(f.prompt.slug) ?? null);
        results.push({ file: f.path, slug: f.prompt.slug, ...result });
        // The file records the version it now matches, so the next push of it is a no-op.
        if (!options.dryRun && result.outcome !== 'conflict' && result.version !== f.prompt.version) {
          writeFileSync(f.path, promptToFile({ ...f.prompt, version: result.version }));
        }
      }
      if (options.json) printJson(results);
      else printSummary(results, options.dryRun ? 'Dry run' : 'Pushed');
      const conflicts = results.filter((r) => r.outcome === 'conflict').length;
      if (conflicts > 0) {
        throw new CliError(
          `${conflicts} conflict${conflicts === 1 ? '' : 's'}: not overwritten (pull, merge, push again; or --force)`,
          EXIT.conflict,
        );
      }
    });
}

/**
 * Why an existing local file must not be overwritten by a pull, if it must not: it differs from the version
 * it was pulled at (read back from the server's version history), i.e. it holds edits not yet pushed.
 */
async function localChanges(
  client: ApiClient,
  existing: string,
  slug: string,
  file: string,
  remote: PromptFile,
): Promise<string | undefined> {
  let local: PromptFile;
  try {
    local = fileToPrompt(existing, slug, file);
  } catch {
    return 'the file is not a valid prompt file';
  }
  if (local.version === undefined)
    return Object.keys(changedFields(local, remote)).length > 0
      ? 'has no version and differs from the server'
      : undefined;
  let base: PromptFile = remote;
  if (local.version !== remote.version) {
    const version = await client.prompts.findVersion(slug, local.version);
    if (!version) return `its version ${local.version} is no longer on the server`;
    base = fromServer({ ...remote, ...version });
  }
  // Status and MCP availability are not kept in versions: against an older version only the versioned
  // fields can be compared.
  const compared = base === remote ? local : { ...local, status: base.status, available_in_mcp: base.available_in_mcp };
  const changes = changedFields(compared, base);
  return Object.keys(changes).length > 0 ? `has local changes to ${Object.keys(changes).join(', ')}` : undefined;
}
