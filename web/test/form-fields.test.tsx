// components/ui/field (a text area, a select and a checkbox beside the text input, each with its
// hint and error) on lib/form's useForm, and the admin forms built on them: the revoke and bulk-delete
// reasons, and the settings.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Schemas } from '../../worker/platform/api-client';
import { DEFAULT_SETTINGS } from '../../worker/modules/settings/schemas';
import { toastsAtom } from '../src/components/ui/toast';
import { CheckboxField, SelectField, TextAreaField } from '../src/components/ui/field';
import { BulkDeleteModal, RevokeKeyModal } from '../src/features/admin/license-keys/KeyModals';
import { SettingsTab } from '../src/features/admin/settings/SettingsTab';
import { useForm, type FieldErrors, type FormOptions } from '../src/lib/form';
import { appStore, clearSession, sessionKeys, setSessionToken } from '../src/lib/session';
import { mockFetch, newQueryClient, wrapperFor } from './helpers';

type LicenseKey = Schemas['LicenseKey'];
type User = Schemas['User'];

type Values = { note: string; size: string; agree: boolean };
const initial: Values = { note: '', size: '', agree: false };
const required = (v: Values): FieldErrors<Values> => ({
  ...(v.note.trim() ? {} : { note: 'Note is required' }),
  ...(v.size ? {} : { size: 'Pick a size' }),
});

function NoteForm(props: Partial<FormOptions<Values>>) {
  const form = useForm<Values>({ initial, validate: required, submit: () => undefined, ...props });
  return (
    <form onSubmit={form.onSubmit} noValidate>
      <TextAreaField label="Note" hint="A few words" {...form.field('note')} />
      <SelectField label="Size" {...form.field('size')}>
        <option value="">Choose…</option>
        <option value="s">Small</option>
        <option value="l">Large</option>
      </SelectField>
      <CheckboxField label="Agree" hint="You agree to the terms" {...form.checkbox('agree')} />
      <button type="submit">Save</button>
      <button type="button" onClick={() => form.reset()}>
        Start again
      </button>
      <button type="button" onClick={() => form.clearErrors((name) => name === 'size')}>
        Forget the size
      </button>
    </form>
  );
}

