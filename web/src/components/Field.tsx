import { type ReactNode, useId } from 'react';

interface FieldProps {
  label: ReactNode;
  hint?: ReactNode;
  /** A validation message shown under the control (and announced with it). */
  error?: string | undefined;
  /** Renders the control; give it the id, aria-describedby, and aria-invalid={invalid}. */
  children: (id: string, describedBy: string | undefined, invalid: boolean) => ReactNode;
  className?: string;
  testId?: string;
}

/** A label, a control, an optional hint and error, wired together for assistive technology. */
export function Field({ label, hint, error, children, className, testId }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [errorId, hintId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children(id, describedBy, Boolean(error))}
      {error && (
        <p className="field-error" id={errorId} data-testid={testId}>
          {error}
        </p>
      )}
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}
