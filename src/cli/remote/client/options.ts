import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from '../../../contract/index.js';
import { CliError, EXIT } from '../../output.js';
import { readPipedStdin } from './terminal.js';

export const positiveInt = (value: string): number => {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('must be a positive integer');
  return Number(value);
};

/** `name=value` pairs of repeated `--var` options. */
export const variable = (value: string, previous: Record<string, string> = {}): Record<string, string> => {
  const at = value.indexOf('=');
  if (at < 1) throw new InvalidArgumentError(`expected name=value, got "${value}"`);
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
};

export function readTextFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      `cannot read ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      code === 'ENOENT' ? EXIT.notFound : EXIT.failure,
    );
  }
}

/** The text flags every command that takes text shares (docs/cli.md, "Flags"). */
export interface TextOptions {
  content?: string;
  file?: string;
}

/** Adds `--content TEXT` and `--file PATH` (`-` = stdin) to a command that takes text. */
export const withTextOptions = (command: Command, what: string): Command =>
  command
    .option('--content <text>', `the ${what}`)
    .option('--file <path>', `read the ${what} from this file (- = stdin)`);

/**
 * A command's text from exactly one source, the same way everywhere: the positional argument (`-` = stdin),
 * `--content TEXT`, `--file PATH` (`-` = stdin), or else piped stdin. Two sources at once are refused (which
 * one was meant is a guess). Without any: piped stdin when `required` and stdin is not a terminal, a usage
 * error when `required`, else undefined (an update that leaves the text alone).
 */
export async function textFrom(
  positional: string | undefined,
  options: TextOptions,
  what: string,
  required: boolean,
): Promise<string | undefined> {
  const given = [
    positional !== undefined ? 'an argument' : undefined,
    options.content !== undefined ? '--content' : undefined,
    options.file !== undefined ? '--file' : undefined,
  ].filter((source) => source !== undefined);
  if (given.length > 1) {
    throw new CliError(`give the ${what} once, not with ${given.join(' and ')}`, EXIT.usage);
  }
  if (positional === '-' || options.file === '-') return readPipedStdin(what);
  if (positional !== undefined) return positional;
  if (options.content !== undefined) return options.content;
  if (options.file !== undefined) return readTextFile(options.file);
  if (required && !process.stdin.isTTY) return readPipedStdin(what);
  if (required) {
    throw new CliError(
      `no ${what}: give it as an argument, with --content TEXT or --file FILE, or on stdin`,
      EXIT.usage,
    );
  }
  return undefined;
}

export const stem = (path: string): string => basename(path).replace(/\.[^.]*$/, '');

/** Pagination flags shared by every list. */
export interface PageOptions {
  page?: number;
  perPage?: number;
}
export const pageQuery = (options: PageOptions) => ({ page: options.page, per_page: options.perPage });

/** Adds `--page N` and `--per-page N` (the API's bounds) to a list command. */
export const withPageOptions = (command: Command, items: string): Command =>
  command
    .option('--page <n>', 'page number', positiveInt)
    .option('--per-page <n>', `${items} per page (1–${MAX_PER_PAGE}, default ${DEFAULT_PER_PAGE})`, positiveInt);

/** "20 of 57 shown (page 1 of 3; use --page N)" when a list has more than one page. */
export function pageFooter(shown: number, body: { total: number; page: number; per_page: number }): string {
  const pages = Math.max(1, Math.ceil(body.total / body.per_page));
  if (pages <= 1 && body.page === 1) return '';
  return `${shown} of ${body.total} shown (page ${body.page} of ${pages}; use --page N)\n`;
}

/** Dates in tables: minutes are enough. */
export const shortDate = (iso: string | null | undefined): string =>
  iso ? iso.replace('T', ' ').replace(/:\d{2}\.\d{3}Z$/, 'Z') : '';
