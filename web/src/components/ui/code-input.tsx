// A one-time code field: digits only, exactly six, the keyboard and autofill a phone offers for codes.
import { useId } from 'react';
import { TWO_FACTOR_CODE_LENGTH as CODE_LENGTH } from '../../lib/constants';

export const isCompleteCode = (code: string) => new RegExp(`^\\d{${CODE_LENGTH}}$`).test(code);

export function CodeInput({
  label,
  value,
  onChange,
  autoFocus,
  error,
  id: givenId,
  'data-autofocus': dataAutofocus,
}: {
  label: string;
  value: string;
  onChange: (code: string) => void;
  autoFocus?: boolean;
  error?: string;
  id?: string;
  /** Inside a dialog: the field the dialog focuses when it opens (components/ui/modal.tsx). */
  'data-autofocus'?: boolean;
}) {
  const autoId = useId();
  const id = givenId ?? autoId;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="code-input mono"
        type="text"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]*"
        maxLength={CODE_LENGTH}
        placeholder="000000"
        value={value}
        // Digits only: pasted "123 456" becomes "123456".
        onChange={(e) => onChange(e.target.value.replace(/\D/g, '').slice(0, CODE_LENGTH))}
        autoFocus={autoFocus}
        data-autofocus={dataAutofocus}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error && (
        <div id={`${id}-error`} className="field-error" role="alert">
          {error}
        </div>
      )}
    </div>
  );
}
