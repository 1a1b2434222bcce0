import type { ReactNode } from 'react';
import { ApiError, describeError } from '../api';
import type { Resource } from '../hooks';
import type { NoticeState } from '../notice';

/** What the user can do about an error, by its kind. */
function advice(error: unknown): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  switch (error.status) {
    case 0:
      return 'Is the server running? Try again in a moment.';
    case 401:
      return 'Your session has ended. Log in again.';
    case 404:
      return 'It may have been deleted, or the link is wrong.';
    case 409:
      return 'Choose another slug, or leave it empty to have one generated.';
    case 412:
      return 'Someone changed it after you opened it. Reload to see the latest version, then apply your edits again.';
    case 413:
      return 'Make the content smaller and try again.';
    case 429:
      return error.retryAfter
        ? `Wait ${Math.ceil(error.retryAfter / 60)} min and try again.`
        : 'Wait a little and try again.';
    case 500:
    case 503:
      return 'The server had a problem. Try again; if it keeps happening, contact your administrator.';
    default:
      return undefined;
  }
}

interface ErrorAlertProps {
  error: unknown;
  onRetry?: () => void;
  /** Add what to do next (off where the generic advice would mislead, e.g. a failed log-in). */
  advise?: boolean;
}

export function ErrorAlert({ error, onRetry, advise = true }: ErrorAlertProps) {
  if (!error) return null;
  const details = error instanceof ApiError ? error.details : undefined;
  const hint = advise ? advice(error) : undefined;
  return (
    <div className="alert alert-error" role="alert" data-testid="error">
      <p>
        <strong>{describeError(error)}</strong>
        {hint && <> {hint}</>}
      </p>
      {details && Object.keys(details).length > 0 && (
        <ul>
          {Object.entries(details).map(([field, message]) => (
            <li key={field}>
              <code>{field}</code>: {message}
            </li>
          ))}
        </ul>
      )}
      {onRetry && (
        <button type="button" className="button button-small" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** A success message (see notice.ts for when it goes), with a button to dismiss it at once. */
export function Notice({ notice }: { notice: NoticeState }) {
  if (!notice.message) return null;
  return (
    <div className="alert alert-success notice" role="status" data-notice data-testid="notice">
      <p>{notice.message}</p>
      <button
        type="button"
        className="notice-dismiss"
        onClick={notice.clear}
        aria-label="Dismiss"
        data-testid="notice-dismiss"
      >
        <span aria-hidden="true">×</span>
      </button>
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty" data-testid="empty">
      <p className="empty-title">{title}</p>
      {children && <div className="empty-body">{children}</div>}
    </div>
  );
}

interface LoadedProps<T> {
  resource: Resource<T>;
  /** What the spinner says while the first answer is awaited. */
  loading: string;
  children: (data: T) => ReactNode;
}

/** A resource as it stands: its error with Try again, a spinner until it first arrives, then its data. */
export function Loaded<T>({ resource, loading, children }: LoadedProps<T>) {
  return (
    <>
      {resource.error !== undefined && <ErrorAlert error={resource.error} onRetry={resource.reload} />}
      {resource.loading && resource.data === undefined && <Loading label={loading} />}
      {resource.data !== undefined && children(resource.data)}
    </>
  );
}

interface PageLoadErrorProps {
  heading: string;
  error: unknown;
  onRetry: () => void;
  back: { href: string; label: string };
}

/** A page whose own data could not be loaded: its heading, the error with Try again, and the way back. */
export function PageLoadError({ heading, error, onRetry, back }: PageLoadErrorProps) {
  return (
    <section className="page">
      <h1>{heading}</h1>
      <ErrorAlert error={error} onRetry={onRetry} />
      <p>
        <a href={back.href}>{back.label}</a>
      </p>
    </section>
  );
}
