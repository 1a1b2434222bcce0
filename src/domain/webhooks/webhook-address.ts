import { BlockList, isIP } from 'node:net';
import { WEBHOOK_URL_MAX } from '../../contract/index.js';

/**
 * Where webhooks may not go unless the operator allows private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS):
 * loopback, "this network", private (RFC 1918), carrier-grade NAT, link-local (cloud metadata lives at
 * 169.254.169.254), benchmarking, multicast and reserved ranges, IPv6 loopback/unspecified, unique-local
 * (fc00::/7), link-local (fe80::/10), multicast, and every IPv4-mapped, IPv4-compatible or NAT64 IPv6
 * address (they reach IPv4 hosts, so they are refused whatever they map to). Checked on the URL at
 * registration and on every resolved address at delivery (DNS rebinding).
 */
// Two lists: Node's BlockList matches an IPv4 address against IPv6 rules through its IPv4-mapped form, so
// one list holding ::ffff:0:0/96 would refuse every IPv4 address.
const BLOCKED_V4 = new BlockList();
const BLOCKED_V6 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED_V4.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback (::1) and IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED_V6.addSubnet(net, prefix, 'ipv6');
}

/** An address literal without brackets or zone (`fe80::1%eth0` → `fe80::1`). */
const bare = (address: string) => address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');

/** True when `address` (an IP literal) is in a refused range; a non-address is refused too. */
export function isBlockedAddress(address: string): boolean {
  const ip = bare(address);
  const family = isIP(ip);
  if (family === 0) return true;
  return family === 4 ? BLOCKED_V4.check(ip, 'ipv4') : BLOCKED_V6.check(ip, 'ipv6');
}

export type UrlProblem = string | undefined;

/**
 * Why `raw` cannot be a webhook URL, or undefined: an absolute http(s) URL without credentials, within the
 * length limit, whose host (when it is an address literal) is not in a refused range. Host names are
 * checked when they resolve (registration and every delivery), by the caller.
 */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): UrlProblem {
  if (raw.length > WEBHOOK_URL_MAX) return `Must be at most ${WEBHOOK_URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute http:// or https:// URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Must be an http:// or https:// URL';
  if (url.username || url.password) return 'Must not contain a user name or password';
  if (!url.hostname) return 'Must name a host';
  const host = bare(url.hostname);
  if (!allowPrivate && isIP(host) !== 0 && isBlockedAddress(host)) {
    return 'Refused: loopback, private, link-local and reserved addresses are not allowed';
  }
  return undefined;
}

/** The host of a URL as the resolver takes it (no brackets), and whether it is an address literal. */
export function urlHost(raw: string): { host: string; literal: boolean } {
  const host = bare(new URL(raw).hostname);
  return { host, literal: isIP(host) !== 0 };
}
