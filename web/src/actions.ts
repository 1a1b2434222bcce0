// What a button or form does once pressed: busy while the request runs, its failure kept for an alert,
// destructive ones asked about first (components/Confirm.tsx).
import { useState } from 'react';
import { type ConfirmOptions, useConfirm } from './components/Confirm';
import { setFlash } from './flash';
import type { NoticeState } from './notice';
import { navigate } from './router';

export interface Submission {
  busy: boolean;
  /** The failure of the last attempt, cleared when the next one starts. */
  error: unknown;
  setError: (error: unknown) => void;
  /** Runs `work`; busy until it ends. */
  run: (work: () => Promise<void>) => Promise<void>;
  /** Runs `work` that leaves the form when it succeeds (it navigates, or signs in): then it stays busy, so the
   * form cannot be sent twice before it goes. */
  leave: (work: () => Promise<void>) => Promise<void>;
}

/** The state of a form (or button) that sends one request at a time. */
export function useSubmission(): Submission {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const attempt = async (work: () => Promise<void>, staysBusy: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
      if (!staysBusy) setBusy(false);
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  };
  return {
    busy,
    error,
    setError,
    run: (work) => attempt(work, false),
    leave: (work) => attempt(work, true),
  };
}

/** A destructive action on a list's row (delete, revoke): what to ask, what to do, and what to say when done. */
export interface RowAction {
  question: Omit<ConfirmOptions, 'danger'>;
  work: () => Promise<unknown>;
  done: string;
}

/**
 * Asks, then runs a row's action: its success message goes to `notice`, a failure to `error`; the list
 * reloads either way, since the row may have changed even when the answer was lost.
 */
export function useRowAction(notice: NoticeState, reload: () => void) {
  const confirm = useConfirm();
  const [error, setError] = useState<unknown>();
  const act = async ({ question, work, done }: RowAction) => {
    if (!(await confirm({ ...question, danger: true }))) return;
    setError(undefined);
    notice.clear();
    try {
      await work();
      notice.show(done);
    } catch (caught) {
      setError(caught);
    }
    reload();
  };
  return { error, act };
}

/**
 * Deleting the thing a page shows: asks, deletes, then goes to `to` with `done` as that page's message.
 * A failure goes to `onError` (the page's alert).
 */
export function useDeleteAndLeave(onError: (error: unknown) => void) {
  const confirm = useConfirm();
  return async ({ question, work, done, to }: RowAction & { to: string }) => {
    if (!(await confirm({ ...question, danger: true }))) return;
    onError(undefined);
    try {
      await work();
      setFlash(done);
      navigate(to);
    } catch (caught) {
      onError(caught);
    }
  };
}
