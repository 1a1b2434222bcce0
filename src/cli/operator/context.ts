import type { Container } from '../../container.js';

/**
 * Runs an operator command against the configured database (migrated first), then closes it so
 * the process exits promptly. The server modules are imported here, not at the top, so that client
 * commands (which never touch the database) start without loading them.
 */
export async function withContainer<T>(work: (container: Container) => Promise<T>): Promise<T> {
  const [{ loadConfig }, { createContainer }, { createLogger }] = await Promise.all([
    import('../../config.js'),
    import('../../container.js'),
    import('../../logger.js'),
  ]);
  const config = loadConfig();
  // Only errors, and on stderr: stdout carries the command's output (often JSON for scripts).
  const logger = createLogger({ logLevel: config.logLevel === 'silent' ? 'silent' : 'error' }, { stderr: true });
  const container = await createContainer(config, { logger, onBackgroundError: () => undefined });
  try {
    return await work(container);
  } finally {
    await container.close();
  }
}
