// The latest time the server has vouched for: every verified answer's signed `ts` and every verified
// token's signed issue time move it forward, never back. A device whose clock reads earlier than it
// (beyond a small skew) has had its clock wound back, and no offline token or response is believed
// until it is set right; an offline token's expiry (its signed issue time plus its life) is checked
// against whichever is later, the device's clock or this time, so winding the clock back never
// lengthens a token's life. Kept in the app's store beside the tokens.
import type { TokenStore } from './store.js';

/** How far behind the trusted time a device's clock may read (clocks drift; Workers' differ slightly). */
export const CLOCK_SKEW_MS = 5 * 60 * 1000;
const TRUSTED_TIME_ID = 'keypanel:trusted-time';

export type ClockReading = { behind: false; now: number } | { behind: true; now: number; trusted: number };

export function trustedClock(store: TokenStore, clock: () => number) {
  async function latest(): Promise<number> {
    const stored = Number(await store.get(TRUSTED_TIME_ID));
    return Number.isFinite(stored) && stored > 0 ? stored : 0;
  }
  return {
    latest,
    /** Records a moment the server signed (ms). */
    async see(...moments: Array<number | null | undefined>) {
      const at = Math.max(0, ...moments.filter((m): m is number => typeof m === 'number' && Number.isFinite(m)));
      if (at > (await latest())) await store.set(TRUSTED_TIME_ID, String(at));
    },
    /** The time to check offline tokens against, or that the device's clock is behind the trusted time. */
    async read(): Promise<ClockReading> {
      const now = clock();
      const trusted = await latest();
      if (now < trusted - CLOCK_SKEW_MS) return { behind: true, now, trusted };
      return { behind: false, now: Math.max(now, trusted) };
    },
  };
}

export type TrustedClock = ReturnType<typeof trustedClock>;

export const clockBehindDetail = (reading: { now: number; trusted: number }) =>
  `This device's clock (${new Date(reading.now).toISOString()}) is behind a time the licensing server signed (${new Date(reading.trusted).toISOString()}): set the clock right`;
