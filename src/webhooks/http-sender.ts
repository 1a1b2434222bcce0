import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { WEBHOOK_ERROR_MAX, WEBHOOK_RESPONSE_READ_MAX } from '../contract/index.js';
import { isBlockedAddress, urlHost } from '../domain/webhooks/webhook-address.js';
import type { ResolveHost } from '../domain/webhooks/webhook-service.js';

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export type Send = (
  url: string,
  headers: Record<string, string>,
  body: string,
  signal?: AbortSignal,
) => Promise<SendResult>;

/** Every address of `host` as the system resolver gives them (the resolver the delivery connects with). */
export const resolveHost: ResolveHost = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

export interface SenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  resolve?: ResolveHost;
}

const REFUSED = 'Refused: the address is loopback, private, link-local or reserved';
const short = (message: string) => message.slice(0, WEBHOOK_ERROR_MAX);

/**
 * POSTs one delivery. The SSRF guard runs where the connection is made: the request's own `lookup` resolves
 * the host, refuses it if ANY address is in a refused range, and connects to the address it checked — so a
 * name that resolved to a public address at registration and to 10.0.0.1 now (DNS rebinding) is refused,
 * and no second lookup can differ from the checked one. No keep-alive (each delivery resolves afresh), no
 * redirects followed (a 3xx is a failure), the whole exchange bounded by `timeoutMs`, and at most
 * WEBHOOK_RESPONSE_READ_MAX bytes of the answer read before the connection is dropped.
 */
export function createHttpSender(options: SenderOptions): Send {
  const resolve = options.resolve ?? resolveHost;
  const guardedLookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = !options.allowPrivateNetworks && addresses.some(isBlockedAddress);
        const [first] = addresses;
        if (refused || first === undefined) {
          const error = Object.assign(new Error(refused ? REFUSED : `${hostname} does not resolve`), {
            code: refused ? 'EREFUSEDADDRESS' : 'ENOTFOUND',
          });
          callback(error, '', 4);
          return;
        }
        const family = isIP(first) === 6 ? 6 : 4;
        if (lookupOptions.all) callback(null, [{ address: first, family }]);
        else callback(null, first, family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 4),
    );
  };

  return (url, headers, body, signal) =>
    new Promise<SendResult>((done) => {
      const started = performance.now();
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (statusCode: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        done({
          statusCode,
          error: error === null ? null : short(error),
          durationMs: Math.round(performance.now() - started),
        });
      };
      const { host, literal } = urlHost(url);
      if (literal && !options.allowPrivateNetworks && isBlockedAddress(host)) {
        return finish(null, REFUSED);
      }
      const send = url.startsWith('https:') ? httpsRequest : httpRequest;
      const request = send(url, {
        method: 'POST',
        agent: false,
        lookup: guardedLookup,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(signal && { signal }),
      });
      timer = setTimeout(() => {
        request.destroy(new Error(`No answer within ${options.timeoutMs} ms`));
      }, options.timeoutMs);
      request.on('error', (error) => finish(null, error.message));
      request.on('response', (response: IncomingMessage) => {
        let read = 0;
        const status = response.statusCode ?? null;
        const failure = status !== null && status >= 200 && status < 300 ? null : `HTTP ${status}`;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > WEBHOOK_RESPONSE_READ_MAX) {
            finish(status, failure);
            response.destroy();
          }
        });
        response.on('end', () => finish(status, failure));
        response.on('error', () => finish(status, failure));
        response.on('close', () => finish(status, failure));
      });
      request.end(body);
    });
}
