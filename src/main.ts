import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { type Container, createContainer } from './container.js';
import { buildApp } from './http/app.js';

export interface RunningServer {
  app: FastifyInstance;
  container: Container;
  /** The address actually bound (useful with PORT=0). */
  url: string;
  stop(): Promise<void>;
}

/** Process entry for `cairn serve`: config → container → HTTP app → listen. */
export async function startServer(config: Config): Promise<RunningServer> {
  const container = await createContainer(config);
  const app = await buildApp(container);
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await container.close();
    throw error;
  }
  // Semantic search (EMBEDDINGS_URL): learn the model's size and embed what is missing, in the background.
  container.embeddings?.startBackground();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;

  let stopping: Promise<void> | undefined;
  const stop = () => {
    // Stop accepting, let in-flight requests finish, then flush usage and close storage.
    stopping ??= (async () => {
      await app.close();
      await container.close();
    })();
    return stopping;
  };
  return { app, container, url: `http://${host}:${port}`, stop };
}

/** Stops gracefully on SIGINT/SIGTERM; exits anyway after `timeoutMs`. */
export function stopOnSignals(server: RunningServer, timeoutMs: number): void {
  const onSignal = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      server.app.log.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    server.stop().then(
      () => process.exit(0),
      (error) => {
        server.app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}
