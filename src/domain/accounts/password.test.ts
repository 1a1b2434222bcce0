import { describe, expect, it } from 'vitest';
import { createScryptHasher, OWASP_SCRYPT } from './password.js';

describe('scrypt password hasher', () => {
  it('hashes at the real parameters by default, and the stored form names them', async () => {
    const hasher = createScryptHasher();
    const encoded = await hasher.hash('correct horse battery staple');
    expect(encoded).toMatch(/^scrypt\$17\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await hasher.verify('correct horse battery staple', encoded)).toBe(true);
    expect(await hasher.verify('correct horse battery stapler', encoded)).toBe(false);
  }, 30_000);

  it('verifies a hash made with other parameters (old hashes keep working after a change)', async () => {
    const cheap = createScryptHasher({ logN: 10, r: 8, p: 1 });
    const encoded = await cheap.hash('another password');
    expect(encoded.startsWith('scrypt$10$8$1$')).toBe(true);
    const current = createScryptHasher(OWASP_SCRYPT);
    expect(await current.verify('another password', encoded)).toBe(true);
    expect(await current.verify('another passwore', encoded)).toBe(false);
  });

  it('refuses what is not a scrypt hash', async () => {
    const hasher = createScryptHasher({ logN: 10, r: 8, p: 1 });
    expect(await hasher.verify('x', 'bcrypt$2b$...')).toBe(false);
    expect(await hasher.verify('x', 'scrypt$10$8$1$')).toBe(false);
  });
});
