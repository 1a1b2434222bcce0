import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Command } from 'commander';
import type { BundleCounts, ImportResult } from '../../../contract/index.js';
import { CliError, EXIT, printJson, printTable, say, warn } from '../../output.js';
import { byteProgress } from '../../progress.js';
import { connect } from '../client/terminal.js';
import { registerImporters } from './importers.js';

const KINDS = ['prompts', 'memories', 'artifacts'] as const;
/** Above this size an import shows progress even when stderr is not a terminal. */
const LARGE_BYTES = 8 * 1024 * 1024;

/** Passes bytes through, keeping the last line so the bundle's closing `end` record can be checked. */
function tailKeeper() {
  let tail = '';
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      tail = (tail + chunk.toString('utf8')).slice(-4096);
      callback(null, chunk);
    },
  });
  /** The last line as parsed, unchecked: a whole export ends with `{type: 'end', counts}` (bundle-schemas.ts). */
  const lastRecord = (): { type?: unknown; counts?: Partial<BundleCounts> } | undefined => {
    const line = tail.trimEnd().split('\n').pop();
    try {
      return line ? JSON.parse(line) : undefined;
    } catch {
      return undefined;
    }
  };
  return { stream, lastRecord, bytes: () => bytes };
}

function counter(onProgress: (done: number) => void) {
  let done = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      done += chunk.length;
      onProgress(done);
      callback(null, chunk);
    },
  });
}

function printCounts(summary: ImportResult): void {
  printTable(
    KINDS.map((kind) => ({
      kind,
      created: String(summary.created?.[kind] ?? 0),
      updated: String(summary.updated?.[kind] ?? 0),
      unchanged: String(summary.unchanged?.[kind] ?? 0),
    })),
    ['kind', 'created', 'updated', 'unchanged'],
  );
}

export function registerTransferCommands(program: Command): void {
  program
    .command('export')
    .description('Download all your prompts (with versions), memories and artifacts as one NDJSON bundle')
    .option('-o, --output <file>', 'write the bundle to this file (default: stdout)')
    .action(async (options: { output?: string }) => {
      const response = await connect().bundles.export();
      if (!response.body) throw new CliError('the server sent an empty export', EXIT.failure);
      const tail = tailKeeper();
      // Into a side file first, so an interrupted export never leaves a plausible-looking bundle behind.
      const partial = options.output ? `${options.output}.partial` : undefined;
      const target = partial ? createWriteStream(partial, { mode: 0o600 }) : process.stdout;
      try {
        await pipeline(Readable.fromWeb(response.body as NodeReadableStream), tail.stream, target, {
          end: Boolean(partial),
        });
      } catch (error) {
        if (partial) rmSync(partial, { force: true });
        throw new CliError(`the export was interrupted: ${(error as Error).message}`, EXIT.unavailable);
      }
      const end = tail.lastRecord();
      if (end?.type !== 'end') {
        if (partial) rmSync(partial, { force: true });
        throw new CliError('the export is incomplete (no closing "end" record); try again', EXIT.failure);
      }
      if (partial && options.output) renameSync(partial, options.output);
      const counts = KINDS.map((kind) => `${end.counts?.[kind] ?? 0} ${kind}`).join(', ');
      warn(`Exported ${counts}${options.output ? ` to ${options.output}` : ''} (${tail.bytes()} bytes)\n`);
    });

  const importCommand = program
    .command('import')
    // `import`'s own options go before a subcommand, so `import markdown … --json` is the subcommand's.
    .enablePositionalOptions()
    .description(
      'Import a bundle made by `cairn export` (idempotent: prompts by slug, memories by id, artifacts by project/slug); ' +
        'or other content with `import memory-jsonl` and `import markdown`',
    )
    .argument('[bundle]', 'the NDJSON bundle (- = stdin; a file named like a subcommand: ./markdown)')
    .option('--dry-run', 'report what would change, change nothing')
    .option('--json', "print the server's JSON summary")
    .action(async (bundle: string | undefined, options: { dryRun?: boolean; json?: boolean }) => {
      if (!bundle) throw new CliError('which bundle? `cairn import FILE` (see `cairn import --help`)', EXIT.usage);
      const client = connect();
      let body: Readable;
      let progress: ReturnType<typeof byteProgress> | undefined;
      if (bundle === '-') body = process.stdin;
      else {
        let size: number;
        try {
          size = statSync(bundle).size;
        } catch {
          throw new CliError(`cannot read ${bundle}: no such file`, EXIT.notFound);
        }
        if (process.stderr.isTTY || size >= LARGE_BYTES) progress = byteProgress('Uploading', size, process.stderr);
        const p = progress;
        body = createReadStream(bundle).pipe(counter((done) => p?.update(done)));
      }
      const summary = await client.bundles.import(
        Readable.toWeb(body) as unknown as ReadableStream,
        options.dryRun === true,
      );
      progress?.finish();
      if (options.json) return printJson(summary);
      printCounts(summary);
      say(summary.dry_run ? 'Dry run: nothing was changed.\n' : 'Import complete.\n');
    });

  registerImporters(importCommand);
}
