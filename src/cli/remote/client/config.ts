import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { CliError, EXIT } from '../../output.js';

/** Where the client keeps its settings; everything that decides it is passed in (no hidden global state). */
export interface ConfigLocation {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
}

/** `%APPDATA%\cairn` on Windows; `$XDG_CONFIG_HOME/cairn`, else `~/.config/cairn`, elsewhere. */
export function configDir({ env, platform, home }: ConfigLocation): string {
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'cairn');
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says relative values are to be ignored.
  return join(xdg?.startsWith('/') ? xdg : join(home, '.config'), 'cairn');
}

export const configFile = (location: ConfigLocation): string => join(configDir(location), 'config.json');

const storedConfig = z.object({ url: z.string().min(1), api_key: z.string().min(1) });
export type StoredConfig = z.infer<typeof storedConfig>;

/** The server URL as given, without a trailing slash or `/api/v1` (both are accepted at login). */
export function normaliseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new CliError(`not a URL: ${raw} (expected e.g. http://127.0.0.1:8080)`, EXIT.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`the server URL must start with http:// or https:// (got ${raw})`, EXIT.usage);
  }
  url.search = '';
  url.hash = '';
  return url.href.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
}

export function readStoredConfig(path: string): StoredConfig | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, EXIT.failure);
  }
  try {
    return storedConfig.parse(JSON.parse(text));
  } catch {
    throw new CliError(`${path} is not a valid Cairn config; run \`cairn login\` again`, EXIT.usage);
  }
}

/** Writes the file readable by its owner only (0600) in a directory only the owner can enter (0700). */
export function writeStoredConfig(path: string, config: StoredConfig): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

export function removeStoredConfig(path: string): boolean {
  try {
    rmSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

export type Source = 'environment' | 'config file';

export interface ClientSettings {
  url: string;
  apiKey: string;
  urlSource: Source;
  keySource: Source;
  configPath: string;
}

/**
 * Precedence, per setting: CAIRN_URL / CAIRN_API_KEY in the environment, then the config file written
 * by `cairn login`. Missing either → exit 5 with what to do.
 */
export function resolveSettings(location: ConfigLocation): ClientSettings {
  const configPath = configFile(location);
  const envUrl = location.env.CAIRN_URL?.trim();
  const envKey = location.env.CAIRN_API_KEY?.trim();
  const stored = envUrl && envKey ? undefined : readStoredConfig(configPath);
  const url = envUrl || stored?.url;
  const apiKey = envKey || stored?.api_key;
  if (!url || !apiKey) {
    const missing = !url && !apiKey ? 'no server URL and no API key' : !url ? 'no server URL' : 'no API key';
    throw new CliError(
      `not logged in (${missing}): run \`cairn login --url URL\`, or set CAIRN_URL and CAIRN_API_KEY`,
      EXIT.auth,
    );
  }
  return {
    url: normaliseUrl(url),
    apiKey,
    urlSource: envUrl ? 'environment' : 'config file',
    keySource: envKey ? 'environment' : 'config file',
    configPath,
  };
}

/**
 * What may be shown of a key: the 12-character prefix the dashboard lists (`svk_` + 8 of 64 random
 * characters); of other (legacy) keys at most a quarter, never more than 8 characters.
 */
export const keyPrefix = (key: string): string =>
  `${key.startsWith('svk_') ? key.slice(0, 12) : key.slice(0, Math.min(8, Math.floor(key.length / 4)))}…`;
