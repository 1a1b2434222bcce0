/**
 * Exit codes of the `cairn` command (documented in the README and docs/cli.md). 0–4 are shared with the
 * operator commands; 5–7 come from talking to a server.
 */
export const EXIT = {
  ok: 0,
  /** unexpected failure, or a server error (500) */
  failure: 1,
  /** invalid input or usage (commander errors, 400 validation_error, 413) */
  usage: 2,
  /** no such object (404) */
  notFound: 3,
  /** conflict: slug taken (409), changed since read (412), push conflicts */
  conflict: 4,
  /** not logged in, key refused (401) or not allowed (403) */
  auth: 5,
  /** rate limit reached (429) */
  rateLimited: 6,
  /** server unreachable or unavailable (network error, 502/503/504) */
  unavailable: 7,
} as const;

/** A failure the user can act on: printed as one line on stderr, never as a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export interface TableOptions {
  /** Longest a cell may be (in characters) before it is cut with '…'. Default: no limit. */
  maxCellWidth?: number;
}

/** A cell on one line: control characters (newlines, tabs, escapes) become spaces; ends trimmed. */
export function cellText(value: string, maxWidth = Number.POSITIVE_INFINITY): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point
  const flat = value.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  const chars = [...flat];
  if (chars.length <= maxWidth) return flat;
  return `${chars.slice(0, Math.max(0, maxWidth - 1)).join('')}…`;
}

/** Left-aligned columns under upper-cased headers, two spaces apart, no trailing spaces. */
export function formatTable(rows: Record<string, string>[], columns: string[], options: TableOptions = {}): string {
  const cells = rows.map((row) => columns.map((c) => cellText(row[c] ?? '', options.maxCellWidth)));
  const headers = columns.map((c) => c.toUpperCase());
  const width = (text: string) => [...text].length;
  const widths = headers.map((h, i) => Math.max(width(h), ...cells.map((r) => width(r[i] ?? ''))));
  const line = (values: string[]) =>
    values
      .map((value, i) => value + ' '.repeat((widths[i] ?? 0) - width(value)))
      .join('  ')
      .trimEnd();
  return [headers, ...cells].map((values) => `${line(values)}\n`).join('');
}

export function printTable(rows: Record<string, string>[], columns: string[], options: TableOptions = {}): void {
  process.stdout.write(formatTable(rows, columns, options));
}
