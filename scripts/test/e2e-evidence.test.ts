import { describe, expect, it } from 'vitest';
import { evidenceLines } from '../../e2e/evidence';

describe("what a failed browser test's report says the browser showed", () => {
  const origin = 'http://127.0.0.1:4321';

  it("gives each page's address and text, the requests still waiting and the last events, without the test server's origin", () => {
    const lines = evidenceLines(
      [
        {
          pages: [{ url: `${origin}/login?next=%2Fadmin`, text: 'KeyPanel\n\n  Sign in\n Email  ' }],
          waiting: [{ method: 'GET', url: `${origin}/api/users/profile`, ms: 19_540 }],
          events: [
            { agoMs: 20_100, text: `GET ${origin}/api/admin/stats: 401` },
            { agoMs: 300, text: 'console error: Failed to load resource' },
          ],
        },
        { pages: [{ url: 'about:blank', text: '' }], waiting: [], events: [] },
      ],
      origin,
    );
    expect(lines).toEqual([
      'page /login?next=%2Fadmin showed: "KeyPanel Sign in Email"',
      'still waiting after 19.5 s: GET /api/users/profile',
      '20.1 s before: GET /api/admin/stats: 401',
      '0.3 s before: console error: Failed to load resource',
      'page about:blank showed: "(nothing)"',
    ]);
  });

  it("cuts a long page's text, and says nothing when no page was open", () => {
    const [line] = evidenceLines([{ pages: [{ url: `${origin}/`, text: 'word '.repeat(100) }], waiting: [], events: [] }], origin);
    expect(line).toMatch(/^page \/ showed: "(word ){40}…"$/);
    expect(evidenceLines([], origin)).toEqual([]);
  });
});
