import type { Command } from 'commander';
import type { CopyProgress } from '../../storage/copy.js';
import { CliError, EXIT, printTable } from '../output.js';
import { barGraphic } from '../progress.js';

/** A one-line progress bar on stderr (redrawn in place on a terminal, one line per table otherwise). */
function progressBar() {
  const tty = process.stderr.isTTY;
  let current = '';
  return (p: CopyProgress) => {
    const line = `${p.table.padEnd(18)} ${barGraphic(p.total === 0 ? 1 : p.copied / p.total)} ${p.copied}/${p.total}`;
    if (tty) process.stderr.write(`\r${line}`);
    if (p.copied === p.total && current !== p.table) {
      current = p.table;
      process.stderr.write(tty ? '\n' : `${line}\n`);
    }
  };
}

export function registerDbCommands(program: Command): void {
  const db = program.command('db').description('Database operations');

  db.command('copy')
    .description('Copy a whole installation to another (empty) database, e.g. from SQLite to PostgreSQL')
    .requiredOption('--from <url>', 'source DATABASE_URL (sqlite:… or postgres://…)')
    .requiredOption('--to <url>', 'target DATABASE_URL; must be empty (migrations are applied to it)')
    .action(async (options: { from: string; to: string }) => {
      if (options.from === options.to) throw new CliError('--from and --to name the same database', EXIT.usage);
      const [{ assertEmpty, copyDatabase }, { migrateToLatest, openDatabase }] = await Promise.all([
        import('../../storage/copy.js'),
        import('../../storage/database.js'),
      ]);
      const source = await openDatabase(options.from);
      const target = await openDatabase(options.to).catch(async (error) => {
        await source.close();
        throw error;
      });
      try {
        await migrateToLatest(source);
        await migrateToLatest(target);
        await assertEmpty(target);
        const report = await copyDatabase(source, target, progressBar());
        printTable(
          report.tables.map((t) => ({
            table: t.table,
            source: String(t.source),
            target: String(t.target),
            check: t.source === t.target ? 'ok' : 'MISMATCH',
          })),
          ['table', 'source', 'target', 'check'],
        );
        if (!report.ok) throw new CliError('Row counts differ between source and target', EXIT.failure);
        process.stdout.write('Copy complete: every table has the same number of rows.\n');
      } finally {
        await source.close();
        await target.close();
      }
    });
}