const describedBy = (el: HTMLElement) =>
  (el.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .filter(Boolean)
    .map((id) => document.getElementById(id)?.textContent);

describe('form fields on useForm', () => {
  it('labels a text area and a select, describes them by hint and error, and marks them invalid', async () => {
    const onInvalid = vi.fn();
    render(<NoteForm onInvalid={onInvalid} />);
    const note = screen.getByLabelText('Note');
    const size = screen.getByLabelText('Size');
    expect(note.tagName).toBe('TEXTAREA');
    expect(size.tagName).toBe('SELECT');
    expect(describedBy(note)).toEqual(['A few words']);
    expect(note.getAttribute('aria-invalid')).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Note is required', 'Pick a size']);
    expect(note.getAttribute('aria-invalid')).toBe('true');
    expect(describedBy(note)).toEqual(['Note is required', 'A few words']);
    expect(size.getAttribute('aria-invalid')).toBe('true');
    expect(describedBy(size)).toEqual(['Pick a size']);
    expect(onInvalid).toHaveBeenCalledWith({ note: 'Note is required', size: 'Pick a size' });
  });

  it('binds each to its value, and an edit answers that field’s complaint only', async () => {
    const submit = vi.fn();
    render(<NoteForm submit={submit} />);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await userEvent.type(screen.getByLabelText('Note'), 'Hello');
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Pick a size']);
    await userEvent.selectOptions(screen.getByLabelText('Size'), 'l');
    expect(screen.queryByRole('alert')).toBeNull();
    await userEvent.click(screen.getByLabelText('Agree'));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(submit).toHaveBeenCalledWith({ note: 'Hello', size: 'l', agree: true });
  });

  it('describes a checkbox by its hint', () => {
    render(<NoteForm />);
    const agree = screen.getByRole('checkbox', { name: 'Agree' });
    expect(describedBy(agree)).toEqual(['You agree to the terms']);
  });

  it('starts again on reset, and drops the errors it is told to', async () => {
    render(<NoteForm />);
    await userEvent.type(screen.getByLabelText('Note'), 'Hello');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual(['Pick a size']);
    await userEvent.click(screen.getByRole('button', { name: 'Forget the size' }));
    expect(screen.queryByRole('alert')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await userEvent.click(screen.getByRole('button', { name: 'Start again' }));
    expect(screen.getByLabelText<HTMLTextAreaElement>('Note').value).toBe('');
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

const renderWith = (ui: React.ReactNode) => render(ui, { wrapper: wrapperFor(newQueryClient()) });
const licenseKey = { _id: 'k1', key: 'ABC-1234' } as LicenseKey;

describe('the admin key reasons', () => {
  it('asks for the reason to revoke under its field, and sends the reason typed', async () => {
    const calls = mockFetch({ 'PUT /api/keys/k1/revoke': { body: { licenseKey, message: 'revoked' } } });
    const onClose = vi.fn();
    renderWith(<RevokeKeyModal licenseKey={licenseKey} onClose={onClose} />);
    const reason = screen.getByLabelText('Reason for revoking');
    expect(document.activeElement).toBe(reason);
    await userEvent.click(screen.getByRole('button', { name: 'Revoke Key' }));
    expect(screen.getByRole('alert').textContent).toBe('Please provide a reason for revoking this key');
    expect(reason.getAttribute('aria-invalid')).toBe('true');
    expect(calls).toHaveLength(0);
    await userEvent.type(reason, 'Refunded');
    expect(screen.queryByRole('alert')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Revoke Key' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(calls.map((c) => c.body)).toEqual([{ reason: 'Refunded' }]);
  });

  it('says under the reason when more keys are chosen than one deletion takes', async () => {
    const calls = mockFetch({});
    const ids = Array.from({ length: 501 }, (_, i) => i.toString(16).padStart(24, '0'));
    renderWith(<BulkDeleteModal keyIds={ids} onClose={vi.fn()} onDeleted={vi.fn()} />);
    await userEvent.type(screen.getByLabelText('Reason for deleting'), 'Leaked');
    await userEvent.click(screen.getByRole('button', { name: 'Delete 501 Keys' }));
    expect(screen.getByRole('alert').textContent).toBe('At most 500 keys can be deleted at once');
    expect(screen.getByLabelText('Reason for deleting').getAttribute('aria-invalid')).toBe('true');
    expect(calls).toHaveLength(0);
  });
});

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl';
const owner = { _id: 'o'.repeat(24), username: 'olive', role: 'owner' } as User;

describe('the settings form', () => {
  beforeEach(() => {
    appStore.set(toastsAtom, []);
  });
  afterEach(() => {
    clearSession();
  });

  async function openSettings() {
    expect(setSessionToken(TOKEN)).toBe(true);
    const calls = mockFetch({
      'GET /api/users/profile': { body: owner },
      'GET /api/settings': { body: DEFAULT_SETTINGS },
      'GET /api/settings/server': { body: { mail: { configured: true, message: null } } },
      'POST /api/settings/reset': { body: DEFAULT_SETTINGS },
    });
    // As behind the route guard: the signed-in user is loaded before the panel shows.
    const queryClient = newQueryClient();
    queryClient.setQueryData(sessionKeys.profile, owner);
    render(<SettingsTab />, { wrapper: wrapperFor(queryClient) });
    await screen.findByLabelText('USD to Credit Rate');
    return calls;
  }
  const toasts = () => appStore.get(toastsAtom).map((t) => `${t.type}: ${t.message}`);

  it('names a refused number in its own words, on the field and in a toast, and sends nothing', async () => {
    const calls = await openSettings();
    const rate = screen.getByLabelText('USD to Credit Rate');
    await userEvent.clear(rate);
    await userEvent.type(rate, '0');
    expect(screen.getByText('1 USD = 0 credits')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(within(rate.closest('.field')!).getByRole('alert').textContent).toBe('USD to Credit Rate must be at least 1');
    expect(rate.getAttribute('aria-invalid')).toBe('true');
    expect(toasts()).toEqual(['error: USD to Credit Rate must be at least 1']);
    expect(calls.filter((c) => c.method === 'PUT')).toHaveLength(0);
  });

  it('answers every card top-up complaint once any card top-up field changes', async () => {
    await openSettings();
    const min = screen.getByLabelText('Minimum Top-up (USD)');
    await userEvent.clear(min);
    await userEvent.type(min, '600');
    await userEvent.click(screen.getByRole('button', { name: 'Save Settings' }));
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual([
      'minTopUpUsd must not exceed maxTopUpUsd',
      'Quick amounts must lie between the minimum and the maximum',
    ]);
    await userEvent.type(screen.getByLabelText('Maximum Top-up (USD)'), '0');
    expect(screen.queryAllByRole('alert')).toHaveLength(0);
  });

  it('resets to the defaults after the confirmation, with the flags described by their hints', async () => {
    const calls = await openSettings();
    const maintenance = screen.getByRole('checkbox', { name: 'Maintenance Mode' });
    expect(describedBy(maintenance)).toEqual(['Only owners can use KeyPanel; licensed apps keep working']);
    await userEvent.click(maintenance);
    expect(screen.getByText('Maintenance')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Reset to Defaults' }));
    const confirm = screen.getByRole('dialog', { name: 'Reset to Defaults' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Reset Settings' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'Maintenance Mode' }).checked).toBe(false);
    expect(toasts()).toEqual(['success: Settings reset to defaults']);
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url.pathname)).toEqual(['/api/settings/reset']);
  });
});
