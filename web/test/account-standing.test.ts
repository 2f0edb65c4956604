// What /add-balance tells a customer stands in the way (issue 33): an unverified address, an amount
// owed after a reversal, and a first top-up held until a time.
import { describe, expect, it } from 'vitest';
import { standingNotices } from '../src/features/payments/AddBalancePage';
import { formatDateTime } from '../src/lib/format';

const options = { enabled: true, minUsd: 5, maxUsd: 500, quickAmounts: [10], emailVerified: true, owedUsd: 0, heldUsd: 0, heldUntil: null };

describe('standingNotices', () => {
  it('says nothing for an account in good standing', () => {
    expect(standingNotices(options)).toEqual([]);
  });

  it('says why card top-ups wait for an unverified address', () => {
    expect(standingNotices({ ...options, emailVerified: false })).toEqual([
      { tone: 'warning', text: expect.stringContaining('Verify your email address') as unknown },
    ]);
  });

  it('shows the amount owed and the hold with the time it frees', () => {
    const until = '2030-01-02T03:04:05.000Z';
    const notices = standingNotices({ ...options, owedUsd: 500, heldUsd: 25, heldUntil: until });
    expect(notices.map((n) => n.tone)).toEqual(['error', 'info']);
    expect(notices[0].text).toContain('$500.00');
    expect(notices[1].text).toContain('$25.00');
    // The time in the reader's language and time zone, as lib/format writes it.
    expect(notices[1].text).toContain(formatDateTime(until));
  });
});
