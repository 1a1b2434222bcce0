import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { CliError, EXIT } from '../output.js';
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

/** Content from `--file F` (`-` = stdin), else piped stdin. */
export async function contentFrom(file: string | undefined, what = 'content'): Promise<string> {
  if (file && file !== '-') return readTextFile(file);
  return readPipedStdin(what);
}

export const stem = (path: string): string => basename(path).replace(/\.[^.]*$/, '');

/** Pagination flags shared by every list. */
export interface PageOptions {
  page?: number;
  perPage?: number;
}
export const pageQuery = (options: PageOptions) => ({ page: options.page, per_page: options.perPage });

/** "20 of 57 shown (page 1 of 3; use --page N)" when a list has more than one page. */
export function pageFooter(shown: number, body: { total: number; page: number; per_page: number }): string {
  const pages = Math.max(1, Math.ceil(body.total / body.per_page));
  if (pages <= 1 && body.page === 1) return '';
  return `${shown} of ${body.total} shown (page ${body.page} of ${pages}; use --page N)\n`;
}

/** Dates in tables: minutes are enough. */
export const shortDate = (iso: string | null | undefined): string =>
  iso ? iso.replace('T', ' ').replace(/:\d{2}\.\d{3}Z$/, 'Z') : '';
