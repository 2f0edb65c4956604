// Buying: the price shown, the duration picked, and what a purchase refreshes through the query cache.
import { act, render, renderHook, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { dashboardKeys } from '../src/features/dashboard/query-keys';
import { myKeysKeys } from '../src/features/my-keys/query-keys';
import { useMyKeys } from '../src/features/my-keys/api';
import { DurationPicker } from '../src/components/purchase/DurationPicker';
import { PriceBreakdown } from '../src/components/purchase/PriceBreakdown';
import { productKeys } from '../src/lib/products';
import { usePurchase } from '../src/lib/purchase';
import { sessionKeys } from '../src/lib/session';
import { mockFetch, newQueryClient, wrapperFor } from './helpers';
import { type User } from '../../worker/modules/accounts/schemas/answers';
import { type Product } from '../../worker/modules/catalog/schemas';

const product = { _id: 'p1', name: 'Office', baseCreditCost: 100, creditsPerDay: 10, minDays: 3, maxDays: 90 } as Product;

describe('PriceBreakdown', () => {
  it('prices a key as base + days × per-day, against the buyer’s credits', () => {
    render(<PriceBreakdown product={product} days={7} credits={1000} />, { wrapper: wrapperFor(newQueryClient()) });
    expect(screen.getByText('Duration (7 days × 10)')).toBeTruthy();
    expect(screen.getByTestId('purchase-total').textContent).toBe('170 credits');
    expect(screen.getByTestId('credits-after').textContent).toBe('830 credits');
  });

  it('says how many credits are missing', () => {
    render(<PriceBreakdown product={{ ...product, baseCreditCost: 5000, creditsPerDay: 50 }} days={1} credits={4000} />, {
      wrapper: wrapperFor(newQueryClient()),
    });
    expect(screen.getByTestId('purchase-total').textContent).toBe('5,050 credits');
    expect(screen.getByTestId('credits-after').textContent).toBe('1,050 credits short');
  });
});

function Picker() {
  const [days, setDays] = useState(product.minDays);
  return (
    <>
      <DurationPicker product={product} days={days} onChange={setDays} />
      <output aria-label="Chosen">{days}</output>
    </>
  );
}

describe('DurationPicker', () => {
  const chosen = () => screen.getByLabelText('Chosen').textContent;

  it('takes a typed number in the product’s range at once', async () => {
    render(<Picker />, { wrapper: wrapperFor(newQueryClient()) });
    const box = screen.getByLabelText('Number of days');
    await userEvent.clear(box);
    await userEvent.type(box, '45');
    expect(chosen()).toBe('45');
  });

  it('clamps to the range and rounds when the box is left', async () => {
    render(<Picker />, { wrapper: wrapperFor(newQueryClient()) });
    const box = screen.getByLabelText('Number of days');
    await userEvent.clear(box);
    await userEvent.type(box, '500');
    // '5' and '50' were in range as they were typed; '500' is not, so 50 stands until the box is left.
    expect(chosen()).toBe('50');
    await userEvent.tab();
    expect(chosen()).toBe('90');
    expect(box).toHaveProperty('value', '90');
    await userEvent.clear(box);
    await userEvent.type(box, '1');
    await userEvent.tab();
    expect(chosen()).toBe('3');
    await userEvent.clear(box);
    await userEvent.type(box, '7.6');
    await userEvent.tab();
    expect(chosen()).toBe('8');
  });

  it('keeps the last duration when the box is left empty', async () => {
    render(<Picker />, { wrapper: wrapperFor(newQueryClient()) });
    const box = screen.getByLabelText('Number of days');
    await userEvent.clear(box);
    await userEvent.type(box, '12');
    await userEvent.clear(box);
    await userEvent.tab();
    expect(chosen()).toBe('12');
    expect(box).toHaveProperty('value', '12');
  });
});

describe('useMyKeys', () => {
  it('asks for the page and filters, with the trimmed search', async () => {
    const calls = mockFetch({ 'GET /api/users/my-keys': { body: { keys: [], totalPages: 2, total: 11 } } });
    const { result } = renderHook(() => useMyKeys({ page: 2, search: '  off ', status: 'used' }), {
      wrapper: wrapperFor(newQueryClient()),
    });
    await waitFor(() => expect(result.current.isSuccess).toBe(true));
    expect(Object.fromEntries(calls[0].url.searchParams)).toEqual({ page: '2', limit: '10', search: 'off', status: 'used' });
    expect(result.current.data?.total).toBe(11);
  });

  it('surfaces the server’s refusal as an error', async () => {
    mockFetch({ 'GET /api/users/my-keys': { status: 403, body: { message: 'Account deactivated', code: 'FORBIDDEN' } } });
    const { result } = renderHook(() => useMyKeys({ page: 1, search: '', status: '' }), { wrapper: wrapperFor(newQueryClient()) });
    await waitFor(() => expect(result.current.isError).toBe(true));
    expect(result.current.error?.message).toBe('Account deactivated');
  });
});

describe('usePurchase', () => {
  it('shows the new credits at once and invalidates My Keys, the profile, the dashboard and the catalogue', async () => {
    const calls = mockFetch({
      'POST /api/keys/purchase': { status: 201, body: { success: true, remainingCredits: 330, licenseKey: { key: 'OFF-1' } } },
    });
    const queryClient = newQueryClient();
    const cached = [myKeysKeys.list({ page: 1, search: '', status: '' }), sessionKeys.profile, dashboardKeys.stats, productKeys.all];
    for (const key of cached) queryClient.setQueryData(key, key === sessionKeys.profile ? { credits: 500 } : {});
    const unrelated = ['settings', 'public'];
    queryClient.setQueryData(unrelated, {});

    const { result } = renderHook(() => usePurchase(), { wrapper: wrapperFor(queryClient) });
    await act(() => result.current.mutateAsync({ productId: 'p1', duration: 7, idempotencyKey: 'k1' }));

    expect(calls[0].body).toEqual({ productId: 'p1', duration: 7 });
    expect(calls[0].headers['Idempotency-Key']).toBe('k1');
    expect(queryClient.getQueryData<User>(sessionKeys.profile)?.credits).toBe(330);
    for (const key of cached) expect(queryClient.getQueryState(key)?.isInvalidated, JSON.stringify(key)).toBe(true);
    expect(queryClient.getQueryState(unrelated)?.isInvalidated).toBe(false);
  });

  it('invalidates nothing when the purchase is refused', async () => {
    mockFetch({ 'POST /api/keys/purchase': { status: 402, body: { message: 'Insufficient credits', code: 'INSUFFICIENT_CREDITS' } } });
    const queryClient = newQueryClient();
    queryClient.setQueryData(myKeysKeys.all, {});
    const { result } = renderHook(() => usePurchase(), { wrapper: wrapperFor(queryClient) });
    await act(() => result.current.mutateAsync({ productId: 'p1', duration: 7, idempotencyKey: 'k2' }).catch(() => undefined));
    expect(queryClient.getQueryState(myKeysKeys.all)?.isInvalidated).toBe(false);
  });
});
