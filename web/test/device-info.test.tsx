// Issue 35, point 1: deviceInfo is what licensed software sent (cleaned at the edge since issue 42,
// but older rows may hold anything); the screens show its control and bidirectional characters as
// visible escapes, never as they are.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { DeviceList } from '../src/features/my-keys/DeviceList';
import { mockFetch, newQueryClient, wrapperFor } from './helpers';
import { type LicenseKey } from '../../worker/modules/keys/schemas/answers';

const key = {
  _id: 'k1',
  activations: [
    {
      _id: 'a1',
      deviceFingerprint: 'device-fingerprint-1',
      deviceInfo: { manufacturer: 'Acme\u0000\u001b[41m', model: 'X1\u202Eexe.txt' },
      activatedAt: new Date().toISOString(),
      lastUsed: null,
      leaseExpiresAt: null,
      borrowedUntil: null,
      replacePendingAt: null,
    },
  ],
  heldSlots: [],
} as unknown as LicenseKey;

describe('a device in My Keys', () => {
  it('shows what its software sent with control and bidi characters escaped', () => {
    // The key's swap budget, which the list asks for beside the devices.
    mockFetch({ 'GET /api/users/my-keys/k1/swaps': { body: { swapLimit: null, swapWindowDays: 30, swapsLeft: null, nextSwapAt: null } } });
    const { container } = render(<DeviceList licenseKey={key} />, { wrapper: wrapperFor(newQueryClient()) });
    expect(screen.getByText('Acme\\x00\\x1b[41m X1\\u202eexe.txt')).toBeTruthy();
    expect(container.textContent).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});
