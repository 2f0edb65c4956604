// lib/form: the one form pattern (validation first, one submission at a time, refusals placed).
import { act, render, renderHook, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { Field } from '../src/components/ui/field';
import { ApiError } from '../src/lib/api';
import { useForm, type FormOptions } from '../src/lib/form';

type Values = { name: string; agree: boolean };
const initial: Values = { name: '', agree: false };

function NameForm(props: Partial<FormOptions<Values>>) {
  const form = useForm<Values>({ initial, submit: () => undefined, ...props });
  return (
    <form onSubmit={form.onSubmit} noValidate>
      {form.formError && <div role="alert">{form.formError}</div>}
      <Field label="Name" {...form.field('name')} />
      <label>
        <input type="checkbox" {...form.checkbox('agree')} /> Agree
      </label>
      <button type="submit" disabled={form.submitting}>
        {form.submitting ? 'Saving…' : 'Save'}
      </button>
    </form>
  );
}

const nameRequired = (v: Values) => (v.name.trim() ? {} : { name: 'Name is required' });

describe('useForm', () => {
  it('shows the validation errors and does not send the form', async () => {
    const submit = vi.fn();
    render(<NameForm validate={nameRequired} submit={submit} />);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByRole('alert')).toHaveProperty('textContent', 'Name is required');
    expect(screen.getByLabelText('Name').getAttribute('aria-invalid')).toBe('true');
    expect(submit).not.toHaveBeenCalled();
  });

  it('clears a field’s error when it is edited, and sends the typed values', async () => {
    const submit = vi.fn();
    render(<NameForm validate={nameRequired} submit={submit} />);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await userEvent.type(screen.getByLabelText('Name'), 'Ada');
    expect(screen.queryByRole('alert')).toBeNull();
    await userEvent.click(screen.getByLabelText('Agree'));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(submit).toHaveBeenCalledWith({ name: 'Ada', agree: true });
  });

  it('sends once however often it is submitted while the request runs', async () => {
    let finish!: () => void;
    const submit = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const { result } = renderHook(() => useForm<Values>({ initial: { name: 'Ada', agree: false }, submit }));
    let first!: Promise<boolean>;
    act(() => {
      first = result.current.handleSubmit();
    });
    expect(result.current.submitting).toBe(true);
    let second!: boolean;
    await act(async () => {
      second = await result.current.handleSubmit();
    });
    expect(second).toBe(false);
    await act(async () => {
      finish();
      expect(await first).toBe(true);
    });
    expect(submit).toHaveBeenCalledTimes(1);
    expect(result.current.status).toBe('succeeded');
  });

  it('puts the API’s VALIDATION_ERROR on the field it names', async () => {
    const refusal = new ApiError('Username must be at least 3 characters', 400, 'VALIDATION_ERROR', { field: 'name' });
    render(<NameForm submit={() => Promise.reject(refusal)} />);
    await userEvent.type(screen.getByLabelText('Name'), 'A');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    const error = await screen.findByRole('alert');
    expect(error.textContent).toBe('Username must be at least 3 characters');
    expect(screen.getByLabelText('Name').getAttribute('aria-describedby')).toBe(error.id);
    expect(screen.getByRole('button', { name: 'Save' })).toHaveProperty('disabled', false);
  });

  it('shows any other refusal for the whole form: the server’s message, or what onError makes of it', async () => {
    const conflict = new ApiError('Email already registered', 409, 'CONFLICT');
    const { unmount } = render(<NameForm submit={() => Promise.reject(conflict)} />);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Email already registered');
    unmount();

    const onError = vi.fn(() => null);
    render(<NameForm submit={() => Promise.reject(conflict)} onError={onError} />);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(onError).toHaveBeenCalledWith(conflict);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('empties the form after a success when asked to', async () => {
    render(<NameForm submit={() => undefined} resetOnSuccess />);
    await userEvent.type(screen.getByLabelText('Name'), 'Ada');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getByLabelText('Name')).toHaveProperty('value', '');
  });
});
