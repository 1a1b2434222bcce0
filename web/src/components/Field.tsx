import { type ReactNode, useId } from 'react';

interface FieldProps {
  label: string;
  hint?: ReactNode;
  /** Renders the control; give it the id (and aria-describedby when a hint is shown). */
  children: (id: string, describedBy: string | undefined) => ReactNode;
  className?: string;
}

/** A label, a control and an optional hint, wired together for assistive technology. */
export function Field({ label, hint, children, className }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label htmlFor={id}>{label}</label>
      {children(id, hintId)}
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}
