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

  it("says of each waiting request whether the server's log has its answer, then the log's last troubles", () => {
    const waiting = [
      { method: 'GET', url: `${origin}/assets/query-keys-D1.js`, ms: 45_000 },
      { method: 'GET', url: `${origin}/api/users/profile`, ms: 44_000 },
    ];
    const log = [
      '\u001B[32m[wrangler:info]\u001B[39m GET /assets/query-keys-D1.js 200 OK (4ms)',
      '[wrangler:info] GET /api/users/profile-picture 404 Not Found (2ms)',
      '[wrangler:info] Reloading local server...',
      '✘ [ERROR] Uncaught TypeError: x is not a function',
      '[wrangler:info] GET /login 200 OK (3ms)',
    ].join('\n');
    expect(evidenceLines([{ pages: [], waiting, events: [] }], origin, log)).toEqual([
      'still waiting after 45.0 s: GET /assets/query-keys-D1.js; the server logged "[wrangler:info] GET /assets/query-keys-D1.js 200 OK (4ms)"',
      'still waiting after 44.0 s: GET /api/users/profile; the server logged no answer to it',
      "the server's log: [wrangler:info] Reloading local server...",
      "the server's log: ✘ [ERROR] Uncaught TypeError: x is not a function",
    ]);
    // Without a server log, the waiting requests alone; with one but nothing open, nothing.
    expect(evidenceLines([{ pages: [], waiting, events: [] }], origin)).toEqual([
      'still waiting after 45.0 s: GET /assets/query-keys-D1.js',
      'still waiting after 44.0 s: GET /api/users/profile',
    ]);
    expect(evidenceLines([], origin, log)).toEqual([]);
  });

  it("cuts a long page's text, and says nothing when no page was open", () => {
    const [line] = evidenceLines([{ pages: [{ url: `${origin}/`, text: 'word '.repeat(100) }], waiting: [], events: [] }], origin);
    expect(line).toMatch(/^page \/ showed: "(word ){40}…"$/);
    expect(evidenceLines([], origin)).toEqual([]);
  });
});
