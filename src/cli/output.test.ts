import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cellText, formatTable, terminalSafe } from './output.js';

describe('formatTable', () => {
  it('aligns columns under upper-cased headers, two spaces apart, without trailing spaces', () => {
    expect(
      formatTable(
        [
          { id: 'a', name: 'long name' },
          { id: 'bbb', name: '' },
        ],
        ['id', 'name'],
      ),
    ).toBe('ID   NAME\na    long name\nbbb\n');
    expect(formatTable([], ['id'])).toBe('ID\n');
  });

  it('for any cells: one line per row, every column starts at the same position, cells kept or cut with …', () => {
    const cell = fc.oneof(
      fc.string({ unit: 'grapheme-composite', maxLength: 30 }),
      fc.constantFrom(' ', 'a ', ' b', '\n', 'x\ty'),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(cell, cell, cell), { maxLength: 8 }),
        fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
        (tuples, maxCellWidth) => {
          const rows = tuples.map(([a, b, c]) => ({ a, b, c }));
          const text = formatTable(rows, ['a', 'b', 'c'], { maxCellWidth });
          const lines = text.split('\n');
          expect(lines.pop()).toBe('');
          expect(lines).toHaveLength(rows.length + 1);
          const expected = [['A', 'B', 'C'], ...tuples.map((t) => t.map((value) => cellText(value, maxCellWidth)))];
          const widths = [0, 1].map((i) => Math.max(...expected.map((r) => [...(r[i] ?? '')].length)));
          lines.forEach((line, row) => {
            const chars = [...line];
            const cells = expected[row] ?? [];
            // column b starts after a's width + 2, column c after b's
            const starts = [0, (widths[0] ?? 0) + 2, (widths[0] ?? 0) + (widths[1] ?? 0) + 4];
            cells.forEach((value, i) => {
              const at = starts[i] ?? 0;
              expect(chars.slice(at, at + [...value].length).join('')).toBe(value);
            });
            expect(line).toBe(line.trimEnd());
            expect(line).not.toMatch(/\n/);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('cellText flattens control characters and cuts long cells with …', () => {
    // Escape sequences go whole (not just their ESC, which left "[31m" behind); other controls become spaces.
    expect(cellText('a\nb\tc\u001b[31m')).toBe('a b c');
    expect(cellText('a\u001b[31mred\u001b[0m\rb')).toBe('ared b');
    expect(cellText('  padded \n')).toBe('padded');
    expect(cellText('abcdef', 4)).toBe('abc…');
    expect(cellText('abcd', 4)).toBe('abcd');
  });
});

describe('terminalSafe', () => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
  const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
  const controls = fc.constantFrom(
    '\u001b',
    '\u001b[',
    '\u001b]',
    '\u001b\\',
    '\u0007',
    '\u009b',
    '\u009d',
    '\u009c',
    '\u0090',
    '\r',
    '\b',
    '\u0000',
    '\u007f',
    '\u0085',
    '\n',
    '\t',
    '31m',
    ';',
    '0;title',
  );
  const hostile = fc
    .array(fc.oneof(controls, fc.string({ unit: 'binary', maxLength: 8 })), { maxLength: 30 })
    .map((parts) => parts.join(''));
  const printable = fc
    .string({ unit: 'grapheme-composite', maxLength: 60 })
    .map((s) => s.replace(new RegExp(UNSAFE.source, 'g'), ''));

  it('never leaves ESC, C1 or a C0 control other than newline and tab', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        expect(terminalSafe(text)).not.toMatch(UNSAFE);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps printable text (any script, newlines, tabs) unchanged, and is idempotent', () => {
    fc.assert(
      fc.property(printable, fc.constantFrom('', '\n', '\t', 'a\nb\tc'), (text, extra) => {
        expect(terminalSafe(text + extra)).toBe(text + extra);
      }),
    );
    fc.assert(
      fc.property(hostile, (text) => {
        expect(terminalSafe(terminalSafe(text))).toBe(terminalSafe(text));
      }),
    );
  });

  it('removes whole sequences: colours, titles, hyperlinks, clipboard writes, cursor moves', () => {
    expect(terminalSafe('\u001b[31mred\u001b[0m plain')).toBe('red plain');
    expect(terminalSafe('\u001b]0;owned\u0007after')).toBe('after');
    expect(terminalSafe('\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\')).toBe('link');
    expect(terminalSafe('\u001b]52;c;cm0gLXJmIH4=\u0007x')).toBe('x');
    expect(terminalSafe('ok\r\u001b[2Kfake prompt $ ')).toBe('okfake prompt $ ');
    expect(terminalSafe('\u009b31mC1 CSI\u009d2;t\u009c.')).toBe('C1 CSI.');
    expect(terminalSafe('\u001bPq#0;2;0;0;0\u001b\\img')).toBe('img');
    expect(terminalSafe('tab\there\nnext')).toBe('tab\there\nnext');
  });

  it('takes linear time on pathological input', () => {
    const started = performance.now();
    for (const unit of ['\u001b[', '\u001b[0', '\u001b]', '\u001b', '\u009b;', '\u001bP'])
      terminalSafe(unit.repeat(200_000));
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
