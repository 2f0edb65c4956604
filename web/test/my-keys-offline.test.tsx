// My Keys' air-gapped devices (issue 31): the states the browser test does not walk. A file that is
// not JSON is refused before anything is sent, a refusal the server signed is shown with its code,
// and the server's own error is shown; no download is offered for any of them.
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OfflineDevices } from '../src/features/my-keys/OfflineDevices';
import { mockFetch, newQueryClient, wrapperFor } from './helpers';

afterEach(() => {
  vi.unstubAllGlobals();
});

const request = { type: 'keypanel.offline-activation-request', key: 'APP-1', deviceFingerprint: 'lab-0001', nonce: 'n'.repeat(32) };
const jsonFile = (name: string, text: string) => new File([text], name, { type: 'application/json' });

describe('air-gapped devices in My Keys', () => {
  it('refuses a file that is not JSON, and shows a signed refusal or an error without a download', async () => {
    const answer = JSON.stringify({
      valid: false,
      code: 'DEVICE_LIMIT_REACHED',
      detail: 'All 1 device slot is taken',
      license: { key: 'APP-1' },
    });
    let status = 200;
    const calls = mockFetch({
      'POST /api/users/my-keys/offline-activations': () =>
        status === 200
          ? { body: { type: 'keypanel.offline-activation-response', answer, signature: 'c2ln' } }
          : { status, body: { code: 'NOT_FOUND', message: 'License key not found' } },
    });
    render(<OfflineDevices />, { wrapper: wrapperFor(newQueryClient()) });
    const create = screen.getByRole<HTMLButtonElement>('button', { name: 'Create response file' });
    expect(create.disabled).toBe(true);

    await userEvent.upload(screen.getByLabelText('Activation request file'), jsonFile('request.json', 'not json'));
    await userEvent.click(create);
    expect((await screen.findByRole('alert')).textContent).toBe('request.json is not a JSON file written by the licensing SDK.');
    expect(calls).toHaveLength(0);

    await userEvent.upload(screen.getByLabelText('Activation request file'), jsonFile('request.json', JSON.stringify(request)));
    await userEvent.click(create);
    expect((await screen.findByText(/^Not activated/)).textContent).toBe(
      'Not activated (DEVICE_LIMIT_REACHED): All 1 device slot is taken',
    );
    expect(calls.map((c) => c.body)).toEqual([request]);
    expect(screen.queryByRole('button', { name: 'Download again' })).toBeNull();

    status = 404;
    await userEvent.click(create);
    expect((await screen.findByText('License key not found')).getAttribute('role')).toBe('alert');
  });
});
