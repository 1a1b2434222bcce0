import type { Command } from 'commander';
import type { Container } from '../../container.js';
import { type ApiKey, INTEGRATIONS, type Integration } from '../../contract/index.js';
import { OPERATOR } from '../../domain/accounts/account-actor.js';
import type { Actor } from '../../domain/common/actor.js';
import { printJson, printTable } from '../output.js';
import { withContainer } from './context.js';

const integrationList = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** Operator commands act for the user named by --email. */
async function operatorFor(container: Container, email: string): Promise<Actor> {
  const user = await container.services.users.requireByEmail(OPERATOR, email);
  return { userId: user.id, integrations: new Set<Integration>(INTEGRATIONS), via: 'operator' };
}

const describeKey = (key: ApiKey) =>
  `${key.id} '${key.name}' (${key.prefix}…) integrations: ${key.integrations.join(', ')}${key.legacy ? ' [legacy]' : ''}`;

export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description('Manage API keys');

  keys
    .command('create')
    .description('Create an API key; the key is printed once and cannot be shown again')
    .requiredOption('--email <email>', 'owner of the key')
    .requiredOption('--name <name>', 'what the key is for')
    .requiredOption('--integrations <list>', `comma-separated: ${INTEGRATIONS.join(',')}`, integrationList)
    .option('--json', 'print {id, key, prefix, integrations, …} as JSON')
    .action(async (options) => {
      const created = await withContainer(async (c) =>
        c.services.keys.create(await operatorFor(c, options.email), {
          name: options.name,
          integrations: options.integrations,
        }),
      );
      if (options.json) return printJson(created);
      // The key alone on stdout (so `KEY=$(cairn keys create …)` works); the rest on stderr.
      process.stdout.write(`${created.key}\n`);
      process.stderr.write(
        `Created ${describeKey(created)}\nCopy the key now: it is stored only as a hash and cannot be shown again.\n`,
      );
    });

  keys
    .command('import-legacy')
    .description(
      'Import a key from the old system (aait_, acli_, amcp_, amkt_, ak_); it keeps working with all integrations',
    )
    .requiredOption('--email <email>', 'owner of the key')
    .requiredOption('--key <key>', 'the legacy key')
    .option('--name <name>', 'what the key is for')
    .option('--json', 'print the key record as JSON')
    .action(async (options) => {
      const imported = await withContainer(async (c) =>
        c.services.keys.importLegacy(await operatorFor(c, options.email), { key: options.key, name: options.name }),
      );
      if (options.json) printJson(imported);
      else process.stdout.write(`Imported ${describeKey(imported)}\n`);
    });

  keys
    .command('list')
    .description("List a user's keys (never the keys themselves)")
    .requiredOption('--email <email>', 'owner of the keys')
    .option('--json', 'print as JSON')
    .action(async (options) => {
      const list = await withContainer(async (c) => c.services.keys.list(await operatorFor(c, options.email)));
      if (options.json) return printJson(list);
      if (list.length === 0) return void process.stdout.write('No keys.\n');
      printTable(
        list.map((k) => ({
          id: k.id,
          name: k.name,
          prefix: k.prefix,
          integrations: k.integrations.join(','),
          legacy: k.legacy ? 'yes' : '',
          created: k.created_at,
          last_used: k.last_used_at ?? 'never',
          requests: String(k.request_count),
          status: k.revoked_at ? `revoked ${k.revoked_at}` : 'active',
        })),
        ['id', 'name', 'prefix', 'integrations', 'legacy', 'created', 'last_used', 'requests', 'status'],
      );
    });

  keys
    .command('revoke')
    .description('Revoke a key by id; every request with it is refused from now on')
    .argument('<id>', 'key id (key_…)')
    .option('--json', 'print the revoked key as JSON')
    .action(async (id: string, options) => {
      const revoked = await withContainer((c) => c.services.keys.revoke(OPERATOR, id));
      if (options.json) printJson(revoked);
      else process.stdout.write(`Revoked ${describeKey(revoked)}\n`);
    });
}
