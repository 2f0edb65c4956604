// Step-up proof in the dialogs that grant power: User Management (a reseller or owner made, a role
// raised, an email changed), Webhooks (an endpoint added or moved) and Connect Google. Each asks
// only when the server does, sends the proof the account can give, and keeps the dialog open with
// the server's message when the proof is refused.
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { WebhookEndpoint } from '../../worker/modules/webhooks/schemas';
import { CreateUserModal, EditUserModal, grantsPower } from '../src/features/admin/users/UserModals';
import { WebhooksTab } from '../src/features/admin/webhooks/WebhooksTab';
import { GoogleCard } from '../src/features/security/GoogleCard';
import { type Call, mockFetch, newQueryClient, wrapperFor } from './helpers';
import { type SecurityInfo, type User } from '../../worker/modules/accounts/schemas/answers';

const REFUSED = {
  status: 403,
  body: { code: 'REAUTH_REQUIRED', message: 'Password is incorrect', details: { methods: ['currentPassword'] } },
};
const WITH_PASSWORD = { hasPassword: true, twoFactorEnabled: false };
const CODE_ONLY = { hasPassword: false, twoFactorEnabled: true };
const GOOGLE_ONLY = { hasPassword: false, twoFactorEnabled: false };

const security = (account: { hasPassword: boolean; twoFactorEnabled: boolean }): SecurityInfo => ({
  ...account,
  googleConnected: false,
  googleEmail: null,
  recoveryTokens: 0,
  googleAvailable: true,
});

const user: User = {
  _id: 'a'.repeat(24),
  username: 'carol',
  email: 'carol@example.com',
  role: 'user',
  balance: 0,
  credits: 0,
  isActive: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  lastLogin: null,
  twoFactorEnabled: false,
  googleConnected: false,
  emailVerified: true,
  language: null,
};

/** Answers the proof with the right password ("right-password"), refuses any other. */
const checksPassword = (ok: { status?: number; body: unknown }) => (call: Call) => {
  const body = call.body as { currentPassword?: string };
  return body.currentPassword === 'right-password' ? ok : REFUSED;
};

function renderWith(ui: React.ReactNode) {
  return render(ui, { wrapper: wrapperFor(newQueryClient()) });
}

const bodiesOf = (calls: Call[], route: string) =>
  calls.filter((c) => `${c.method} ${c.url.pathname}` === route).map((c) => c.body as Record<string, unknown>);

describe('grantsPower', () => {
  it('is true for a reseller or owner made, a role raised, an email changed; false otherwise', () => {
    expect(grantsPower(null, { role: 'user', email: 'a@b.co' })).toBe(false);
    expect(grantsPower(null, { role: 'reseller', email: 'a@b.co' })).toBe(true);
    expect(grantsPower(null, { role: 'owner', email: 'a@b.co' })).toBe(true);
    expect(grantsPower({ role: 'user', email: 'a@b.co' }, { role: 'reseller', email: 'a@b.co' })).toBe(true);
    expect(grantsPower({ role: 'reseller', email: 'a@b.co' }, { role: 'owner', email: 'a@b.co' })).toBe(true);
    expect(grantsPower({ role: 'owner', email: 'a@b.co' }, { role: 'reseller', email: 'a@b.co' })).toBe(false);
    expect(grantsPower({ role: 'reseller', email: 'a@b.co' }, { role: 'user', email: 'a@b.co' })).toBe(false);
    expect(grantsPower({ role: 'user', email: 'a@b.co' }, { role: 'user', email: ' A@B.co ' })).toBe(false);
    expect(grantsPower({ role: 'user', email: 'a@b.co' }, { role: 'user', email: 'c@b.co' })).toBe(true);
  });
});

