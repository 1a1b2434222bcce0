import { VARIABLE_DESCRIPTION_MAX } from '../../../src/contract';
import { allowedValues, draftOf, type SchemaDraft, schemaErrors, type VariableDraft } from '../schema-draft';
import { Check } from './Check';
import { SelectField, TextAreaField, TextField } from './Field';

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
      <TextField
        label="Description"
        error={errors.description}
        errorTestId="schema-error"
        maxLength={VARIABLE_DESCRIPTION_MAX}
        value={draft.description}
        onChange={(description) => set({ description })}
        testId="schema-description"
      />
      <div className="field-row">
        <TextAreaField
          label="Allowed values"
          hint="One per line. Empty: any value."
          error={errors.enum}
          errorTestId="schema-error"
          rows={3}
          value={draft.allowed}
          onChange={(allowed) => set({ allowed })}
          testId="schema-enum"
        />
        <DefaultField draft={draft} values={values} error={errors.default} onChange={set} />
      </div>
      <Check
        label="Required"
        help={
          <>
            A strict render refuses to run without a value (a default counts as one).
            {errors.required && <span className="field-error"> {errors.required}</span>}
          </>
        }
        checked={draft.required}
        onChange={(required) => set({ required })}
        testId="schema-required"
      />
    </fieldset>
  );
}

interface DefaultFieldProps {
  draft: VariableDraft;
  /** The allowed values; when there are some, the default is picked from them. */
  values: string[];
  error: string | undefined;
  onChange: (change: Partial<VariableDraft>) => void;
}

function DefaultField({ draft, values, error, onChange }: DefaultFieldProps) {
  // A stored default that is not (or no longer) allowed stays selectable, so nothing changes unseen.
  const choices = draft.default !== undefined && !values.includes(draft.default) ? [...values, draft.default] : values;
  const field = {
    label: 'Default',
    hint: values.length > 0 ? 'One of the allowed values.' : 'Used when no value is given. Empty: none.',
    error,
    errorTestId: 'schema-error',
    value: draft.default ?? '',
    onChange: (value: string) => onChange({ default: value === '' ? undefined : value }),
    testId: 'schema-default',
  };
  if (values.length === 0) return <TextField {...field} />;
  return (
    <SelectField {...field}>
      <option value="">(no default)</option>
      {choices.map((value) => (
        <option key={value} value={value}>
          {value}
        </option>
      ))}
    </SelectField>
  );
}
