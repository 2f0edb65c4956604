// The one pattern for the web's forms: values, per-field errors from a validate function (usually
// `schemaErrors` over a zod schema shared with the Worker, worker/modules/<module>/schemas, so the
// messages are the API's own),
// one submission at a time, and the server's refusal placed on its field or the whole form.
import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { ApiError, errorMessage } from '../api';
import { validationMessage } from './messages';
import { translate } from '../i18n/runtime';

export type FormValues = Record<string, string | boolean>;
export type FieldErrors<V extends FormValues> = Partial<Record<keyof V & string, string>>;
export type FormStatus = 'idle' | 'submitting' | 'succeeded';

export type FormOptions<V extends FormValues> = {
  initial: V;
  /** The errors that keep the form from being sent; an empty object when it may go. */
  validate?: (values: V) => FieldErrors<V>;
  /** Sends the form; throwing (an ApiError, usually) means it was refused. */
  submit: (values: V) => unknown;
  /** What a refusal says above the form, or null when it is shown some other way (a toast). */
  onError?: (err: unknown) => string | null;
  /** Empty the form after it was sent, for forms used again and again (the exchange). */
  resetOnSuccess?: boolean;
  /** Told the errors when validation keeps the form from being sent (a long form also says so in a toast). */
  onInvalid?: (errors: FieldErrors<V>) => void;
};

/** The API's VALIDATION_ERROR names the field it refused (worker/platform/validate.ts). */
export function serverFieldError<V extends FormValues>(err: unknown, values: V): FieldErrors<V> | null {
  if (!(err instanceof ApiError) || err.code !== 'VALIDATION_ERROR') return null;
  const field = err.details?.field;
  if (typeof field !== 'string' || !(field in values) || !err.message) return null;
  return { [field]: validationMessage(err.message) } as FieldErrors<V>;
}

export function useForm<V extends FormValues>(options: FormOptions<V>) {
  const [values, setValues] = useState<V>(options.initial);
  const [errors, setErrors] = useState<FieldErrors<V>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [status, setStatus] = useState<FormStatus>('idle');
  // A second Enter while the first request runs must not send the form twice.
  const inFlight = useRef(false);

  function set<K extends keyof V & string>(name: K, value: V[K]) {
    setValues((current) => ({ ...current, [name]: value }));
    // The field's old complaint no longer describes what is in it.
    setErrors((current) => {
      if (!(name in current)) return current;
      const next = { ...current };
      delete next[name];
      return next;
    });
  }

  /** Validates, then sends; resolves to whether the form was sent and accepted. */
  async function handleSubmit(event?: FormEvent): Promise<boolean> {
    event?.preventDefault();
    if (inFlight.current) return false;
    const found = options.validate?.(values) ?? {};
    setErrors(found);
    setFormError(null);
    if (Object.keys(found).length > 0) {
      options.onInvalid?.(found);
      return false;
    }
    inFlight.current = true;
    setStatus('submitting');
    try {
      await options.submit(values);
      setStatus('succeeded');
      if (options.resetOnSuccess) setValues(options.initial);
      return true;
    } catch (err) {
      setStatus('idle');
      const onField = serverFieldError(err, values);
      if (onField) setErrors(onField);
      else setFormError(options.onError ? options.onError(err) : errorMessage(err, translate('form.failed')));
      return false;
    } finally {
      inFlight.current = false;
    }
  }

  /** Starts again from `next` (the initial values by default): no errors, nothing sent. */
  function reset(next: V = options.initial) {
    setValues(next);
    setErrors({});
    setFormError(null);
    setStatus('idle');
  }

  /** Drops the errors of the fields named (one change can answer a complaint placed on another field). */
  function clearErrors(which: (name: keyof V & string) => boolean) {
    setErrors((current) => {
      const names = Object.keys(current) as Array<keyof V & string>;
      if (!names.some(which)) return current;
      return Object.fromEntries(Object.entries(current).filter(([name]) => !which(name))) as FieldErrors<V>;
    });
  }

  /** For a form's onSubmit: handleSubmit settles every outcome itself, so nothing is left to await. */
  function onSubmit(event: FormEvent) {
    void handleSubmit(event);
  }

  /** The props of a text field, a text area or a select (components/ui/field.tsx) bound to one value. */
  function field<K extends keyof V & string>(name: K) {
    return {
      name,
      value: String(values[name]),
      onChange: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => set(name, e.target.value as V[K]),
      error: errors[name] ?? null,
    };
  }

  /** The props of a checkbox bound to one value. */
  function checkbox<K extends keyof V & string>(name: K) {
    return { name, checked: values[name] === true, onChange: (e: ChangeEvent<HTMLInputElement>) => set(name, e.target.checked as V[K]) };
  }

  return {
    values,
    errors,
    formError,
    status,
    submitting: status === 'submitting',
    set,
    field,
    checkbox,
    handleSubmit,
    onSubmit,
    reset,
    clearErrors,
  };
}

export type Form<V extends FormValues> = ReturnType<typeof useForm<V>>;
