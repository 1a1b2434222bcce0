import { type FormEvent, useRef, useState } from 'react';
import type { Prompt, RenderResult, VariableSpec } from '../../../src/contract';
import { useSubmission } from '../actions';
import { ApiError, api } from '../api';
import type { RenderVariables } from '../render-variables';
import { mustSupply } from '../variables';
import { Check } from './Check';
import { CopyButton } from './CopyButton';
import { SelectField, TextAreaField } from './Field';
import { ErrorAlert } from './Status';

/** The description as help; the allowed values are the select's options, so only the default is added. */
function helpOf(spec: VariableSpec | undefined): string | undefined {
  const parts = [spec?.description, spec?.default !== undefined && `Default: ${spec.default || '(empty)'}`];
  return parts.filter(Boolean).join(' · ') || undefined;
}

const specOf = (variables: RenderVariables, name: string): VariableSpec | undefined =>
  Object.hasOwn(variables.schema, name) ? variables.schema[name] : undefined;

/** A form built from the variable schema; renders through the server and shows its answer or its refusal. */
export function RenderForm({ prompt, variables }: { prompt: Prompt; variables: RenderVariables }) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(variables.resolved.map((name) => [name, specOf(variables, name)?.default ?? ''])),
  );
  const [strict, setStrict] = useState(true);
  const [resolve, setResolve] = useState(true);
  const sending = useSubmission();
  const [result, setResult] = useState<RenderResult>();
  const resultRef = useRef<HTMLElement>(null);
  const names = resolve ? variables.resolved : variables.own;
  const value = (name: string) => (Object.hasOwn(values, name) ? (values[name] ?? '') : '');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    // An empty field is "no value": the server then uses the default, or reports a required variable.
    const supplied = Object.fromEntries(names.filter((name) => value(name) !== '').map((name) => [name, value(name)]));
    void sending
      .run(async () => {
        try {
          setResult(await api.renderPrompt(prompt.id, { variables: supplied, strict, resolve }));
        } catch (caught) {
          setResult(undefined);
          throw caught;
        }
      })
      // On a narrow screen the answer is below the form: bring it into view.
      .then(() => window.setTimeout(() => resultRef.current?.scrollIntoView({ block: 'nearest' })));
  };

  const { busy, error } = sending;
  const details = error instanceof ApiError ? error.details : undefined;
  return (
    <div className="editor">
      <form className="card stack" onSubmit={submit} aria-label="Render" data-testid="render-form" noValidate>
        <h2>Values</h2>
        {names.length === 0 && <p className="hint">This prompt has no variables to fill in.</p>}
        {names.map((name) => {
          const spec = specOf(variables, name);
          const required = spec?.required !== false;
          const set = (next: string) => setValues((previous) => ({ ...previous, [name]: next }));
          const label = (
            <>
              <code>{`{{${name}}}`}</code>{' '}
              <span className={required ? 'badge badge-info' : 'badge'}>{required ? 'required' : 'optional'}</span>
              {!variables.own.includes(name) && <span className="badge">from an included prompt</span>}
            </>
          );
          const field = {
            label,
            hint: helpOf(spec),
            error: details?.[`variables.${name}`],
            errorTestId: 'render-field-error',
            'aria-required': mustSupply(spec),
            value: value(name),
            onChange: set,
            testId: 'render-variable',
            'data-variable': name,
          };
          return spec?.enum ? (
            <SelectField key={name} {...field}>
              <option value="">(no value)</option>
              {spec.enum.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </SelectField>
          ) : (
            <TextAreaField key={name} rows={2} {...field} />
          );
        })}
        <fieldset className="stack-small">
          <legend>Options</legend>
          <Check
            label="Strict"
            help="Refuse to render when a required variable has no value. Otherwise it stays as written."
            checked={strict}
            onChange={setStrict}
            testId="render-strict"
          />
          <Check
            label="Resolve references"
            help="Replace each @slug with that prompt’s content (up to 5 levels deep)."
            checked={resolve}
            onChange={setResolve}
            testId="render-resolve"
          />
        </fieldset>
        <div className="actions">
          <button type="submit" className="button button-primary" disabled={busy} data-testid="render-submit">
            {busy ? 'Rendering…' : 'Render'}
          </button>
        </div>
      </form>
      <section ref={resultRef} className="card stack-small" aria-labelledby="render-result-heading" aria-live="polite">
        <h2 id="render-result-heading">Result</h2>
        <ErrorAlert error={error} />
        {!error && !result && <p className="hint">Fill in the values and press Render.</p>}
        {result && <RenderOutput result={result} />}
      </section>
    </div>
  );
}

function RenderOutput({ result }: { result: RenderResult }) {
  const list = (items: string[]) => (items.length === 0 ? 'none' : items.join(', '));
  return (
    <>
      <pre className="prompt-text" data-testid="render-output">
        {result.content}
      </pre>
      <CopyButton text={result.content} label="Copy the text" />
      <dl className="facts facts-small">
        <dt>Variables used</dt>
        <dd>{list(result.variables_used)}</dd>
        <dt>Left as written</dt>
        <dd data-testid="render-missing">{list(result.variables_missing)}</dd>
        <dt>Prompts included</dt>
        <dd>{list(result.references_resolved)}</dd>
      </dl>
    </>
  );
}
