// My Keys' devices (issue 30): a floating seat's state, the key's device swaps left, and replacing a
// device after the confirmation (the next new device to activate the key takes its place).
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeviceList } from '../src/features/my-keys/DeviceList';
import { mockFetch, newQueryClient, wrapperFor } from './helpers';
import { type LicenseKey } from '../../worker/modules/keys/schemas/answers';

afterEach(() => {
  vi.unstubAllGlobals();
});

const soon = () => new Date(Date.now() + 3_600_000).toISOString();
const device = (id: string, fingerprint: string, extra: Partial<LicenseKey['activations'][number]> = {}) => ({
  _id: id,
  deviceFingerprint: fingerprint,
  deviceInfo: null,
  activatedAt: new Date().toISOString(),
  lastUsed: null,
  leaseExpiresAt: null,
  borrowedUntil: null,
  replacePendingAt: null,
  ...extra,
});

describe("a customer's devices in My Keys", () => {
  it('shows seats and swaps left, and asks to replace a device', async () => {
    const key = {
      _id: 'k1',
      heldSlots: [],
      activations: [
        device('a1', 'laptop-fingerprint-0001', { leaseExpiresAt: soon() }),
        device('a2', 'desktop-fingerprint-0002', { leaseExpiresAt: soon(), borrowedUntil: soon() }),
      ],
    } as unknown as LicenseKey;
    const calls = mockFetch({
      'GET /api/users/my-keys/k1/swaps': { body: { swapLimit: 3, swapWindowDays: 30, swapsLeft: 3, nextSwapAt: null } },
      'POST /api/users/my-keys/k1/activations/a1/replace': { body: { swapLimit: 3, swapWindowDays: 30, swapsLeft: 2, nextSwapAt: null } },
    });
    render(<DeviceList licenseKey={key} />, { wrapper: wrapperFor(newQueryClient()) });
    const list = screen.getByRole('list', { name: 'Activated devices' });
    expect(within(list).getAllByRole('listitem')[0].textContent).toMatch(/seat held until/);
    expect(within(list).getAllByRole('listitem')[1].textContent).toMatch(/seat borrowed until/);
    expect((await screen.findByTestId('swaps-left')).textContent).toBe('3 of 3 device swaps left in 30 days');
    await userEvent.click(screen.getByRole('button', { name: 'Replace device laptop-fingerpri…' }));
    const dialog = screen.getByRole('dialog', { name: 'Replace this device?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Replace device' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST')).toBe(true));
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url.pathname)).toEqual(['/api/users/my-keys/k1/activations/a1/replace']);
  });

  it('says when the next swap comes once none are left, and shows a device waiting for its replacement', async () => {
    const next = new Date(Date.now() + 5 * 86_400_000).toISOString();
    mockFetch({ 'GET /api/users/my-keys/k2/swaps': { body: { swapLimit: 1, swapWindowDays: 30, swapsLeft: 0, nextSwapAt: next } } });
    const key = {
      _id: 'k2',
      heldSlots: [],
      activations: [device('b1', 'tablet-fingerprint-0003', { replacePendingAt: new Date().toISOString() })],
    } as unknown as LicenseKey;
    render(<DeviceList licenseKey={key} />, { wrapper: wrapperFor(newQueryClient()) });
    expect((await screen.findByTestId('swaps-left')).textContent).toMatch(/^No device swaps left; the next is allowed /);
    expect(screen.getByText(/waiting for its replacement/)).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Replace device tablet-fingerpri…' }).disabled).toBe(true);
  });
});
