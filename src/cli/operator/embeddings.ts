import type { Command } from 'commander';
import type { Container } from '../../container.js';
import { OPERATOR } from '../../domain/accounts/account-actor.js';
import type { BackfillProgress } from '../../embeddings/indexer.js';
import { CliError, EXIT, printJson, printTable } from '../output.js';
import { barGraphic } from '../progress.js';
import { withContainer } from './context.js';

function embeddingsOf(container: Container) {
  if (!container.embeddings) {
    throw new CliError(
      'Semantic search is off: set EMBEDDINGS_URL and EMBEDDINGS_MODEL (docs/memory-search.md)',
      EXIT.usage,
    );
  }
  return container.embeddings;
}

async function userIdFor(container: Container, email: string | undefined): Promise<string | undefined> {
  if (email === undefined) return undefined;
  return (await container.services.users.requireByEmail(OPERATOR, email)).id;
}

/** One line on stderr: redrawn in place on a terminal, else a line per tenth. */
function progressLine() {
  const tty = process.stderr.isTTY;
  let lastTenth = -1;
  return (p: BackfillProgress) => {
    const fraction = p.total === 0 ? 1 : p.done / p.total;
    const line = `embeddings ${barGraphic(fraction)} ${p.done}/${p.total} (${p.failed} failed)`;
    if (tty) {
      process.stderr.write(`\r${line}`);
      return;
    }
    const tenth = Math.floor(fraction * 10);
    if (tenth > lastTenth) {
      lastTenth = tenth;
      process.stderr.write(`${line}\n`);
    }
  };
}

export function registerEmbeddingCommands(program: Command): void {
  const embeddings = program
    .command('embeddings')
    .description('Vectors of memories for semantic search (when EMBEDDINGS_URL is set)');

  embeddings
    .command('backfill')
    .description(
      'Embed every memory whose vector is missing, stale (text, model or size changed) or failed; safe to interrupt and run again',
    )
    .option('--email <email>', 'only this user’s memories')
    .option('--no-retry-failed', 'leave memories whose last attempt failed')
    .option('--json', 'print the outcome as JSON')
    .action(async (options: { email?: string; retryFailed: boolean; json?: boolean }) => {
      const result = await withContainer(async (c) => {
        const { indexer } = embeddingsOf(c);
        const userId = await userIdFor(c, options.email);
        const draw = progressLine();
        try {
          return await indexer.backfill({
            ...(userId !== undefined && { userId }),
            retryFailed: options.retryFailed,
            onProgress: draw,
          });
        } catch (error) {
          throw new CliError(
            `The embeddings provider is unavailable (${(error as Error).message}); nothing was lost, run this again later`,
            EXIT.unavailable,
          );
        } finally {
          if (process.stderr.isTTY) process.stderr.write('\n');
        }
      });
      if (options.json) printJson(result);
      else process.stdout.write(`${result.embedded} memories embedded, ${result.failed} failed\n`);
      if (result.failed > 0) {
        throw new CliError(
          'The provider failed part-way: what was done is kept; run `cairn embeddings backfill` again to resume',
          EXIT.unavailable,
        );
      }
    });

  embeddings
    .command('status')
    .description('Count memories embedded, missing, stale (text, model or size changed) and failed')
    .option('--email <email>', 'only this user’s memories')
    .option('--json', 'print the counts as JSON')
    .action(async (options: { email?: string; json?: boolean }) => {
      const status = await withContainer(async (c) => {
        const { indexer } = embeddingsOf(c);
        return indexer.status(await userIdFor(c, options.email));
      });
      const answer = {
        model: status.space?.model ?? null,
        dimensions: status.space?.dimensions ?? null,
        provider: status.space ? 'reachable' : 'unavailable',
        ...status.counts,
      };
      if (options.json) {
        printJson(answer);
        return;
      }
      const columns = ['model', 'dimensions', 'provider', 'memories', 'embedded', 'missing', 'stale', 'failed'];
      const row = Object.fromEntries(
        columns.map((column) => [column, String(answer[column as keyof typeof answer] ?? '?')]),
      );
      printTable([row], columns);
    });
}
