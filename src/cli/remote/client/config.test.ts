import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAddress } from '../commands/artifacts.js';
import { describeReset } from './api.js';
import { configDir, keyPrefix, normaliseUrl, resolveSettings, writeStoredConfig } from './config.js';

describe('client configuration', () => {
  it('lives in $XDG_CONFIG_HOME/cairn, else ~/.config/cairn, or %APPDATA%\\cairn on Windows', () => {
    expect(configDir({ env: { XDG_CONFIG_HOME: '/x/conf' }, platform: 'linux', home: '/home/u' })).toBe(
      '/x/conf/cairn',
    );
    expect(configDir({ env: {}, platform: 'darwin', home: '/Users/u' })).toBe('/Users/u/.config/cairn');
    expect(configDir({ env: { XDG_CONFIG_HOME: 'relative' }, platform: 'linux', home: '/home/u' })).toBe(
      '/home/u/.config/cairn',
    );
    expect(
      configDir({ env: { APPDATA: 'C:/Users/u/AppData/Roaming' }, platform: 'win32', home: 'C:/Users/u' }),
    ).toMatch(/Roaming[\\/]cairn$/);
  });

  it('the environment overrides the file, setting by setting; nothing at all is exit 5', () => {
    const home = mkdtempSync(join(tmpdir(), 'cairn-config-'));
    const location = (env: NodeJS.ProcessEnv) => ({
      env: { XDG_CONFIG_HOME: join(home, 'c'), ...env },
      platform: 'linux' as const,
      home,
    });
    expect(() => resolveSettings(location({}))).toThrow(expect.objectContaining({ exitCode: 5 }));
    const path = join(home, 'c', 'cairn', 'config.json');
    writeStoredConfig(path, { url: 'http://file:1', api_key: 'svk_file' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ url: 'http://file:1', api_key: 'svk_file' });
    expect(resolveSettings(location({}))).toMatchObject({
      url: 'http://file:1',
      apiKey: 'svk_file',
      urlSource: 'config file',
    });
    expect(resolveSettings(location({ CAIRN_API_KEY: 'svk_env' }))).toMatchObject({
      url: 'http://file:1',
      apiKey: 'svk_env',
      urlSource: 'config file',
      keySource: 'environment',
    });
    expect(resolveSettings(location({ CAIRN_URL: 'http://env:2/', CAIRN_API_KEY: 'k' }))).toMatchObject({
      url: 'http://env:2',
      urlSource: 'environment',
    });
  });

  it('normalises URLs (trailing slash, /api/v1) and refuses non-HTTP ones', () => {
    expect(normaliseUrl('http://h:8080/')).toBe('http://h:8080');
    expect(normaliseUrl('https://h/cairn/api/v1/')).toBe('https://h/cairn');
    expect(() => normaliseUrl('ftp://h')).toThrow(/http/);
    expect(() => normaliseUrl('not a url')).toThrow(/not a URL/);
  });

  it('shows only a key prefix', () => {
    expect(keyPrefix(`svk_${'a'.repeat(64)}`)).toBe('svk_aaaaaaaa…');
    expect(keyPrefix('ak_legacylegacy1234')).toBe('ak_l…');
  });

  it('splits artifact addresses at the last slash', () => {
    expect(parseAddress('acme/backend/api-design')).toEqual({ project: 'acme/backend', slug: 'api-design' });
    expect(parseAddress('p/s')).toEqual({ project: 'p', slug: 's' });
    for (const bad of ['slug', '/slug', 'p/', 'p//s', 'p/Not_A_Slug'])
      expect(() => parseAddress(bad)).toThrow(/<project>\/<slug>/);
  });

  it('describes the rate-limit reset as a time and a wait', () => {
    const now = Date.parse('2026-11-21T13:48:00.000Z');
    expect(describeReset(720, now)).toBe('2026-11-21T14:00:00Z (in 12 min)');
    expect(describeReset(30, now)).toBe('2026-11-21T13:48:30Z (in 30 s)');
    // Retry-After is whole seconds counted when the server answered; read later by the CLI, now + Retry-After
    // passes the window's end (asked at 13:59:59.9, Retry-After 1, read at 14:00:00.1: 14:00:01). The
    // server's X-RateLimit-Reset is the exact moment.
    const readAt = Date.parse('2026-11-21T14:00:00.100Z');
    expect(describeReset(1, readAt)).toBe('2026-11-21T14:00:01Z (in 1 s)');
    expect(describeReset(1, readAt, Date.parse('2026-11-21T14:00:00Z') / 1000)).toBe('2026-11-21T14:00:00Z (in 1 s)');
  });
});
