// The notices above every signed-in page (features/site-status/SiteNotices.tsx, issue 47): the
// low-balance warning counts credits at the exchange rate, and the verification notice can be put
// away for the session.
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { isLowBalance, UnverifiedNotice } from '../src/features/site-status/SiteNotices';
import { newQueryClient, wrapperFor } from './helpers';

const settings = { notifyLowBalance: true, lowBalanceThreshold: 10, usdToCreditRate: 10 };

describe('isLowBalance', () => {
  it('counts credits at the exchange rate with the USD balance', () => {
    expect(isLowBalance({ role: 'user', balance: 0, credits: 2_000 }, settings)).toBe(false);
    expect(isLowBalance({ role: 'user', balance: 0, credits: 99 }, settings)).toBe(true);
    expect(isLowBalance({ role: 'user', balance: 5, credits: 50 }, settings)).toBe(false);
    expect(isLowBalance({ role: 'reseller', balance: 4.99, credits: 50 }, settings)).toBe(true);
  });

  it('never warns an owner, nor anyone when the setting is off', () => {
    expect(isLowBalance({ role: 'owner', balance: 0, credits: 0 }, settings)).toBe(false);
    expect(isLowBalance({ role: 'user', balance: 0, credits: 0 }, { ...settings, notifyLowBalance: false })).toBe(false);
  });
});

describe('the verification notice', () => {
  it('is put away for the rest of the session', async () => {
    const wrapper = wrapperFor(newQueryClient());
    const first = render(<UnverifiedNotice email="ann@example.com" />, { wrapper });
    expect(screen.getByTestId('unverified-email').textContent).toContain('ann@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Hide this notice' }));
    expect(screen.queryByTestId('unverified-email')).toBeNull();
    first.unmount();
    // Another page of the same session: still away.
    render(<UnverifiedNotice email="ann@example.com" />, { wrapper });
    expect(screen.queryByTestId('unverified-email')).toBeNull();
  });
});
