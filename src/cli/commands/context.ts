import { loadConfig } from '../../config.js';
import { type Container, createContainer } from '../../container.js';
import { createLogger } from '../../logger.js';

/**
 * Runs an operator command against the configured database (migrated first), then closes it so
 * the process exits promptly.
 */
export async function withContainer<T>(work: (container: Container) => Promise<T>): Promise<T> {
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
