import { type ReactNode, useEffect, useRef, useState } from 'react';

/**
 * The box a table scrolls sideways in when it is wider than the screen. Scrolling is then made visible: shadows
 * at the edges that have more columns beyond them, and a line saying so. It also becomes a labelled region
 * that takes the focus, so a keyboard can scroll it too (arrow keys).
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const measure = () => setOverflows(element.scrollWidth > element.clientWidth + 1);
    // The box changes width with the window, the table with its content: either can start or end the overflow.
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    measure();
    return () => observer.disconnect();
  }, []);

  return (
    <div className="table-scroll">
      {overflows && (
        <p className="table-hint" aria-hidden="true" data-testid="table-scroll-hint">
          Scroll sideways for more columns <span className="table-hint-arrow">→</span>
        </p>
      )}
      <div
        ref={box}
        className="table-wrap"
        data-overflows={overflows}
        {...(overflows && { role: 'region', 'aria-label': label, tabIndex: 0 })}
        data-testid="table-scroll"
      >
        {children}
      </div>
    </div>
  );
}

interface TableProps {
  /** Names the table (and the scrolling region). */
  label: string;
  /** The column headers, left to right. */
  columns: readonly string[];
  testId: string;
  /** Smaller type and padding, with the label as a (visually hidden) caption: a table inside a row. */
  compact?: boolean;
  /** The rows. */
  children: ReactNode;
}

/** A table with a visible header for every column, in a TableScroll box. */
export function Table({ label, columns, testId, compact = false, children }: TableProps) {
  return (
    <TableScroll label={label}>
      <table className={compact ? 'table table-compact' : 'table'} data-testid={testId}>
        {compact && <caption className="visually-hidden">{label}</caption>}
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableScroll>
  );
}
