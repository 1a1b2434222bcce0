import { writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import {
  ARTIFACT_DESCRIPTION_MAX,
  type ArtifactWritten,
  PROJECT_PATTERN,
  SLUG_PATTERN,
} from '../../../contract/index.js';
import { CliError, EXIT, printJson, printTable, say, warn } from '../../output.js';
import type { ApiClient } from '../client/api.js';
import { contentTypeFor } from '../client/content-type.js';
import {
  type PageOptions,
  pageFooter,
  pageQuery,
  shortDate,
  stem,
  textFrom,
  withPageOptions,
} from '../client/options.js';
import { collect, confirmDeletion, connect } from '../client/terminal.js';

/** `acme/backend/api-design` → project `acme/backend`, slug `api-design` (projects may contain '/'). */
export function parseAddress(address: string): { project: string; slug: string } {
  const at = address.lastIndexOf('/');
  const project = address.slice(0, Math.max(0, at));
  const slug = address.slice(at + 1);
  if (at < 1 || !PROJECT_PATTERN.test(project) || !SLUG_PATTERN.test(slug)) {
    throw new CliError(
      `"${address}" is not <project>/<slug> (e.g. acme/backend/api-design: the slug is the last segment)`,
      EXIT.usage,
    );
  }
  return { project, slug };
}

export interface ArtifactFields {
  title?: string;
  description?: string;
  content_type?: string;
  labels?: string[];
}

/**
 * Create or update in one step: PUT first (the common case is an update), and on 404 POST. The title is
 * required to create; it defaults to `fallbackTitle`.
 */
export async function putArtifact(
  client: ApiClient,
  address: { project: string; slug: string },
  content: string,
  fields: ArtifactFields,
  fallbackTitle: string,
): Promise<{ created: boolean; body: ArtifactWritten }> {
  const given: ArtifactFields = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  const updated = await client.artifacts.updateIfExists(address.project, address.slug, { ...given, content });
  if (updated) return { created: false, body: updated };
  const body = await client.artifacts.create({
    title: fallbackTitle,
    ...given,
    project: address.project,
    slug: address.slug,
    content,
  });
  return { created: true, body };
}

export function registerArtifactCommands(program: Command): void {
  const artifacts = program
    .command('artifacts')
    .description('Artifacts: versioned documents addressed by <project>/<slug> (needs `cairn login`)');
  addListCommand(artifacts);
  addGetCommand(artifacts);
  addPutCommand(artifacts);
  addDeleteCommand(artifacts);
}

function addListCommand(artifacts: Command): void {
  withPageOptions(
    artifacts
      .command('list')
      .description('List artifacts, newest first (without content)')
      .option('--project <name>', 'that project and its descendants')
      .option('--label <label>', 'only artifacts with this label (repeatable: all must match)', collect)
      .option('--search <text>', 'every word must occur in the title, description or content'),
    'artifacts',
  )
    .option('--json', "print the server's JSON")
    .action(async (options: PageOptions & { project?: string; label?: string[]; search?: string; json?: boolean }) => {
      const body = await connect().artifacts.list({
        project: options.project,
        label: options.label,
        search: options.search,
        ...pageQuery(options),
      });
      if (options.json) return printJson(body);
      if (body.artifacts.length === 0) return void say('No artifacts.\n');
      printTable(
        body.artifacts.map((a) => ({
          address: `${a.project}/${a.slug}`,
          title: a.title,
          type: a.content_type,
          version: String(a.version),
          size: String(a.size_bytes),
          labels: a.labels.join(','),
          updated: shortDate(a.updated_at),
        })),
        ['address', 'title', 'type', 'version', 'size', 'labels', 'updated'],
        { maxCellWidth: 50 },
      );
      say(pageFooter(body.artifacts.length, body));
    });
}

function addGetCommand(artifacts: Command): void {
  artifacts
    .command('get')
    .description('Print an artifact’s content exactly (or write it with -o)')
    .argument('<address>', '<project>/<slug>, e.g. acme/backend/api-design')
    .option('-o, --output <file>', 'write the content to this file')
    .option('--json', "print the server's JSON (metadata and content)")
    .action(async (address: string, options: { output?: string; json?: boolean }) => {
      const { project, slug } = parseAddress(address);
      const client = connect();
      if (options.json) return printJson(await client.artifacts.get(project, slug));
      const response = await client.artifacts.raw(project, slug);
      const bytes = Buffer.from(await response.arrayBuffer());
      if (options.output) {
        writeFileSync(options.output, bytes);
        warn(
          `Wrote ${bytes.length} bytes to ${options.output} (version ${response.headers.get('etag')?.replaceAll('"', '')})\n`,
        );
      } else if (process.stdout.isTTY) {
        say(bytes.toString('utf8')); // a terminal shows it: never the server's escape sequences
      } else process.stdout.write(bytes); // a file or pipe gets it byte for byte
    });
}

function addPutCommand(artifacts: Command): void {
  artifacts
    .command('put')
    .description('Create or update an artifact from a file or stdin (content type guessed from the extension)')
    .argument('<address>', '<project>/<slug>')
    .argument('[file]', 'the content from this file (- = stdin); or --content, --file, or stdin')
    .option('--content <text>', 'the content')
    .option('--file <path>', 'read the content from this file (- = stdin)')
    .option('--title <title>', 'title (default when creating: the file name, else the slug)')
    .option('--description <text>', `description (≤ ${ARTIFACT_DESCRIPTION_MAX} characters)`)
    .option('--content-type <type>', 'MIME type (default: from the file extension; text/markdown when creating)')
    .option('--label <label>', 'label (repeatable; replaces the labels)', collect)
    .option('--json', "print the server's JSON")
    .action(async (address: string, file: string | undefined, options) => {
      const target = parseAddress(address);
      // The positional is a file here (artifacts are documents): it is --file by another name.
      if (file !== undefined && options.file !== undefined) {
        throw new CliError('give the artifact content once, not with a file argument and --file', EXIT.usage);
      }
      const path: string | undefined = file ?? options.file;
      const fromFile = path !== undefined && path !== '-';
      const content = (await textFrom(
        undefined,
        { content: options.content, file: path },
        'artifact content',
        true,
      )) as string;
      const { created, body } = await putArtifact(
        connect(),
        target,
        content,
        {
          title: options.title,
          description: options.description,
          content_type: options.contentType ?? (fromFile ? contentTypeFor(path) : undefined),
          labels: options.label,
        },
        fromFile ? stem(basename(path)) || target.slug : target.slug,
      );
      if (options.json) return printJson(body);
      say(`${created ? 'Created' : 'Updated'} ${body.project}/${body.slug} (version ${body.version})\n`);
    });
}

function addDeleteCommand(artifacts: Command): void {
  artifacts
    .command('delete')
    .description('Delete an artifact and its versions (asks first on a terminal)')
    .argument('<address>', '<project>/<slug>')
    .option('-y, --yes', 'do not ask')
    .option('--json', "print the server's JSON")
    .action(async (address: string, options: { yes?: boolean; json?: boolean }) => {
      const { project, slug } = parseAddress(address);
      const client = connect();
      await confirmDeletion(`artifact ${project}/${slug} and all its versions`, options.yes);
      const deleted = await client.artifacts.delete(project, slug);
      if (options.json) return printJson(deleted);
      say(`Deleted artifact ${project}/${slug}\n`);
    });
}
