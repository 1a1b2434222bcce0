import { VARIABLE_DESCRIPTION_MAX } from '../../../src/contract';
import { allowedValues, draftOf, type SchemaDraft, schemaErrors, type VariableDraft } from '../schema-draft';
import { Field } from './Field';

interface VariableSchemaEditorProps {
  /** The variables of the content as typed (live). */
  variables: readonly string[];
  drafts: SchemaDraft;
  onChange: (name: string, draft: VariableDraft) => void;
  /** The server's validation details of the last save, if any. */
  details: Record<string, string> | undefined;
}

/** Description, required, default and allowed values for each `{{variable}}` of the content. */
export function VariableSchemaEditor({ variables, drafts, onChange, details }: VariableSchemaEditorProps) {
  const general = details?.variable_schema;
  return (
    <section className="stack-small" aria-labelledby="schema-heading" data-testid="schema-editor">
      <h2 id="schema-heading" className="section-title">
        Variables
      </h2>
      {general && (
        <p className="field-error" role="alert" data-testid="schema-error">
          {general}
        </p>
      )}
      {variables.length === 0 ? (
        <p className="hint">
          The content has no variables. Write <code>{'{{ name }}'}</code> where a value should be filled in, then
          describe it here.
        </p>
      ) : (
        <>
          <p className="hint">
            Tell people and tools what to fill in. A variable is required unless it is optional or has a default.
          </p>
          {variables.map((name) => (
            <VariableFields
              key={name}
              name={name}
              draft={draftOf(drafts, name)}
              onChange={(draft) => onChange(name, draft)}
              errors={schemaErrors(details, name)}
            />
          ))}
        </>
      )}
    </section>
  );
}

interface VariableFieldsProps {
  name: string;
  draft: VariableDraft;
  onChange: (draft: VariableDraft) => void;
  errors: ReturnType<typeof schemaErrors>;
}

function VariableFields({ name, draft, onChange, errors }: VariableFieldsProps) {
  const values = allowedValues(draft);
  const set = (change: Partial<VariableDraft>) => onChange({ ...draft, ...change });
  // A stored default that is not (or no longer) allowed stays selectable, so nothing changes unseen.
  const choices = draft.default !== undefined && !values.includes(draft.default) ? [...values, draft.default] : values;
  return (
    <fieldset className="schema-variable" data-testid="schema-variable" data-variable={name}>
      <legend>
        <code>{`{{${name}}}`}</code>
      </legend>
      {errors.variable && (
        <p className="field-error" data-testid="schema-error">
          {errors.variable}
        </p>
      )}
      <Field label="Description" error={errors.description} testId="schema-error">
        {(id, describedBy, invalid) => (
          <input
            id={id}
            type="text"
            maxLength={VARIABLE_DESCRIPTION_MAX}
            aria-describedby={describedBy}
            aria-invalid={invalid}
            value={draft.description}
            onChange={(event) => set({ description: event.target.value })}
            data-testid="schema-description"
          />
        )}
      </Field>
      <div className="field-row">
        <Field label="Allowed values" hint="One per line. Empty: any value." error={errors.enum} testId="schema-error">
          {(id, describedBy, invalid) => (
            <textarea
              id={id}
              rows={3}
              aria-describedby={describedBy}
              aria-invalid={invalid}
              value={draft.allowed}
              onChange={(event) => set({ allowed: event.target.value })}
              data-testid="schema-enum"
            />
          )}
        </Field>
        <Field
          label="Default"
          hint={values.length > 0 ? 'One of the allowed values.' : 'Used when no value is given. Empty: none.'}
          error={errors.default}
          testId="schema-error"
        >
          {(id, describedBy, invalid) =>
            values.length > 0 ? (
              <select
                id={id}
                aria-describedby={describedBy}
                aria-invalid={invalid}
                value={draft.default ?? ''}
                onChange={(event) => set({ default: event.target.value === '' ? undefined : event.target.value })}
                data-testid="schema-default"
              >
                <option value="">(no default)</option>
                {choices.map((value) => (
                  <option key={value} value={value}>
                    {value}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                type="text"
                aria-describedby={describedBy}
                aria-invalid={invalid}
                value={draft.default ?? ''}
                onChange={(event) => set({ default: event.target.value === '' ? undefined : event.target.value })}
                data-testid="schema-default"
              />
            )
          }
        </Field>
      </div>
      <label className="check">
        <input
          type="checkbox"
          checked={draft.required}
          onChange={(event) => set({ required: event.target.checked })}
          data-testid="schema-required"
        />
        <span>
          <strong>Required</strong>
          <span className="check-help">
            A strict render refuses to run without a value (a default counts as one).
            {errors.required && <span className="field-error"> {errors.required}</span>}
          </span>
        </span>
      </label>
    </fieldset>
  );
}
