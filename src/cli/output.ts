/** Exit codes of the `cairn` command (documented in the README). */
export const EXIT = { ok: 0, failure: 1, usage: 2, notFound: 3, conflict: 4 } as const;

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

/** Left-aligned columns for human-readable lists. */
export function printTable(rows: Record<string, string>[], columns: string[]): void {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${line(columns.map((c) => c.toUpperCase()))}\n`);
  for (const row of rows) process.stdout.write(`${line(columns.map((c) => row[c] ?? ''))}\n`);
}
