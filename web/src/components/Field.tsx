import {
  type ChangeEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useId,
} from 'react';
import {
  type ARTIFACT_TITLE_MAX,
  MAX_LABELS,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PROMPT_TITLE_MAX,
} from '../../../src/contract';

interface FieldFrame {
  label: ReactNode;
  hint?: ReactNode;
  /** A validation message shown under the control (and announced with it). */
  error?: string | undefined;
  className?: string | undefined;
}

interface FieldProps extends FieldFrame {
  /** Renders the control; give it the id, aria-describedby, and aria-invalid={invalid}. */
  children: (id: string, describedBy: string | undefined, invalid: boolean) => ReactNode;
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

/** What a field's control is bound to: its value, what a change does, and its test ids. */
interface Bound {
  value: string;
  /** Gets the new value. */
  onChange: (value: string) => void;
  testId?: string;
  /** The test id of the error message (the fields of one kind share one). */
  errorTestId?: string;
  /** A class of the control itself (`className` is the field's). */
  controlClassName?: string;
}

type Control = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** The props every bound control gets. */
interface ControlProps {
  id: string;
  className: string | undefined;
  'aria-describedby': string | undefined;
  'aria-invalid': true | undefined;
  value: string;
  onChange: (event: ChangeEvent<Control>) => void;
  'data-testid': string | undefined;
}

/** A Field whose control is bound to a value; `children` renders the control from the props it is given. */
function BoundField(props: FieldFrame & Bound & { children: (control: ControlProps) => ReactNode }) {
  const { label, hint, error, className, errorTestId, value, onChange, testId, controlClassName, children } = props;
  return (
    <Field label={label} hint={hint} error={error} className={className} testId={errorTestId}>
      {(id, describedBy, invalid) =>
        children({
          id,
          className: controlClassName,
          'aria-describedby': describedBy,
          'aria-invalid': invalid || undefined,
          value,
          onChange: (event) => onChange(event.target.value),
          'data-testid': testId,
        })
      }
    </Field>
  );
}

/** Splits a bound field's props into the field's and the control's own attributes. */
function split<P extends FieldFrame & Bound>(props: P) {
  const { label, hint, error, className, errorTestId, value, onChange, testId, controlClassName, ...attributes } =
    props;
  return {
    field: { label, hint, error, className, errorTestId, value, onChange, testId, controlClassName },
    attributes,
  };
}

type Attributes<A> = Omit<A, 'id' | 'value' | 'onChange' | 'className' | 'children'>;

/** A labelled one-line input (text unless `type` says e-mail, password, search…). */
export function TextField(props: FieldFrame & Bound & Attributes<InputHTMLAttributes<HTMLInputElement>>) {
  const { field, attributes } = split(props);
  return <BoundField {...field}>{(control) => <input {...control} type="text" {...attributes} />}</BoundField>;
}

/** A labelled multi-line text box. */
export function TextAreaField(props: FieldFrame & Bound & Attributes<TextareaHTMLAttributes<HTMLTextAreaElement>>) {
  const { field, attributes } = split(props);
  return <BoundField {...field}>{(control) => <textarea {...control} {...attributes} />}</BoundField>;
}

/** A labelled drop-down list; its options are the children. */
export function SelectField({
  children,
  ...props
}: FieldFrame & Bound & Attributes<SelectHTMLAttributes<HTMLSelectElement>> & { children: ReactNode }) {
  const { field, attributes } = split(props);
  return (
    <BoundField {...field}>
      {(control) => (
        <select {...control} {...attributes}>
          {children}
        </select>
      )}
    </BoundField>
  );
}

/** A new password, held to the server's rule (PASSWORD_MIN to PASSWORD_MAX characters) (the browser may offer a generated one). */
export function NewPasswordField(props: FieldFrame & Bound) {
  return (
    <TextField
      type="password"
      autoComplete="new-password"
      required
      minLength={PASSWORD_MIN}
      maxLength={PASSWORD_MAX}
      {...props}
    />
  );
}

// Prompts and artifacts share the title field, so their limits must agree (checked at compile time).
const TITLE_MAX: typeof PROMPT_TITLE_MAX & typeof ARTIFACT_TITLE_MAX = PROMPT_TITLE_MAX;

/** A project path as the server accepts it: segments of letters, digits, `.`, `_`, `-`, joined by single `/`. */
export const PROJECT_PATTERN = '[A-Za-z0-9._\\-]+(/[A-Za-z0-9._\\-]+)*';

/** A slug as the server accepts it: lowercase letters and digits, in words joined by single hyphens. */
export const SLUG_PATTERN = '[a-z0-9]+(-[a-z0-9]+)*';

/** The labels of a prompt or an artifact, typed as a comma-separated list. */
export function LabelsField(props: { value: string; onChange: (value: string) => void; testId: string }) {
  return <TextField label="Labels" hint={`Comma-separated, at most ${MAX_LABELS}.`} className="grow" {...props} />;
}

/** The title of a prompt or an artifact: required, up to TITLE_MAX characters (the same for both). */
export function TitleField(props: { value: string; onChange: (value: string) => void; testId: string }) {
  return <TextField label="Title" required maxLength={TITLE_MAX} {...props} />;
}

/** The search box of a list of prompts or artifacts (both search title, description and content). */
export function ContentSearchField(props: { value: string; onChange: (value: string) => void; testId: string }) {
  return (
    <TextField
      label="Search"
      className="grow"
      type="search"
      placeholder="Words in title, description or content"
      {...props}
    />
  );
}