describe('Create user', () => {
  async function fillNewUser(role: 'user' | 'reseller' | 'owner') {
    await userEvent.type(screen.getByLabelText('Username'), 'dave');
    await userEvent.type(screen.getByLabelText('Email'), 'dave@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'Tangerine-Harbor-42');
    await userEvent.selectOptions(screen.getByLabelText('Role'), role);
  }
  const created = { status: 201, body: { user: { ...user, username: 'dave' }, message: 'User created successfully' } };

  it('asks nothing more for a plain user', async () => {
    const calls = mockFetch({ 'GET /api/users/security': { body: security(WITH_PASSWORD) }, 'POST /api/admin/users': created });
    const onClose = vi.fn();
    renderWith(<CreateUserModal open onClose={onClose} />);
    await fillNewUser('user');
    expect(screen.queryByLabelText('Confirm with your password')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const [body] = bodiesOf(calls, 'POST /api/admin/users');
    expect(body).not.toHaveProperty('currentPassword');
    expect(body).not.toHaveProperty('code');
  });

  it('asks for the password for a reseller: nothing sent without it, a wrong one refused in the dialog, then created', async () => {
    const calls = mockFetch({
      'GET /api/users/security': { body: security(WITH_PASSWORD) },
      'POST /api/admin/users': checksPassword(created),
    });
    const onClose = vi.fn();
    renderWith(<CreateUserModal open onClose={onClose} />);
    await fillNewUser('reseller');
    const proof = await screen.findByLabelText('Confirm with your password');
    expect(screen.getByRole('group', { name: 'Confirm it is you' })).toBeTruthy();

    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    expect(await screen.findByText('Enter your current password.')).toBeTruthy();
    expect(bodiesOf(calls, 'POST /api/admin/users')).toHaveLength(0);
    expect(document.activeElement).toBe(proof);

    await userEvent.type(proof, 'wrong-password');
    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    const alert = await screen.findByText('Password is incorrect');
    expect(alert.getAttribute('role')).toBe('alert');
    // The refusal is the field's description, the field is emptied and focused, and the dialog stays.
    expect(proof.getAttribute('aria-describedby')).toContain(alert.id);
    expect(proof.getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(proof));
    expect((proof as HTMLInputElement).value).toBe('');
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByRole('dialog', { name: 'Create User' })).toBeTruthy();

    await userEvent.type(proof, 'right-password');
    expect(screen.queryByText('Password is incorrect')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const bodies = bodiesOf(calls, 'POST /api/admin/users');
    expect(bodies.map((b) => [b.role, b.currentPassword])).toEqual([
      ['reseller', 'wrong-password'],
      ['reseller', 'right-password'],
    ]);
  });

  it('asks an account with only two-factor for a code, and sends it', async () => {
    const calls = mockFetch({ 'GET /api/users/security': { body: security(CODE_ONLY) }, 'POST /api/admin/users': created });
    const onClose = vi.fn();
    renderWith(<CreateUserModal open onClose={onClose} />);
    await fillNewUser('owner');
    await userEvent.type(await screen.findByLabelText('Current code from your authenticator app'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    const [body] = bodiesOf(calls, 'POST /api/admin/users');
    expect(body).toMatchObject({ role: 'owner', code: '123456' });
    expect(body).not.toHaveProperty('currentPassword');
  });

  it('sends no proof for a Google-only account (a recent sign-in) and shows a refusal in the dialog', async () => {
    const calls = mockFetch({
      'GET /api/users/security': { body: security(GOOGLE_ONLY) },
      'POST /api/admin/users': {
        status: 403,
        body: { code: 'REAUTH_REQUIRED', message: 'For your security, sign in again and retry within 5 minutes.', details: {} },
      },
    });
    const onClose = vi.fn();
    renderWith(<CreateUserModal open onClose={onClose} />);
    await fillNewUser('reseller');
    expect(await screen.findByText(/a sign-in within the last 5 minutes confirms it is you/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    expect((await screen.findByRole('alert')).textContent).toBe('For your security, sign in again and retry within 5 minutes.');
    expect(onClose).not.toHaveBeenCalled();
    const [body] = bodiesOf(calls, 'POST /api/admin/users');
    expect(body).not.toHaveProperty('currentPassword');
    expect(body).not.toHaveProperty('code');
  });
});

describe('Create user when the ways to prove cannot be loaded', () => {
  it('says so and sends nothing', async () => {
    const calls = mockFetch({ 'GET /api/users/security': { status: 500, body: { code: 'INTERNAL', message: 'Internal error' } } });
    const onClose = vi.fn();
    renderWith(<CreateUserModal open onClose={onClose} />);
    await userEvent.type(screen.getByLabelText('Username'), 'frank');
    await userEvent.type(screen.getByLabelText('Email'), 'frank@example.com');
    await userEvent.type(screen.getByLabelText('Password'), 'Tangerine-Harbor-42');
    await userEvent.selectOptions(screen.getByLabelText('Role'), 'owner');
    expect(await screen.findByText(/Could not check how you can confirm it is you/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Create User' }));
    // The form is valid: the one thing shown is that the proof cannot be asked for.
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual([
      'Could not check how you can confirm it is you. Close this dialog and try again.',
    ]);
    expect(bodiesOf(calls, 'POST /api/admin/users')).toHaveLength(0);
    expect(onClose).not.toHaveBeenCalled();
  });
});

describe('Edit user', () => {
  const path = `PUT /api/admin/users/${user._id}`;
  const updated = { body: { user, message: 'User updated successfully' } };

  it('asks for proof to raise a role, not to lower one or change the balance', async () => {
    const calls = mockFetch({ 'GET /api/users/security': { body: security(WITH_PASSWORD) }, [path]: checksPassword(updated) });
    const onClose = vi.fn();
    renderWith(<EditUserModal user={{ ...user, role: 'reseller' }} onClose={onClose} />);
    await userEvent.selectOptions(screen.getByLabelText('Role'), 'user');
    expect(screen.queryByLabelText('Confirm with your password')).toBeNull();
    expect(screen.getByText(/Changing the role ends all of this account’s sessions and API tokens/)).toBeTruthy();
    await userEvent.selectOptions(screen.getByLabelText('Role'), 'owner');
    await userEvent.type(await screen.findByLabelText('Confirm with your password'), 'wrong-password');
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Password is incorrect')).toBeTruthy();
    expect(onClose).not.toHaveBeenCalled();
    await userEvent.type(screen.getByLabelText('Confirm with your password'), 'right-password');
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(bodiesOf(calls, path)).toEqual([
      { role: 'owner', currentPassword: 'wrong-password' },
      { role: 'owner', currentPassword: 'right-password' },
    ]);
  });

  it('asks for proof to change the email', async () => {
    const calls = mockFetch({ 'GET /api/users/security': { body: security(WITH_PASSWORD) }, [path]: checksPassword(updated) });
    const onClose = vi.fn();
    renderWith(<EditUserModal user={user} onClose={onClose} />);
    const email = screen.getByLabelText('Email');
    await userEvent.clear(email);
    await userEvent.type(email, 'carol@elsewhere.example');
    expect(await screen.findByText(/Changing the email decides who can reset/)).toBeTruthy();
    await userEvent.type(await screen.findByLabelText('Confirm with your password'), 'right-password');
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(bodiesOf(calls, path)).toEqual([{ email: 'carol@elsewhere.example', currentPassword: 'right-password' }]);
  });

  it('deactivates without proof and says the sessions and tokens end for good', async () => {
    const calls = mockFetch({ 'GET /api/users/security': { body: security(WITH_PASSWORD) }, [path]: updated });
    const onClose = vi.fn();
    renderWith(<EditUserModal user={user} onClose={onClose} />);
    await userEvent.click(screen.getByLabelText('Account Active'));
    expect(screen.getByText(/ends its API tokens for good: reactivating the account later does not bring them back/)).toBeTruthy();
    expect(screen.queryByLabelText('Confirm with your password')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }));
    await waitFor(() => expect(onClose).toHaveBeenCalled());
    expect(bodiesOf(calls, path)).toEqual([{ isActive: false }]);
  });
});

describe('Webhooks', () => {
  const endpoint: WebhookEndpoint = {
    id: 'wh_1',
    url: 'https://hooks.example.com/keypanel',
    description: '',
    events: ['key.purchased'],
    enabled: true,
    failingSince: null,
    disabledReason: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: null,
    health: { delivered24h: 0, failed24h: 0, pending: 0, lastDeliveryAt: null, lastStatus: null },
  };

  it('adds an endpoint only with proof; a wrong password is refused in the dialog', async () => {
    const calls = mockFetch({
      'GET /api/users/security': { body: security(WITH_PASSWORD) },
      'GET /api/webhooks': { body: { endpoints: [] } },
      'POST /api/webhooks': checksPassword({ status: 201, body: { ...endpoint, secret: 'whsec_shown_once', message: 'created' } }),
    });
    renderWith(<WebhooksTab />);
    await userEvent.click(screen.getByRole('button', { name: 'Add endpoint' }));
    const dialog = screen.getByRole('dialog', { name: 'Add endpoint' });
    const url = within(dialog).getByLabelText('URL');
    await userEvent.clear(url);
    await userEvent.type(url, 'https://hooks.example.com/keypanel');
    const proof = await within(dialog).findByLabelText('Confirm with your password');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    expect(await within(dialog).findByText('Enter your current password.')).toBeTruthy();
    expect(bodiesOf(calls, 'POST /api/webhooks')).toHaveLength(0);
    await userEvent.type(proof, 'wrong-password');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    expect(await within(dialog).findByText('Password is incorrect')).toBeTruthy();
    expect(screen.getByRole('dialog', { name: 'Add endpoint' })).toBe(dialog);
    await userEvent.type(proof, 'right-password');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    expect(await screen.findByRole('dialog', { name: 'Signing secret' })).toBeTruthy();
    expect(bodiesOf(calls, 'POST /api/webhooks').map((b) => b.currentPassword)).toEqual(['wrong-password', 'right-password']);
  });

  it('asks for proof to change the URL, not to change the description', async () => {
    const calls = mockFetch({
      'GET /api/users/security': { body: security(WITH_PASSWORD) },
      'GET /api/webhooks': { body: { endpoints: [endpoint] } },
      'PATCH /api/webhooks/wh_1': { body: endpoint },
    });
    renderWith(<WebhooksTab />);
    await userEvent.click(await screen.findByRole('button', { name: 'Edit' }));
    let dialog = screen.getByRole('dialog', { name: 'Edit endpoint' });
    await userEvent.type(within(dialog).getByLabelText('Description'), 'Orders');
    expect(within(dialog).queryByLabelText('Confirm with your password')).toBeNull();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    dialog = screen.getByRole('dialog', { name: 'Edit endpoint' });
    const url = within(dialog).getByLabelText('URL');
    await userEvent.clear(url);
    await userEvent.type(url, 'https://other.example.com/hook');
    await userEvent.type(await within(dialog).findByLabelText('Confirm with your password'), 'right-password');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());

    const bodies = bodiesOf(calls, 'PATCH /api/webhooks/wh_1');
    expect(bodies[0]).toMatchObject({ url: endpoint.url, description: 'Orders' });
    expect(bodies[0]).not.toHaveProperty('currentPassword');
    expect(bodies[1]).toMatchObject({ url: 'https://other.example.com/hook', currentPassword: 'right-password' });
  });
});

describe('Connect Google', () => {
  it('asks for the password first; a wrong one is refused in the dialog, the right one leaves for Google', async () => {
    const assign = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, origin: 'http://localhost:5173', assign });
    const calls = mockFetch({
      'POST /api/users/connect-google': checksPassword({ body: { url: 'https://accounts.google.com/o/oauth2/v2/auth?x=1' } }),
    });
    renderWith(<GoogleCard info={security(WITH_PASSWORD)} />);
    await userEvent.click(screen.getByRole('button', { name: /Connect Google/ }));
    const dialog = screen.getByRole('dialog', { name: 'Connect Google?' });
    const proof = within(dialog).getByLabelText('Confirm with your password');
    expect(document.activeElement).toBe(proof);
    expect(within(dialog).getByRole('button', { name: 'Continue to Google' })).toHaveProperty('disabled', true);
    await userEvent.type(proof, 'wrong-password');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue to Google' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Password is incorrect');
    expect(assign).not.toHaveBeenCalled();
    await userEvent.clear(proof);
    await userEvent.type(proof, 'right-password');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue to Google' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://accounts.google.com/o/oauth2/v2/auth?x=1'));
    expect(bodiesOf(calls, 'POST /api/users/connect-google')).toEqual([
      { currentPassword: 'wrong-password' },
      { currentPassword: 'right-password' },
    ]);
  });
});
