import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender, resolveHost } from '../../src/webhooks/http-sender.js';
import { Receiver } from '../helpers/webhook-receiver.js';

/** The real sender with the system resolver: what the SSRF guard refuses never gets a connection. */
describe('webhook HTTP sender', () => {
  let receiver: Receiver;
  let silent: Server;
  let silentUrl = '';
  let big: Server;
  let bigUrl = '';

  beforeAll(async () => {
    receiver = await Receiver.start();
    // Never answers (the request stays open): the sender's own time bound ends it.
    silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/`;
    // Answers 200 with a body far over the read cap, and keeps writing.
    big = createServer((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (res.write(chunk)) if (res.writableLength > 1024 * 1024) break;
      };
      pump();
      res.on('drain', pump);
    });
    await new Promise<void>((resolve) => big.listen(0, '127.0.0.1', resolve));
    bigUrl = `http://127.0.0.1:${(big.address() as { port: number }).port}/`;
  });
  afterAll(async () => {
    await receiver.close();
    silent.closeAllConnections();
    big.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
    await new Promise((resolve) => big.close(resolve));
  });

  it('refuses loopback by address and by a name the system resolves to it (localhost)', async () => {
    expect(await resolveHost('localhost')).toEqual(expect.arrayContaining([expect.stringMatching(/^(127\.|::1)/)]));
    const send = createHttpSender({ timeoutMs: 5000, allowPrivateNetworks: false });
    const port = new URL(receiver.url).port;
    for (const url of [
      receiver.url,
      `http://localhost:${port}/hook`,
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      `http://2130706433:${port}/hook`,
    ]) {
      const result = await send(url, {}, '{}');
      expect(result.statusCode, url).toBe(null);
      expect(result.error, url).toMatch(/Refused/);
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('delivers when the operator allows private networks, and reports the status', async () => {
    const send = createHttpSender({ timeoutMs: 5000, allowPrivateNetworks: true });
    receiver.respond = () => 418;
    expect(await send(receiver.url, { 'cairn-event-id': 'evt_x' }, '{"a":1}')).toMatchObject({
      statusCode: 418,
      error: 'HTTP 418',
    });
    expect(receiver.received.at(-1)?.body).toBe('{"a":1}');
  });

  it('bounds the exchange in time and the answer it reads', async () => {
    const send = createHttpSender({ timeoutMs: 200, allowPrivateNetworks: true });
    const slow = await send(silentUrl, {}, '{}');
    expect(slow).toMatchObject({ statusCode: null, error: 'No answer within 200 ms' });
    const long = await createHttpSender({ timeoutMs: 30_000, allowPrivateNetworks: true })(bigUrl, {}, '{}');
    expect(long).toMatchObject({ statusCode: 200, error: null });
  });
});
