import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../common/errors.js';
import { lineMeter, type RawLine, splitLines } from './bundle-lines.js';

/** The bytes cut at arbitrary points: lines must not depend on how the body arrived. */
const chunked = (bytes: Buffer, cuts: number[]) => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let last = 0;
  for (const p of [...points, bytes.length]) {
    chunks.push(bytes.subarray(last, p));
    last = p;
  }
  return chunks;
};

async function collect(chunks: Buffer[], max: number): Promise<RawLine[] | ValidationError> {
  const out: RawLine[] = [];
  try {
    for await (const line of splitLines(
      (async function* () {
        yield* chunks;
      })(),
      max,
    ))
      out.push(line);
    return out;
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
}

const meter = (chunks: Buffer[], max: number): ValidationError | undefined => {
  const measure = lineMeter(max);
  try {
    for (const chunk of chunks) measure(chunk);
    return undefined;
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
};

const lineText = fc.string({ unit: 'binary', maxLength: 30 }).map((s) => s.replaceAll('\n', ''));

describe('splitLines and lineMeter', () => {
  it('split at \\n whatever the chunking, numbered from 1, CR before LF dropped', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineText, { maxLength: 20 }),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (lines, crlf, finalNewline, cuts) => {
          const text = lines.join(crlf ? '\r\n' : '\n') + (finalNewline && lines.length > 0 ? '\n' : '');
          const result = await collect(chunked(Buffer.from(text, 'utf8'), cuts), 10_000);
          // A final \n ends the last line; it does not start an empty one.
          const expected = text.split('\n');
          if (expected.at(-1) === '') expected.pop();
          expect(result).toEqual(
            expected.map((line, i) => ({ number: i + 1, text: line.endsWith('\r') ? line.slice(0, -1) : line })),
          );
        },
      ),
    );
  });

  it('refuse exactly the first line over the limit, both naming the same line', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineText, { minLength: 1, maxLength: 15 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        async (lines, max, cuts) => {
          const bytes = Buffer.from(lines.join('\n'), 'utf8');
          const chunks = chunked(bytes, cuts);
          const first = lines.findIndex((line) => Buffer.byteLength(line, 'utf8') > max);
          const split = await collect(chunks, max);
          const measured = meter(chunks, max);
          if (first === -1) {
            expect(Array.isArray(split)).toBe(true);
            expect(measured).toBeUndefined();
          } else {
            const details = { [`line ${first + 1}`]: `The line is longer than ${max} bytes (IMPORT_MAX_LINE_BYTES)` };
            expect((split as ValidationError).details).toEqual(details);
            expect(measured?.details).toEqual(details);
          }
        },
      ),
    );
  });

  it('never holds more than the limit of a line: refused before the line ends', async () => {
    const endless = (async function* () {
      yield Buffer.from('{"ok":1}\n');
      for (;;) yield Buffer.alloc(1000, 0x61);
    })();
    await expect(
      (async () => {
        for await (const _ of splitLines(endless, 5000));
      })(),
    ).rejects.toMatchObject({ details: { 'line 2': expect.stringMatching(/longer than 5000 bytes/) } });
  });
});
