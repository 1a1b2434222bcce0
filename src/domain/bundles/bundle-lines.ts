import { ValidationError } from '../common/errors.js';

/** A line of the bundle as read, numbered from 1. */
export interface RawLine {
  number: number;
  text: string;
}

const NEWLINE = 0x0a;

/** The 400 for a line over the limit: it names the line, like every other bundle problem. */
export const lineTooLong = (line: number, maxBytes: number) =>
  new ValidationError(
    { [`line ${line}`]: `The line is longer than ${maxBytes} bytes (IMPORT_MAX_LINE_BYTES)` },
    `The bundle is invalid (line ${line}: longer than ${maxBytes} bytes)`,
  );

const asBuffer = (chunk: Uint8Array | string): Buffer =>
  typeof chunk === 'string'
    ? Buffer.from(chunk, 'utf8')
    : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

/**
 * Measures the lines of a byte stream as it passes, keeping nothing but a count: the returned function takes
 * each chunk in turn and throws `lineTooLong` as soon as the current line has more than `maxBytes` bytes
 * (its line break not counted). Lines are counted at `\n` exactly as `splitLines` counts them, so both
 * name the same line.
 */
export function lineMeter(maxBytes: number): (chunk: Uint8Array | string) => void {
  let line = 1;
  let length = 0;
  return (raw) => {
    const chunk = asBuffer(raw);
    for (let start = 0; ; ) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      length += end - start;
      if (length > maxBytes) throw lineTooLong(line, maxBytes);
      if (newline === -1) return;
      line++;
      length = 0;
      start = newline + 1;
    }
  };
}

/**
 * The lines of a byte stream, split at `\n` only (a `\r` before it is dropped, so CRLF files read the same),
 * decoded as UTF-8 (splitting at byte 0x0A never cuts a UTF-8 character). A line longer than `maxBytes`
 * is refused as soon as its first `maxBytes + 1` bytes are seen: no line is ever held beyond the limit.
 * A final line without `\n` is yielded; a final `\n` does not start an empty line.
 */
export async function* splitLines(
  chunks: AsyncIterable<Uint8Array | string>,
  maxBytes: number,
): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let length = 0;
  let number = 1;
  const text = () => {
    const line = Buffer.concat(parts, length).toString('utf8');
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  };
  for await (const raw of chunks) {
    const chunk = asBuffer(raw);
    for (let start = 0; ; ) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      if (length + (end - start) > maxBytes) throw lineTooLong(number, maxBytes);
      if (end > start) {
        parts.push(chunk.subarray(start, end));
        length += end - start;
      }
      if (newline === -1) break;
      yield { number, text: text() };
      parts = [];
      length = 0;
      number++;
      start = newline + 1;
    }
  }
  if (length > 0) yield { number, text: text() };
}
