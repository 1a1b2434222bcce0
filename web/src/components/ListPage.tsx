import type { ReactNode } from 'react';

interface ListHeadProps {
  title: string;
  /** The button that starts a new item. */
  create: { href: string; label: string; testId: string };
}

/** A list page's heading with its New button. */
export function ListHead({ title, create }: ListHeadProps) {
  return (
    <div className="page-head">
      <h1>{title}</h1>
      <a className="button button-primary" href={create.href} data-testid={create.testId}>
        {create.label}
      </a>
    </div>
  );
}

/** The small buttons of a list row. */
export function RowButton({ onClick, testId, children }: { onClick: () => void; testId: string; children: ReactNode }) {
  return (
    <button type="button" className="button button-small" onClick={onClick} data-testid={testId}>
      {children}
    </button>
  );
}

export function RowDeleteButton({ onClick, testId }: { onClick: () => void; testId: string }) {
  return (
    <button type="button" className="button button-small button-danger" onClick={onClick} data-testid={testId}>
      Delete
    </button>
  );
}

export function RowEditLink({ href, testId }: { href: string; testId: string }) {
  return (
    <a className="button button-small" href={href} data-testid={testId}>
      Edit
    </a>
  );
}
