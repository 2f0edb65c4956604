// components/ui/inline-confirm: a row's change confirmed in place (a key's devices and held slots in
// the admin panel's key details).
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import type { Schemas } from '../../worker/platform/api-client';
import { InlineConfirm } from '../src/components/ui/inline-confirm';
import { DeviceList, HeldSlotList } from '../src/features/admin/license-keys/KeyDevices';
import { mockFetch, newQueryClient, wrapperFor } from './helpers';

type LicenseKey = Schemas['LicenseKey'];

function Row({ busy = false, onConfirm }: { busy?: boolean; onConfirm: () => void }) {
  const [confirming, setConfirming] = useState(false);
  return (
    <InlineConfirm
      confirming={confirming}
      label="Remove"
      ariaLabel="Remove device abc"
      groupLabel="Confirm device removal"
      confirmLabel="Confirm removal"
      busyLabel="Removing…"
      busy={busy}
      onAsk={() => setConfirming(true)}
      onKeep={() => setConfirming(false)}
      onConfirm={onConfirm}
    />
  );
}

describe('InlineConfirm', () => {
  it('asks in place: the button becomes a named Confirm and Keep pair, and Keep goes back', async () => {
    const onConfirm = vi.fn();
    render(<Row onConfirm={onConfirm} />, { wrapper: wrapperFor(newQueryClient()) });
    const ask = screen.getByRole('button', { name: 'Remove device abc' });
    expect(ask.textContent).toBe('Remove');
    await userEvent.click(ask);
    const group = screen.getByRole('group', { name: 'Confirm device removal' });
    expect(
      within(group)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Confirm removal', 'Keep']);
    await userEvent.click(within(group).getByRole('button', { name: 'Keep' }));
    expect(screen.queryByRole('group')).toBeNull();
    expect(screen.getByRole('button', { name: 'Remove device abc' })).toBeTruthy();
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('confirms from the keyboard, and says it is busy with both buttons disabled', async () => {
    const onConfirm = vi.fn();
    const { rerender } = render(<Row onConfirm={onConfirm} />, { wrapper: wrapperFor(newQueryClient()) });
    screen.getByRole('button', { name: 'Remove device abc' }).focus();
    await userEvent.keyboard('{Enter}');
    screen.getByRole('button', { name: 'Confirm removal' }).focus();
    await userEvent.keyboard('{Enter}');
    expect(onConfirm).toHaveBeenCalledOnce();
    rerender(<Row busy onConfirm={onConfirm} />);
    const buttons = within(screen.getByRole('group', { name: 'Confirm device removal' })).getAllByRole('button');
    expect(buttons.map((b) => [b.textContent, (b as HTMLButtonElement).disabled])).toEqual([
      ['Removing…', true],
      ['Keep', true],
    ]);
  });
});

const device = (id: string, fingerprint: string) => ({
  _id: id,
  deviceFingerprint: fingerprint,
  deviceInfo: { manufacturer: 'Acme', model: 'Phone 9' },
  activatedAt: '2026-01-01T00:00:00.000Z',
  lastUsed: null,
  leaseExpiresAt: null,
  borrowedUntil: null,
  replacePendingAt: null,
});
const slot = {
  _id: 's1',
  deviceFingerprint: 'held-device-fingerprint-1',
  releasedAt: '2026-01-02T00:00:00.000Z',
  freesAt: '2026-01-03T00:00:00.000Z',
};
const key = {
  _id: 'k1',
  activations: [device('a1', 'first-device-fingerprint-1'), device('a2', 'second-device-fingerprint')],
  heldSlots: [slot],
} as unknown as LicenseKey;

describe('a key’s devices in the admin key details', () => {
  it('asks about one device at a time, and removes the one confirmed', async () => {
    const calls = mockFetch({
      'DELETE /api/admin/keys/k1/activations/a2': { body: { licenseKey: { ...key, activations: [key.activations[0]] } } },
    });
    const onChanged = vi.fn();
    render(<DeviceList licenseKey={key} canManage onChanged={onChanged} />, { wrapper: wrapperFor(newQueryClient()) });
    expect(screen.getAllByText('· Acme Phone 9')).toHaveLength(2);
    await userEvent.click(screen.getByRole('button', { name: 'Remove device first-device-fin…' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove device second-device-fi…' }));
    // Asking about the second device takes the question back from the first.
    expect(screen.getAllByRole('group', { name: 'Confirm device removal' })).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Remove device first-device-fin…' })).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Confirm removal' }));
    await waitFor(() => expect(onChanged).toHaveBeenCalledOnce());
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['DELETE /api/admin/keys/k1/activations/a2']);
  });

  it('offers no removal or release to a reseller', () => {
    render(
      <>
        <DeviceList licenseKey={key} canManage={false} onChanged={vi.fn()} />
        <HeldSlotList licenseKey={key} canManage={false} onChanged={vi.fn()} />
      </>,
      { wrapper: wrapperFor(newQueryClient()) },
    );
    expect(screen.getByRole('list', { name: 'Held slots' })).toBeTruthy();
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('releases a held slot after the confirmation', async () => {
    const calls = mockFetch({ 'DELETE /api/admin/keys/k1/held-slots/s1': { body: { licenseKey: { ...key, heldSlots: [] } } } });
    const onChanged = vi.fn();
    render(<HeldSlotList licenseKey={key} canManage onChanged={onChanged} />, { wrapper: wrapperFor(newQueryClient()) });
    await userEvent.click(screen.getByRole('button', { name: 'Release slot of held-device-fing… now' }));
    await userEvent.click(
      within(screen.getByRole('group', { name: 'Confirm slot release' })).getByRole('button', { name: 'Confirm release' }),
    );
    await waitFor(() => expect(onChanged).toHaveBeenCalledWith(expect.objectContaining({ heldSlots: [] })));
    expect(calls).toHaveLength(1);
  });
});

describe('a floating key’s seats in the admin key details', () => {
  it('shows the seats in use with their leases, and releases a seat after the confirmation', async () => {
    const soon = new Date(Date.now() + 10 * 60_000).toISOString();
    const floating = {
      ...key,
      maxActivations: 2,
      heldSlots: [],
      activations: [
        { ...device('a1', 'first-device-fingerprint-1'), leaseExpiresAt: soon, lastUsed: new Date().toISOString() },
        { ...device('a2', 'second-device-fingerprint'), leaseExpiresAt: '2026-01-01T00:01:00.000Z' },
      ],
    } as unknown as LicenseKey;
    const released = {
      ...floating,
      activations: [{ ...floating.activations[0], leaseExpiresAt: new Date().toISOString() }, floating.activations[1]],
    };
    const calls = mockFetch({ 'POST /api/admin/keys/k1/activations/a1/release': { body: { licenseKey: released } } });
    const onChanged = vi.fn();
    render(<DeviceList licenseKey={floating} canManage onChanged={onChanged} />, { wrapper: wrapperFor(newQueryClient()) });
    expect(screen.getByTestId('seats-in-use').textContent).toBe('Seats in use: 1 of 2');
    const seats = screen.getByRole('list', { name: 'Seats' });
    expect(within(seats).getAllByRole('listitem')[0].textContent).toMatch(/last heartbeat .* · seat held until/);
    expect(within(seats).getAllByRole('listitem')[1].textContent).toMatch(/seat free \(lease ended\)/);
    // Only a live seat can be released.
    expect(screen.queryByRole('button', { name: 'Release the seat of second-device-fi…' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Release the seat of first-device-fin…' }));
    await userEvent.click(screen.getByRole('button', { name: 'Confirm release' }));
    await waitFor(() => expect(onChanged).toHaveBeenCalledWith(released));
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(['POST /api/admin/keys/k1/activations/a1/release']);
  });
});
