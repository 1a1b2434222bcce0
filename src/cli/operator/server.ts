import type { Command } from 'commander';

export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the HTTP service (REST API, MCP endpoint, dashboard); what `npm start` runs')
    .action(async () => {
      const [{ loadConfig }, { startServer, stopOnSignals }] = await Promise.all([
        import('../../config.js'),
        import('../../main.js'),
      ]);
      const config = loadConfig();
      const server = await startServer(config);
      stopOnSignals(server, config.shutdownTimeoutMs);
      server.app.log.info(`Cairn is listening on ${server.url}`);
    });

  program
    .command('migrate')
    .description('Apply pending database migrations (serve also does this at start)')
    .action(async () => {
      const [{ loadConfig }, { migrateToLatest, openDatabase }] = await Promise.all([
        import('../../config.js'),
        import('../../storage/database.js'),
      ]);
      const config = loadConfig();
      const database = await openDatabase(config.databaseUrl, {
        preparedStatements: config.postgresPreparedStatements,
      });
      try {
        const applied = await migrateToLatest(database);
        process.stdout.write(applied.length === 0 ? 'Database is up to date.\n' : `Applied: ${applied.join(', ')}\n`);
      } finally {
        await database.close();
      }
    });
}
