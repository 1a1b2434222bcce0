import { createContext, type ReactNode, useCallback, useContext, useEffect, useId, useRef, useState } from 'react';

export interface ConfirmOptions {
  title: string;
  message?: ReactNode;
  confirmLabel?: string;
  danger?: boolean;
}

type Confirm = (options: ConfirmOptions) => Promise<boolean>;

const ConfirmContext = createContext<Confirm>(async () => false);

/** `await confirm({...})` resolves true when the user confirms; the dialog is modal and keyboard-friendly. */
export const useConfirm = (): Confirm => useContext(ConfirmContext);

interface Pending {
  options: ConfirmOptions;
  resolve: (value: boolean) => void;
}

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const [pending, setPending] = useState<Pending | null>(null);
  const dialogRef = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef<HTMLElement | null>(null);
  const titleId = useId();
  const messageId = useId();

  const confirm = useCallback<Confirm>(
    (options) =>
      new Promise<boolean>((resolve) => {
        returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
        setPending({ options, resolve });
      }),
    [],
  );

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!pending || !dialog) return;
    if (!dialog.open) dialog.showModal();
    // The safe choice has the focus, so Enter never deletes by accident.
    cancelRef.current?.focus();
  }, [pending]);

  const close = (result: boolean) => {
    pending?.resolve(result);
    setPending(null);
    dialogRef.current?.close();
    const target = returnFocus.current;
    if (target?.isConnected) target.focus();
    else document.getElementById('main')?.focus();
  };

  const options = pending?.options;
  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      <dialog
        ref={dialogRef}
        className="dialog"
        aria-labelledby={titleId}
        aria-describedby={options?.message ? messageId : undefined}
        onCancel={(event) => {
          event.preventDefault();
          close(false);
        }}
        data-testid="confirm-dialog"
      >
        {options && (
          <form
            method="dialog"
            onSubmit={(event) => {
              event.preventDefault();
              close(true);
            }}
          >
            <h2 id={titleId}>{options.title}</h2>
            {options.message && (
              <div id={messageId} className="dialog-message">
                {options.message}
              </div>
            )}
            <div className="actions">
              <button
                type="button"
                ref={cancelRef}
                className="button"
                onClick={() => close(false)}
                data-testid="confirm-cancel"
              >
                Cancel
              </button>
              <button
                type="submit"
                className={options.danger ? 'button button-danger' : 'button button-primary'}
                data-testid="confirm-ok"
              >
                {options.confirmLabel ?? 'OK'}
              </button>
            </div>
          </form>
        )}
      </dialog>
    </ConfirmContext.Provider>
  );
}
