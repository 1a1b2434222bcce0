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

/** The server's JSON as it sent it (JSON escapes every control character, so it is safe on a terminal). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/*
 * Terminal control sequences, as one linear pattern (each alternative starts with a distinct introducer
 * and its parts are disjoint classes, so nothing backtracks): OSC (ESC ] or 0x9D … up to BEL or ST), the
 * string sequences DCS/SOS/PM/APC (ESC P/X/^/_ or 0x90/0x98/0x9E/0x9F … up to ST), CSI (ESC [ or 0x9B,
 * parameter bytes, intermediate bytes, a final byte), and any other ESC sequence (intermediates + final).
 * Whatever control character is left after these (a lone ESC, C0 but \n and \t, DEL, C1) goes too.
 */
const SEQUENCES =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control sequences is the point
  /(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|(?:\u001b[PX^_]|[\u0090\u0098\u009e\u009f])[^\u001b\u009c]*(?:\u001b\\|\u009c)?|(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** In a table cell newlines and tabs would break the layout too: every control run becomes a space. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: replacing control characters is the point
const CELL_CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;

/**
 * Text from a server made safe to print on a terminal: escape sequences (colours, cursor moves, window
 * titles, hyperlinks, clipboard writes) and every control character but newline and tab are removed, so a
 * hostile or broken server cannot rewrite the screen or what the user believes they ran. Printable text
 * (any script, emoji) is unchanged.
 */
export function terminalSafe(text: string): string {
  return text.replace(SEQUENCES, '').replace(CONTROLS, '');
}

/** Human output on stdout: always through `terminalSafe` (the output may hold server-supplied text). */
export function say(text: string): void {
  process.stdout.write(terminalSafe(text));
}

/** Human output on stderr, likewise. */
export function warn(text: string): void {
  process.stderr.write(terminalSafe(text));
}

export interface TableOptions {
  /** Longest a cell may be (in characters) before it is cut with '…'. Default: no limit. */
  maxCellWidth?: number;
}

/** A cell on one line: control characters (newlines, tabs, escapes) become spaces; ends trimmed. */
export function cellText(value: string, maxWidth = Number.POSITIVE_INFINITY): string {
  const flat = value.replace(SEQUENCES, '').replace(CELL_CONTROLS, ' ').trim();
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
