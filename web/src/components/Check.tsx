import type { ReactNode } from 'react';

interface CheckProps {
  label: ReactNode;
  /** A line under the label saying what ticking it does. */
  help: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  testId?: string;
}

/** A checkbox with a bold label and a line of help, the whole of it clickable. */
export function Check({ label, help, checked, onChange, testId }: CheckProps) {
  return (
    <label className="check">
      <input
        type="checkbox"
        checked={checked}
        onChange={(event) => onChange(event.target.checked)}
        data-testid={testId}
      />
      <span>
        <strong>{label}</strong>
        <span className="check-help">{help}</span>
      </span>
    </label>
  );
}
