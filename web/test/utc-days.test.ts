// A statistics day is a UTC day (issue 47): shown in the reader's language, on UTC's calendar
// whatever the reader's time zone, with UTC said where the day stands alone.
import { afterEach, describe, expect, it } from 'vitest';
import { formatUtcDay, formatUtcDayShort } from '../src/lib/format';
import { switchLanguage } from '../src/lib/i18n';

// The Node process's time zone (the web project's DOM has no process types of its own).
declare const process: { env: Record<string, string | undefined> };
const zone = process.env.TZ;
afterEach(async () => {
  process.env.TZ = zone;
  await switchLanguage('en');
});

describe('a UTC day', () => {
  it('keeps its date in a time zone behind UTC, and says UTC when it stands alone', () => {
    // 2026-03-05T00:00Z is still the 4th in Los Angeles: the statistics' day is the 5th.
    process.env.TZ = 'America/Los_Angeles';
    expect(formatUtcDay('2026-03-05')).toBe('Mar 5, 2026 UTC');
    expect(formatUtcDayShort('2026-03-05')).toBe('Mar 5');
  });

  it('is written in the language in force', async () => {
    await switchLanguage('ar');
    expect(formatUtcDayShort('2026-03-05')).toMatch(/مارس/);
    expect(formatUtcDay('2026-03-05')).toMatch(/مارس.*UTC$/);
  });
});
