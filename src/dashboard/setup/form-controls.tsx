import type { Child, FC } from 'hono/jsx';

/** Form controls that always carry a label, and their errors right under them (linked by aria-describedby). */
export type Errors = ReadonlyMap<string, string[]>;

export const idOf = (name: string) => `f-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;

const FieldErrors: FC<{ name: string; errors: Errors }> = ({ name, errors }) => {
  const list = errors.get(name);
  return list?.length ? (
    <div id={`${idOf(name)}-error`} class="error" role="alert">
      {list.map((e) => (
        <p>{e}</p>
      ))}
    </div>
  ) : null;
};

function described(name: string, errors: Errors, hint?: string) {
  const ids = [errors.get(name)?.length ? `${idOf(name)}-error` : '', hint ? `${idOf(name)}-hint` : '']
    .filter(Boolean)
    .join(' ');
  return {
    ...(ids ? { 'aria-describedby': ids } : {}),
    ...(errors.get(name)?.length ? { 'aria-invalid': 'true' } : {}),
  };
}

const Hint: FC<{ name: string; hint?: string | undefined }> = ({ name, hint }) =>
  hint ? (
    <p id={`${idOf(name)}-hint`} class="muted">
      {hint}
    </p>
  ) : null;

export const TextField: FC<{
  name: string;
  label: string;
  value: unknown;
  errors: Errors;
  hint?: string;
  type?: string;
  textarea?: boolean;
  required?: boolean;
}> = ({ name, label, value, errors, hint, type, textarea, required }) => {
  const v = value === undefined || value === null ? '' : String(value);
  return (
    <div>
      <label for={idOf(name)}>{label}</label>
      <Hint name={name} hint={hint} />
      {textarea ? (
        <textarea id={idOf(name)} name={name} {...described(name, errors, hint)}>
          {v}
        </textarea>
      ) : (
        <input
          id={idOf(name)}
          name={name}
          type={type ?? 'text'}
          value={v}
          required={required}
          {...described(name, errors, hint)}
        />
      )}
      <FieldErrors name={name} errors={errors} />
    </div>
  );
};

export const SelectField: FC<{
  name: string;
  label: string;
  value: unknown;
  options: readonly (readonly [string, string])[];
  errors: Errors;
  hint?: string;
}> = ({ name, label, value, options, errors, hint }) => (
  <div>
    <label for={idOf(name)}>{label}</label>
    <Hint name={name} hint={hint} />
    <select id={idOf(name)} name={name} {...described(name, errors, hint)}>
      {options.map(([v, text]) => (
        <option value={v} selected={String(value ?? '') === v}>
          {text}
        </option>
      ))}
    </select>
    <FieldErrors name={name} errors={errors} />
  </div>
);

export const CheckField: FC<{ name: string; label: string; checked: boolean; errors: Errors; hint?: string }> = ({
  name,
  label,
  checked,
  errors,
  hint,
}) => (
  <div>
    <label class="check" for={idOf(name)}>
      <input
        id={idOf(name)}
        type="checkbox"
        name={name}
        value="yes"
        checked={checked}
        {...described(name, errors, hint)}
      />{' '}
      {label}
    </label>
    <Hint name={name} hint={hint} />
    <FieldErrors name={name} errors={errors} />
  </div>
);

/** A fieldset with its section-level errors (duplicates, cross-field rules) under the legend. */
export const Section: FC<{ name: string; legend: string; errors: Errors; children?: Child }> = ({
  name,
  legend,
  errors,
  children,
}) => (
  <fieldset id={idOf(name)}>
    <legend>{legend}</legend>
    <FieldErrors name={name} errors={errors} />
    {children}
  </fieldset>
);
