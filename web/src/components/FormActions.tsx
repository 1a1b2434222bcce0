interface FormActionsProps {
  /** What the submit button says when idle; `disabled` holds it back for reasons of the form's own. */
  save: { busy: boolean; label: string; disabled?: boolean };
  cancel: { href: string; label: string };
  /** Deletes what the form edits (absent on a new one). */
  onDelete?: (() => void) | undefined;
  /** `<testId>-save` and `<testId>-delete` name the buttons. */
  testId: string;
}

/** The buttons under an editor's form: save (Saving… while busy), a way out, and delete at the far end. */
export function FormActions({ save, cancel, onDelete, testId }: FormActionsProps) {
  return (
    <div className="actions">
      <button
        type="submit"
        className="button button-primary"
        disabled={save.busy || save.disabled}
        data-testid={`${testId}-save`}
      >
        {save.busy ? 'Saving…' : save.label}
      </button>
      <a className="button" href={cancel.href}>
        {cancel.label}
      </a>
      {onDelete && (
        <button
          type="button"
          className="button button-danger push-end"
          onClick={onDelete}
          data-testid={`${testId}-delete`}
        >
          Delete
        </button>
      )}
    </div>
  );
}
