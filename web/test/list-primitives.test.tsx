// The pieces every list screen shares (components/ui): a query's states with Try again, the table of
// columns, the secret shown once; and asyncHandler, which hands async work to an event prop.
import { useQuery } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { DataTable } from '../src/components/ui/data-table';
import { QueryState } from '../src/components/ui/query-state';
import { ShownOnceSecret } from '../src/components/ui/shown-once-secret';
import { asyncHandler } from '../src/lib/async-handler';
import { newQueryClient, wrapperFor } from './helpers';

type Row = { id: string; name: string };

function Rows({ load, keepDataOnError = false }: { load: () => Promise<Row[]>; keepDataOnError?: boolean }) {
  const query = useQuery({ queryKey: ['rows'], queryFn: load });
  return (
    <QueryState
      query={query}
      loading="Loading rows…"
      failed="Could not load the rows."
      isEmpty={(rows) => rows.length === 0}
      empty={<p>No rows yet.</p>}
      keepDataOnError={keepDataOnError}
    >
      {(rows) => (
        <DataTable label="Rows" rows={rows} rowKey={(r) => r.id} columns={[{ header: 'Name', label: 'Name', cell: (r) => r.name }]} />
      )}
    </QueryState>
  );
}

const renderRows = (load: () => Promise<Row[]>, keepDataOnError = false) => {
  const queryClient = newQueryClient();
  return { queryClient, ...render(<Rows load={load} keepDataOnError={keepDataOnError} />, { wrapper: wrapperFor(queryClient) }) };
};

describe('QueryState with a DataTable', () => {
  it('shows the spinner, then the rows under their column headers and phone labels', async () => {
    renderRows(() => Promise.resolve([{ id: '1', name: 'Ada' }]));
    expect(screen.getByRole('status').textContent).toContain('Loading rows…');
    const table = await screen.findByRole('table', { name: 'Rows' });
    expect(within(table).getByRole('columnheader').textContent).toContain('Name');
    const cell = within(table).getByRole('cell');
    expect(cell.textContent).toContain('Ada');
    expect(cell.getAttribute('data-label')).toBe('Name');
  });

  it('shows the empty state when the answer has no rows', async () => {
    renderRows(() => Promise.resolve([]));
    expect((await screen.findByText('No rows yet.')).tagName).toBe('P');
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('shows the failure with a Try again that loads again', async () => {
    const load = vi
      .fn<() => Promise<Row[]>>()
      .mockRejectedValueOnce(new Error('down'))
      .mockResolvedValue([{ id: '2', name: 'Grace' }]);
    renderRows(load);
    expect((await screen.findByRole('alert')).textContent).toContain('Could not load the rows.');
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect((await screen.findByRole('cell')).textContent).toContain('Grace');
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('shows a failed refetch as a failure, or keeps the rows on screen when asked to (the older admin lists)', async () => {
    for (const keep of [false, true]) {
      const load = vi
        .fn<() => Promise<Row[]>>()
        .mockResolvedValueOnce([{ id: '1', name: 'Ada' }])
        .mockRejectedValue(new Error('down'));
      const { queryClient, unmount } = renderRows(load, keep);
      expect((await screen.findByRole('cell')).textContent).toContain('Ada');
      await queryClient.refetchQueries({ queryKey: ['rows'] });
      if (keep) {
        expect(screen.getByRole('cell').textContent).toContain('Ada');
        expect(screen.queryByRole('alert')).toBeNull();
      } else {
        expect((await screen.findByRole('alert')).textContent).toContain('Could not load the rows.');
        expect(screen.queryByRole('cell')).toBeNull();
      }
      unmount();
    }
  });
});

describe('ShownOnceSecret', () => {
  it('shows the warning, the value by its name, a copy button, and says when it was saved', async () => {
    const onDone = vi.fn();
    render(
      <ShownOnceSecret value="whsec_abc" label="Signing secret" copyLabel="Copy secret" copiedMessage="Copied" onDone={onDone}>
        Copy it now.
      </ShownOnceSecret>,
      { wrapper: wrapperFor(newQueryClient()) },
    );
    expect(screen.getByRole('status').textContent).toContain('Copy it now.');
    expect(screen.getByLabelText('Signing secret').textContent).toContain('whsec_abc');
    expect(screen.getByRole('button', { name: 'Copy secret' }).tagName).toBe('BUTTON');
    await userEvent.click(screen.getByRole('button', { name: 'I have saved it' }));
    expect(onDone).toHaveBeenCalledOnce();
  });
});

describe('asyncHandler', () => {
  it('runs the async work with the event and returns nothing', async () => {
    const work = vi.fn((n: number) => Promise.resolve(n * 2));
    expect(asyncHandler(work)(21)).toBeUndefined();
    await waitFor(() => expect(work).toHaveBeenCalledWith(21));
  });

  it('logs a failure the handler did not catch instead of leaving it unhandled', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const failure = new Error('unexpected');
    asyncHandler(() => Promise.reject(failure))();
    await waitFor(() => expect(error).toHaveBeenCalledWith('Unexpected failure in an event handler', failure));
    error.mockRestore();
  });
});
