// Issue 28, point 6: the deliveries view shows every attempt of a delivery, not only the last one:
// when, the status code, how long, and the error or the answer, behind a disclosure the keyboard reaches.
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../worker/platform/api-client';
import { DeliveryAttempts } from '../src/features/admin/webhooks/DeliveryAttempts';
import { formatDateTime } from '../src/lib/format';

const longAnswer = `<html>${'x'.repeat(300)}</html>`;

type WebhookDelivery = Schemas['WebhookDelivery'];

const delivery = (fields: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: 'msg_0123456789abcdef01234567',
  eventId: 'evt_0123456789abcdef01234567',
  event: 'key.purchased',
  status: 'delivered',
  attempts: 3,
  responseStatus: 200,
  responseBody: 'ok',
  error: null,
  durationMs: 12,
  lastAttemptAt: '2026-05-01T10:05:05.000Z',
  nextAttemptAt: null,
  createdAt: '2026-05-01T10:00:00.000Z',
  attemptLog: [
    {
      attempt: 1,
      startedAt: '2026-05-01T10:00:00.000Z',
      responseStatus: null,
      durationMs: 10000,
      responseBody: null,
      error: 'No response within 10 seconds',
    },
    { attempt: 2, startedAt: '2026-05-01T10:00:05.000Z', responseStatus: 500, durationMs: 31, responseBody: longAnswer, error: null },
    { attempt: 3, startedAt: '2026-05-01T10:05:05.000Z', responseStatus: 200, durationMs: 12, responseBody: 'ok', error: null },
  ],
  ...fields,
});

describe('a delivery’s attempts', () => {
  it('opens onto each attempt, oldest first: time, status, duration, and the error or the answer', async () => {
    const user = userEvent.setup();
    const { container } = render(<DeliveryAttempts delivery={delivery()} />);
    const disclosure = container.querySelector('details')!;
    expect(disclosure.open).toBe(false);
    const summary = screen.getByText('3').closest('summary')!;
    expect(summary.textContent).toBe('3 attempts');

    // The keyboard reaches it (Enter opening it is the browser's own: e2e/webhooks.test.ts presses it).
    await user.tab();
    expect(document.activeElement).toBe(summary);
    await user.click(summary);
    expect(disclosure.open).toBe(true);

    const list = screen.getByRole('list', { name: 'Attempts of key.purchased msg_0123456789abcdef01234567' });
    const items = within(list).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    const [timedOut, failed, delivered] = items;
    expect(timedOut.textContent).toContain('Attempt 1');
    expect(timedOut.textContent).toContain('No answer');
    expect(timedOut.textContent).toContain('10,000 ms');
    expect(timedOut.textContent).toContain('No response within 10 seconds');
    expect(timedOut.querySelector('time')!.getAttribute('dateTime')).toBe('2026-05-01T10:00:00.000Z');
    expect(timedOut.querySelector('time')!.textContent).toBe(formatDateTime('2026-05-01T10:00:00.000Z'));

    expect(failed.textContent).toContain('Attempt 2');
    expect(failed.textContent).toContain('HTTP 500');
    expect(failed.textContent).toContain('31 ms');
    // A long answer shows its start; the whole kept KB is one more disclosure away.
    const answer = within(failed).getByText('Whole answer').closest('details')!;
    expect(answer.querySelector('summary code')!.textContent).toBe(`${longAnswer.slice(0, 120)}…`);
    expect(answer.open).toBe(false);
    await user.click(within(failed).getByText('Whole answer'));
    expect(answer.open).toBe(true);
    expect(answer.querySelector('pre')!.textContent).toBe(longAnswer);

    expect(delivered.textContent).toContain('Attempt 3');
    expect(delivered.textContent).toContain('HTTP 200');
    expect(delivered.textContent).toContain('12 ms');
    expect(within(delivered).getByText('ok').tagName).toBe('CODE');
  });

  it('says when a pending delivery tries again, and how many older attempts were not kept', () => {
    const pending = delivery({
      status: 'pending',
      attempts: 20,
      nextAttemptAt: '2026-05-01T10:35:05.000Z',
      attemptLog: delivery().attemptLog.map((a, i) => ({ ...a, attempt: 18 + i })),
    });
    render(<DeliveryAttempts delivery={pending} />);
    expect(screen.getByText('17 earlier attempts not kept')).toBeTruthy();
    expect(screen.getByText(`Next attempt ${formatDateTime('2026-05-01T10:35:05.000Z')}`)).toBeTruthy();
    expect(screen.getAllByRole('listitem').map((li) => li.querySelector('strong')!.textContent)).toEqual([
      'Attempt 18',
      'Attempt 19',
      'Attempt 20',
    ]);
  });

  it('has nothing to open before the first attempt', () => {
    const { container } = render(
      <DeliveryAttempts
        delivery={delivery({ status: 'pending', attempts: 0, attemptLog: [], responseStatus: null, responseBody: null })}
      />,
    );
    expect(container.querySelector('details')).toBeNull();
    expect(container.textContent).toBe('0Not sent yet');
  });
});
