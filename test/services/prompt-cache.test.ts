import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Container, createContainer } from '../../src/container.js';
import { OPERATOR } from '../../src/domain/accounts/account-actor.js';
import { DIALECTS } from '../helpers/databases.js';
import { createTestServices, type TestServices } from '../helpers/services.js';

/**
 * Prompt reads answered from memory (prompt-service.ts), on every database: a repeated read of an admitted
 * key is the same frozen answer (no database read: a read builds a new object), and a write through another
 * instance — a second container on the same database, as a second server process would be — is seen by the
 * very next admitted request. On SQLite the stamp is the database's change stamp; on PostgreSQL it is the
 * user's prompt stamp, read with the key on each request (migration 0021).
 */
describe.each(DIALECTS)('prompt reads from memory across instances (%s)', (dialect) => {
  let a: TestServices;
  let b: Container;
  let key: string;
  let userId: string;

  beforeAll(async () => {
    a = await createTestServices(dialect);
    b = await createContainer(
      loadConfig({ DATABASE_URL: a.database.url, LOG_LEVEL: 'silent', USAGE_FLUSH_INTERVAL_MS: '3600000' }),
    );
    const user = await a.services.users.create(OPERATOR, { email: `cache-${dialect}@example.com` });
    userId = user.id;
    key = (
      await a.services.keys.create(
        { userId, integrations: new Set(['cli']), via: 'operator' },
        { name: 'cache', integrations: ['ai_tools', 'cli'] },
      )
    ).key;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** The actor of one admitted REST request to `instance`, as the HTTP layer gets it. */
  const admitted = async (instance: Container, surface: 'prompts.read' | 'prompts.write' = 'prompts.read') =>
    (await instance.services.gate.admit(`Bearer ${key}`, surface, '127.0.0.1')).actor;
  const read = async (instance: Container, slug: string, environment?: string) =>
    instance.services.prompts.get(await admitted(instance), slug, environment);

  it('answers a repeated read from memory, and every change through the other instance on the next request', async () => {
    const writer = await admitted(b, 'prompts.write');
    await b.services.prompts.create(writer, { slug: 'kept', title: 'Kept', content: 'One with @helper' });
    const first = await read(a.container, 'kept');
    expect(first).toMatchObject({ content: 'One with @helper', version: 1, broken_references: ['@helper'] });
    // The same object: answered from memory, not read again.
    expect(await read(a.container, 'kept')).toBe(first);

    // An update through B: A's next request misses and reads the new version.
    await b.services.prompts.update(await admitted(b, 'prompts.write'), 'kept', { content: 'Two with @helper' });
    const second = await read(a.container, 'kept');
    expect(second).toMatchObject({ content: 'Two with @helper', version: 2 });
    expect(await read(a.container, 'kept')).toBe(second);

    // Another prompt of the user created through B: this one's broken reference is resolved.
    await b.services.prompts.create(await admitted(b, 'prompts.write'), {
      slug: 'helper',
      title: 'Helper',
      content: 'Help',
    });
    expect((await read(a.container, 'kept')).broken_references).toEqual([]);

    // Environment pointers moved and removed through B.
    await b.services.prompts.setEnvironment(await admitted(b, 'prompts.write'), 'kept', 'production', { version: 1 });
    expect((await read(a.container, 'kept', 'production')).content).toBe('One with @helper');
    await b.services.prompts.setEnvironment(await admitted(b, 'prompts.write'), 'kept', 'production', { version: 2 });
    expect((await read(a.container, 'kept', 'production')).content).toBe('Two with @helper');
    await b.services.prompts.removeEnvironment(await admitted(b, 'prompts.write'), 'kept', 'production');
    await expect(read(a.container, 'kept', 'production')).rejects.toThrow();

    // Deleted through B: gone on A's next request.
    await b.services.prompts.delete(await admitted(b, 'prompts.write'), 'kept');
    await expect(read(a.container, 'kept')).rejects.toThrow(/not found/i);
  });

  it('sees a prompt written outside the prompt store (an earlier version’s instance, SQL by hand) on the next request', async () => {
    await b.services.prompts.create(await admitted(b, 'prompts.write'), {
      slug: 'by-hand',
      title: 'By hand',
      content: 'Before',
    });
    const first = await read(a.container, 'by-hand');
    expect(await read(a.container, 'by-hand')).toBe(first);
    // No stamp written by the writer: PostgreSQL's triggers add one, SQLite's change stamp moves anyway.
    await sql`update prompts set content = 'After' where user_id = ${userId} and slug = 'by-hand'`.execute(
      b.database.db,
    );
    expect((await read(a.container, 'by-hand')).content).toBe('After');
    await sql`delete from prompts where user_id = ${userId} and slug = 'by-hand'`.execute(b.database.db);
    await expect(read(a.container, 'by-hand')).rejects.toThrow(/not found/i);
  });

  it('keeps another user’s writes from emptying this user’s prompts in memory (PostgreSQL), or not (SQLite)', async () => {
    const writer = await admitted(b, 'prompts.write');
    await b.services.prompts.create(writer, { slug: 'steady', title: 'Steady', content: 'Steady' });
    const first = await read(a.container, 'steady');
    const other = await b.services.users.create(OPERATOR, { email: `other-${dialect}@example.com` });
    await b.services.prompts.create(
      { userId: other.id, integrations: new Set(['cli']), via: 'rest' },
      { slug: 'theirs', title: 'Theirs', content: 'Theirs' },
    );
    const again = await read(a.container, 'steady');
    expect(again).toEqual(first);
    // PostgreSQL's stamp is the user's own; SQLite's is the whole database's, which the other write moved.
    if (dialect === 'postgres') expect(again).toBe(first);
    else expect(again).not.toBe(first);
  });
});
