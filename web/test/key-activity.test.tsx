// A key's activity (the lines a history answers, paged, with its loading, empty and error states)
// and the owner's data export (the query it sends, the file it saves under the server's name).
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Schemas } from '../../worker/platform/api-client';
import { KeyHistory } from '../src/components/KeyHistory';
import { DataExportSection } from '../src/features/admin/settings/DataExportSection';
import { fileNameOf } from '../src/lib/download';
import { loadMyKeyHistory } from '../src/features/my-keys/api';
import { mockFetch, newQueryClient, wrapperFor } from './helpers';

type KeyHistoryEvent = Schemas['KeyHistoryEvent'];

const line = (fields: Partial<KeyHistoryEvent>): KeyHistoryEvent => ({
  _id: Math.random().toString(16).slice(2),
  at: '2026-05-01T10:00:00.000Z',
  kind: 'purchased',
  device: null,
  deviceName: null,
  by: null,
  from: null,
  to: null,
  reason: null,
  devicesFreed: null,
  price: null,
  day: null,
  validations: null,
  days: null,
  expiresAt: null,
  ...fields,
});

const KEY_ID = '0123456789abcdef01234567';
const PATH = `/api/users/my-keys/${KEY_ID}/history`;

function renderHistory() {
  const Wrapper = wrapperFor(newQueryClient());
  return render(
    <Wrapper>
      <KeyHistory queryKey={['history', KEY_ID]} load={loadMyKeyHistory(KEY_ID)} />
    </Wrapper>,
  );
}

describe("a key's activity", () => {
  it('lists each kind of line in words, under its heading, and pages', async () => {
    const events = [
      line({ kind: 'validated', device: 'laptop-fp', day: '2026-05-01', validations: 3 }),
      line({ kind: 'device_removed', device: 'phone-fp', by: 'owner' }),
      line({ kind: 'transferred', from: 'ann', to: 'bob' }),
      line({ kind: 'regenerated', reason: 'Leaked', devicesFreed: 2 }),
      line({ kind: 'activated', device: 'laptop-fp', deviceName: 'Work laptop' }),
      line({ kind: 'purchased', price: 150 }),
    ];
    const calls = mockFetch({
      [`GET ${PATH}`]: ({ url }) =>
        url.searchParams.get('page') === '2'
          ? { body: { events: [line({ kind: 'created' })], total: 7, totalPages: 2 } }
          : { body: { events, total: 7, totalPages: 2 } },
    });
    renderHistory();
    const region = await screen.findByRole('region', { name: 'Activity' });
    const items = await within(region).findAllByRole('listitem');
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringContaining('Validatedlaptop-fp: 3 times on'),
      expect.stringContaining('Device removedphone-fp, by the shop'),
      expect.stringContaining('TransferredFrom ann to bob'),
      expect.stringContaining('New key valueLeaked · 2 devices freed'),
      expect.stringContaining('Device activatedWork laptop (laptop-fp)'),
      expect.stringContaining('Purchased150 credits'),
    ]);
    expect(items[0].querySelector('time')!.getAttribute('dateTime')).toBe('2026-05-01T10:00:00.000Z');
    await userEvent.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() =>
      expect(
        within(region)
          .getAllByRole('listitem')
          .map((i) => i.textContent),
      ).toEqual([expect.stringContaining('Created')]),
    );
    expect(calls.map((c) => c.url.searchParams.get('page'))).toEqual(['1', '2']);
  });

  it('says when nothing has happened yet, and offers to try again after a failure', async () => {
    let fail = true;
    mockFetch({
      [`GET ${PATH}`]: () =>
        fail ? { status: 500, body: { message: 'Down', code: 'INTERNAL_ERROR' } } : { body: { events: [], total: 0, totalPages: 1 } },
    });
    renderHistory();
    expect(await screen.findByRole('alert')).toHaveProperty('textContent', expect.stringContaining("Could not load the key's activity."));
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Nothing has happened to this key yet.')).toBeTruthy();
  });
});

describe("the owner's data export", () => {
  it('asks for one table, its format and dates, and saves the file under the name the server gives', async () => {
    const saved: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:export', revokeObjectURL: () => {} }));
    const calls = mockFetch({
      'GET /api/admin/export': {
        body: 'id,kind\n',
        headers: { 'content-disposition': 'attachment; filename="keypanel-ledger-2026-05-01.csv"' },
      },
    });
    render(<DataExportSection />);
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Format'), 'csv');
    // A CSV file holds one table: nothing is sent until one is chosen.
    expect(screen.getByText('A CSV export holds one table: choose it')).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Download export' }).disabled).toBe(true);
    await user.selectOptions(screen.getByLabelText('Table'), 'ledger');
    await user.type(screen.getByLabelText('From'), '2026-04-01');
    await user.type(screen.getByLabelText('Before'), '2026-05-01');
    await user.click(screen.getByRole('button', { name: 'Download export' }));
    await waitFor(() => expect(saved).toEqual(['keypanel-ledger-2026-05-01.csv']));
    expect(Object.fromEntries(calls[0].url.searchParams)).toEqual({ format: 'csv', table: 'ledger', from: '2026-04-01', to: '2026-05-01' });
  });

  it('reads the file name from content-disposition, or falls back', () => {
    expect(fileNameOf('attachment; filename="keypanel-shop-2026-05-01.jsonl"', 'x')).toBe('keypanel-shop-2026-05-01.jsonl');
    expect(fileNameOf('attachment; filename="../../evil.sh"', 'x')).toBe('.._.._evil.sh');
    expect(fileNameOf(null, 'keypanel-my-data.jsonl')).toBe('keypanel-my-data.jsonl');
  });
});
