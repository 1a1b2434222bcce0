import { homedir } from 'node:os';
import { createInterface } from 'node:readline';
import { CliError, EXIT } from '../../output.js';
import { ApiClient } from './api.js';
import { type ConfigLocation, resolveSettings } from './config.js';

/** The process's own configuration location: read once, at the command boundary, and passed on. */
export const processLocation = (): ConfigLocation => ({
  env: process.env,
  platform: process.platform,
  home: homedir(),
});

/** A client for the configured server and key (environment first, then the config file). */
export const connect = (location: ConfigLocation = processLocation()): ApiClient =>
  new ApiClient(resolveSettings(location));

export async function readStream(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Content from stdin when it is piped; on a terminal, the user is told what is expected (never a silent hang). */
export async function readPipedStdin(what: string): Promise<string> {
  if (process.stdin.isTTY) {
    throw new CliError(`no ${what}: give --file FILE, or pipe it on stdin`, EXIT.usage);
  }
  return (await readStream(process.stdin)).toString('utf8');
}

/** Reads one line from the terminal without echoing it (for the API key). */
export function readHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  return new Promise((resolve, reject) => {
    process.stderr.write(prompt);
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (error?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') return done();
        if (char === '\u0003') return done(new CliError('cancelled', 130));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else if (char >= ' ') value += char;
      }
    };
    stdin.on('data', onData);
  });
}

/** Asks a yes/no question on the terminal; false unless the answer starts with y. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => rl.question(`${question} [y/N] `, resolve));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** On a terminal, deleting asks first unless --yes; scripts (no TTY) are not asked. */
export async function confirmDeletion(what: string, yes: boolean | undefined): Promise<void> {
  if (yes || !process.stdin.isTTY || !process.stderr.isTTY) return;
  if (!(await confirm(`Delete ${what}?`))) throw new CliError('not deleted', EXIT.failure);
}

/** Repeatable option collector: `--label a --label b` → ['a', 'b']. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
