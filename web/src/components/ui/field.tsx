// Labelled form fields, each with its hint and its error announced to screen readers: a text input
// (Field), a text area, a select, and a checkbox with its hint. `form.field(name)` and
// `form.checkbox(name)` (lib/form) give one its value, its change handler and its error.
import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

type FrameProps = { label: ReactNode; error?: string | null; hint?: ReactNode; id?: string; className?: string };

/** The control's id, and the attributes that tie it to its hint and error. */
function useFieldIds({ id, error, hint }: Pick<FrameProps, 'id' | 'error' | 'hint'>) {
  const autoId = useId();
  const inputId = id ?? autoId;
  const describedBy = [error ? `${inputId}-error` : null, hint ? `${inputId}-hint` : null].filter(Boolean).join(' ') || undefined;
  return { inputId, control: { id: inputId, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy } };
}

function FieldFrame({ label, error, hint, inputId, className = '', children }: FrameProps & { inputId: string; children: ReactNode }) {
  return (
    <div className={`field ${className}`}>
      <label htmlFor={inputId}>{label}</label>
      {children}
      {hint && (
        <div id={`${inputId}-hint`} className="field-hint">
          {hint}
        </div>
      )}
      {error && (
        <div id={`${inputId}-error`} className="field-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}

export function Field({ label, error, hint, id, className, ...input }: FrameProps & InputHTMLAttributes<HTMLInputElement>) {
  const { inputId, control } = useFieldIds({ id, error, hint });
  return (
    <FieldFrame label={label} error={error} hint={hint} inputId={inputId} className={className}>
      <input {...control} {...input} />
    </FieldFrame>
  );
}

export function TextAreaField({
  label,
  error,
  hint,
  id,
  className,
  ...textarea
}: FrameProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { inputId, control } = useFieldIds({ id, error, hint });
  return (
    <FieldFrame label={label} error={error} hint={hint} inputId={inputId} className={className}>
      <textarea {...control} {...textarea} />
    </FieldFrame>
  );
}

/** The options are its children. */
export function SelectField({ label, error, hint, id, className, ...select }: FrameProps & SelectHTMLAttributes<HTMLSelectElement>) {
  const { inputId, control } = useFieldIds({ id, error, hint });
  return (
    <FieldFrame label={label} error={error} hint={hint} inputId={inputId} className={className}>
      <select {...control} {...select} />
    </FieldFrame>
  );
}

/** A checkbox named by the text beside it; with a hint, the hint below describes it. */
export function CheckboxField({
  label,
  hint,
  id,
  className = '',
  ...input
}: Omit<FrameProps, 'error'> & InputHTMLAttributes<HTMLInputElement>) {
  const autoId = useId();
  const hintId = hint ? `${id ?? autoId}-hint` : undefined;
  const box = (
    <label className={`checkbox ${className}`}>
      <input type="checkbox" id={id} aria-describedby={hintId} {...input} /> {label}
    </label>
  );
  if (!hint) return box;
  return (
    <div className="checkbox-field">
      {box}
      <div id={hintId} className="field-hint">
        {hint}
      </div>
    </div>
  );
}
