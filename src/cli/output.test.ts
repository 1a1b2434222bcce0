import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cellText, formatTable } from './output.js';

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
    expect(cellText('a\nb\tc\u001b[31m')).toBe('a b c [31m');
    expect(cellText('  padded \n')).toBe('padded');
    expect(cellText('abcdef', 4)).toBe('abc…');
    expect(cellText('abcd', 4)).toBe('abcd');
  });
});
