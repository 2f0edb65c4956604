// My Keys' search (lib/debounce): the typed search is sent once typing pauses, from page 1; Clear
// Filters applies at once.
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { MyKeysPage } from '../src/features/my-keys/MyKeysPage';
import { mockFetch, newQueryClient, wrapperFor } from './helpers';

const NO_KEYS = { body: { keys: [], total: 0, page: 1, totalPages: 0 } };

describe('My Keys search', () => {
  it('searches once typing pauses, and Clear Filters shows every key again without waiting', async () => {
    const calls = mockFetch({ 'GET /api/users/my-keys': NO_KEYS });
    const Wrapper = wrapperFor(newQueryClient());
    render(
      <Wrapper>
        <MemoryRouter>
          <MyKeysPage />
        </MemoryRouter>
      </Wrapper>,
    );
    const searches = () => calls.filter((c) => c.url.pathname === '/api/users/my-keys').map((c) => c.url.searchParams.get('search'));
    expect(await screen.findByText('No license keys yet')).toBeTruthy();

    await userEvent.type(screen.getByLabelText('Search keys'), 'ada');
    // Typed faster than the pause: no search was sent per keystroke.
    expect(searches().some((s) => s && s !== 'ada')).toBe(false);
    expect(await screen.findByText('No keys match your filters')).toBeTruthy();
    expect(searches().at(-1)).toBe('ada');
    expect(calls.at(-1)!.url.searchParams.get('page')).toBe('1');

    // The empty state's own Clear Filters (the filter bar has one too).
    await userEvent.click(screen.getAllByRole('button', { name: 'Clear Filters' }).at(-1)!);
    await waitFor(() => expect(screen.getByText('No license keys yet')).toBeTruthy(), { timeout: 200 });
    expect(screen.getByLabelText<HTMLInputElement>('Search keys').value).toBe('');
  });
});
