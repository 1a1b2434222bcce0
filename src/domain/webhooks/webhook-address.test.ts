import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isBlockedAddress, webhookUrlProblem } from './webhook-address.js';

const v4 = (a: number, b: number, c: number, d: number) => `${a}.${b}.${c}.${d}`;
const octet = fc.integer({ min: 0, max: 255 });

describe('webhook address guard', () => {
  it('refuses every address of the private, loopback and link-local ranges', () => {
    const ranges: Array<[fc.Arbitrary<string>, string]> = [
      [fc.tuple(octet, octet, octet).map(([b, c, d]) => v4(10, b, c, d)), '10/8'],
      [fc.tuple(octet, octet, octet).map(([b, c, d]) => v4(127, b, c, d)), '127/8'],
      [fc.tuple(fc.integer({ min: 16, max: 31 }), octet, octet).map(([b, c, d]) => v4(172, b, c, d)), '172.16/12'],
      [fc.tuple(octet, octet).map(([c, d]) => v4(192, 168, c, d)), '192.168/16'],
      [fc.tuple(octet, octet).map(([c, d]) => v4(169, 254, c, d)), '169.254/16'],
      [fc.tuple(octet, octet, octet, octet).map(([a, b, c, d]) => `::ffff:${v4(a, b, c, d)}`), 'IPv4-mapped'],
      [fc.integer({ min: 0xfc00, max: 0xfdff }).map((h) => `${h.toString(16)}::1`), 'fc00::/7'],
      [fc.integer({ min: 0xfe80, max: 0xfebf }).map((h) => `${h.toString(16)}::abcd`), 'fe80::/10'],
    ];
    for (const [arbitrary] of ranges) {
      fc.assert(fc.property(arbitrary, (address) => isBlockedAddress(address)));
    }
  });

  it('lets public addresses through', () => {
    for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '172.15.255.255', '2606:4700::1111', '1.1.1.1']) {
      expect(isBlockedAddress(address), address).toBe(false);
    }
    expect(isBlockedAddress('::1')).toBe(true);
    expect(isBlockedAddress('[::1]')).toBe(true);
    expect(isBlockedAddress('fe80::1%eth0')).toBe(true);
    expect(isBlockedAddress('not-an-address')).toBe(true);
  });

  it('takes only absolute http(s) URLs without credentials, bounded', () => {
    expect(webhookUrlProblem('https://example.com/x', false)).toBeUndefined();
    expect(webhookUrlProblem('http://127.0.0.1:9/x', true)).toBeUndefined();
    expect(webhookUrlProblem('http://127.0.0.1:9/x', false)).toMatch(/Refused/);
    expect(webhookUrlProblem('javascript:alert(1)', true)).toMatch(/http/);
    expect(webhookUrlProblem('file:///etc/passwd', true)).toMatch(/http/);
    expect(webhookUrlProblem('https://a:b@example.com', true)).toMatch(/user name/);
    expect(webhookUrlProblem(`https://example.com/${'x'.repeat(3000)}`, true)).toMatch(/at most/);
  });
});
