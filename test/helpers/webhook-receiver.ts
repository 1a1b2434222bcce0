import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status this receiver answered. */
  status?: number;
}

/**
 * A real local webhook receiver (node:http on 127.0.0.1): records every request and answers with the
 * status `respond` chooses (default 200). `until` waits for a condition on what arrived — no sleeps.
 */
export class Receiver {
  received: Received[] = [];
  /** Requests in flight per event id, and the most ever in flight for one id (concurrent duplicates). */
  private inFlight = new Map<string, number>();
  maxConcurrentPerEvent = 0;
  respond: (request: Received, index: number) => number = () => 200;
  /** Held answers (to widen the window in which a second instance could deliver the same event). */
  holdMs = 0;
  private server!: Server;
  private waiters: Array<() => void> = [];
  url = '';

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    receiver.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const entry: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        const id = String(req.headers['cairn-event-id']);
        const now = (receiver.inFlight.get(id) ?? 0) + 1;
        receiver.inFlight.set(id, now);
        receiver.maxConcurrentPerEvent = Math.max(receiver.maxConcurrentPerEvent, now);
        const index = receiver.received.length;
        receiver.received.push(entry);
        const status = receiver.respond(entry, index);
        entry.status = status;
        setTimeout(() => {
          receiver.inFlight.set(id, (receiver.inFlight.get(id) ?? 1) - 1);
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
          for (const wake of receiver.waiters.splice(0)) wake();
        }, receiver.holdMs);
      });
    });
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    const address = receiver.server.address();
    receiver.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
    return receiver;
  }

  /** Resolves once `condition()` holds, re-checked after every answered request (fails after `timeoutMs`). */
  async until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!condition()) {
      if (performance.now() > deadline) throw new Error(`condition not met; received ${this.received.length}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  eventIds(): string[] {
    return this.received.map((entry) => String(entry.headers['cairn-event-id']));
  }

  /** The bodies (parsed) of the requests answered 2xx. */
  succeeded(): Array<{ id: string; type: string; object: { id: string } }> {
    return this.received.filter((entry) => (entry.status ?? 0) < 300).map((entry) => JSON.parse(entry.body));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
