import { type Command, InvalidArgumentError, Option } from 'commander';
import { TIERS } from '../../contract/index.js';
import { OPERATOR } from '../../domain/accounts/account-actor.js';
import { printJson } from '../output.js';
import { withContainer } from './context.js';

/**
 * `--rate-limit N` (requests per hour) or `default` to fall back to the tier's value. Commander turns a
 * parsed null into '', so `default` stays a word here and becomes null in `rateLimitOption`.
 */
export function parseRateLimit(value: string): number | 'default' {
  if (value === 'default') return 'default';
  if (!/^\d{1,10}$/.test(value)) {
    throw new InvalidArgumentError('must be a whole number of requests per hour, or "default"');
  }
  return Number(value);
}

const rateLimitOption = (value: number | 'default' | undefined) => (value === 'default' ? null : value);

export function registerUserCommands(program: Command): void {
  const users = program.command('users').description('Manage user accounts');

  users
    .command('create')
    .description('Create a user (the first user of an installation becomes the admin)')
    .requiredOption('--email <email>', 'e-mail address (the login name)')
    .option('--password <password>', 'password for the dashboard (8–128 characters); omit for API-only users')
    .addOption(new Option('--tier <tier>', 'rate-limit tier').choices(TIERS).default('free'))
    .option('--rate-limit <n>', 'hourly request limit overriding the tier, or "default"', parseRateLimit)
    .option('--json', 'print the user as JSON')
    .action(async (options) => {
      const user = await withContainer((c) =>
        c.services.users.create(OPERATOR, {
          email: options.email,
          password: options.password,
          tier: options.tier,
          rateLimit: rateLimitOption(options.rateLimit),
        }),
      );
      if (options.json) printJson(user);
      else
        process.stdout.write(
          `Created user ${user.email} (${user.id}), tier ${user.tier}${user.is_admin ? ', admin' : ''}\n`,
        );
    });

  users
    .command('update')
    .description("Change a user's tier or hourly limit")
    .requiredOption('--email <email>', 'the user to change')
    .addOption(new Option('--tier <tier>', 'rate-limit tier').choices(TIERS))
    .option('--rate-limit <n>', 'hourly request limit overriding the tier, or "default"', parseRateLimit)
    .option('--json', 'print the user as JSON')
    .action(async (options) => {
      const user = await withContainer((c) =>
        c.services.users.update(OPERATOR, options.email, {
          tier: options.tier,
          rateLimit: rateLimitOption(options.rateLimit),
        }),
      );
      if (options.json) printJson(user);
      else {
        const limit = user.rate_limit === null ? 'tier default' : `${user.rate_limit}/hour`;
        process.stdout.write(`Updated ${user.email}: tier ${user.tier}, limit ${limit}\n`);
      }
    });
}
