import type { Command } from 'commander';
import { CliError, EXIT, printJson, say, warn } from '../../output.js';
import { ApiClient } from '../client/api.js';
import {
  configFile,
  keyPrefix,
  normaliseUrl,
  readStoredConfig,
  removeStoredConfig,
  resolveSettings,
  writeStoredConfig,
} from '../client/config.js';
import { processLocation, readHidden, readStream } from '../client/terminal.js';

/** The key never comes from the command line (it would show in `ps` and shell history). */
async function readKey(): Promise<string> {
  const key = process.stdin.isTTY
    ? await readHidden('API key (input hidden): ')
    : (await readStream(process.stdin)).toString('utf8');
  const trimmed = key.trim();
  if (trimmed === '') throw new CliError('no API key given (type it at the prompt, or pipe it on stdin)', EXIT.usage);
  if (/\s/.test(trimmed)) throw new CliError('an API key has no spaces or line breaks', EXIT.usage);
  return trimmed;
}

/** A cheap authenticated request, accepted by a `cli` key: one prompt of the list. */
const probe = (client: ApiClient) => client.send('GET', '/prompts', { query: { per_page: 1 } });

export function registerLoginCommands(program: Command): void {
  program
    .command('login')
    .description('Store the server URL and an API key (read from a hidden prompt, or stdin) after checking them')
    .option('--url <url>', 'server address, e.g. http://127.0.0.1:8080 (default: CAIRN_URL, or the stored one)')
    .option('--json', 'print {url, key_prefix, config_file} as JSON')
    .action(async (options: { url?: string; json?: boolean }) => {
      const location = processLocation();
      const path = configFile(location);
      const given = options.url ?? location.env.CAIRN_URL ?? readStoredConfig(path)?.url;
      if (!given) throw new CliError('which server? give --url URL (e.g. http://127.0.0.1:8080)', EXIT.usage);
      const url = normaliseUrl(given);
      const apiKey = await readKey();
      const response = await probe(new ApiClient({ url, apiKey, keySource: 'config file' })).catch((error) => {
        if (error instanceof CliError && error.exitCode === EXIT.auth) {
          throw new CliError(`${error.message.replace(/; run .*$/, '')}; nothing was stored`, EXIT.auth);
        }
        throw error;
      });
      await response.body?.cancel();
      writeStoredConfig(path, { url, api_key: apiKey });
      if (options.json) return printJson({ url, key_prefix: keyPrefix(apiKey), config_file: path });
      say(`Logged in to ${url} with key ${keyPrefix(apiKey)} (stored in ${path})\n`);
      if (location.env.CAIRN_API_KEY || location.env.CAIRN_URL) {
        warn('Note: CAIRN_URL / CAIRN_API_KEY are set and take precedence over the stored values.\n');
      }
    });

  program
    .command('logout')
    .description('Forget the stored server URL and API key')
    .action(() => {
      const location = processLocation();
      const path = configFile(location);
      say(removeStoredConfig(path) ? `Logged out (removed ${path})\n` : 'Not logged in.\n');
      if (location.env.CAIRN_API_KEY) warn('Note: CAIRN_API_KEY is still set in the environment.\n');
    });

  program
    .command('whoami')
    .description('Show the server, your account and the key in use (its prefix only)')
    .option('--json', 'print as JSON')
    .action(async (options: { json?: boolean }) => {
      const settings = resolveSettings(processLocation());
      const client = new ApiClient(settings);
      // One request: the account and key from GET /me, this hour's figures from its rate-limit headers.
      const { me, rate } = await client.me();
      const info = {
        url: settings.url,
        url_source: settings.urlSource,
        key_prefix: keyPrefix(settings.apiKey),
        key_source: settings.keySource,
        config_file: settings.configPath,
        user: me.user,
        key: me.key,
        rate_limit: rate
          ? { limit: rate.limit, remaining: rate.remaining, reset: new Date(rate.reset * 1000).toISOString() }
          : null,
      };
      if (options.json) return printJson(info);
      const lines = [
        `Server:     ${info.url} (from ${info.url_source})`,
        `Account:    ${me.user.email} (${me.user.tier} tier)`,
        `API key:    ${info.key_prefix} (from ${info.key_source})${
          me.key ? `, "${me.key.name}", integrations ${me.key.integrations.join(', ')}` : ''
        }`,
        info.rate_limit
          ? `Rate limit: ${info.rate_limit.remaining} of ${info.rate_limit.limit} requests left this hour (resets ${info.rate_limit.reset})`
          : 'Rate limit: not reported by the server',
      ];
      say(`${lines.join('\n')}\n`);
    });
}
