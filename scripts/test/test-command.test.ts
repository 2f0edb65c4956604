// `npm test -- <module>` runs that module's tests alone; anything else goes to vitest unchanged.
import { describe, expect, it } from 'vitest';
import { MODULES, moduleTests, recap, vitestArgs, vitestRuns } from '../test';

describe('npm test', () => {
  it('runs everything with no arguments: the browser tests beside the rest', () => {
    expect(vitestArgs([])).toEqual(['run']);
    expect(vitestRuns([])).toEqual([
      ['run', '--project', '!e2e', '--maxWorkers', '3'],
      ['run', '--project', 'e2e'],
    ]);
    expect(vitestRuns(['licensing'])).toEqual([['run', '--project', 'worker', 'worker/modules/licensing/test']]);
  });

  it("runs one module's tests by its name, keeping vitest's options after it", () => {
    expect(vitestArgs(['licensing'])).toEqual(['run', '--project', 'worker', 'worker/modules/licensing/test']);
    expect(vitestArgs(['keys', '-t', 'revokes'])).toEqual(['run', '--project', 'worker', 'worker/modules/keys/test', '-t', 'revokes']);
    expect(vitestArgs(['platform'])).toEqual(['run', '--project', 'worker', 'worker/platform/test']);
  });

  it('knows every module that has tests, and passes anything else to vitest', () => {
    expect(MODULES).toEqual(expect.arrayContaining(['accounts', 'billing', 'keys', 'licensing', 'webhooks']));
    expect(moduleTests('no-such-module')).toBeNull();
    expect(vitestArgs(['--project', 'cli'])).toEqual(['run', '--project', 'cli']);
    expect(vitestArgs(['worker/test/fuzz.test.ts'])).toEqual(['run', 'worker/test/fuzz.test.ts']);
  });
});

describe('the recap printed last', () => {
  const report = {
    testResults: [
      { name: `${process.cwd()}/e2e/a.test.ts`, status: 'passed', assertionResults: [{ fullName: 'works', status: 'passed' }] },
      {
        name: `${process.cwd()}/e2e/b.test.ts`,
        status: 'failed',
        assertionResults: [
          {
            fullName: 'signs in',
            status: 'failed',
            failureMessages: ['\u001B[31mTimeoutError\u001B[39m: waited 45000ms\n    at x (b.ts:1)\n'],
          },
          { fullName: 'signs out', status: 'passed' },
        ],
      },
      { name: `${process.cwd()}/e2e/c.test.ts`, status: 'failed', message: 'Hook timed out', assertionResults: [] },
    ],
  };

  it('names each failed test and its first error lines, and a file that failed with no test', () => {
    const lines = recap('e2e', 1, report, '');
    expect(lines[0]).toBe('e2e: FAILED (exit 1)');
    expect(lines).toContain('  \u2717 e2e/b.test.ts \u203A signs in');
    expect(lines).toContain('      TimeoutError: waited 45000ms');
    expect(lines).toContain('  \u2717 e2e/c.test.ts');
    expect(lines).toContain('      Hook timed out');
    expect(lines.join('\n')).not.toContain('signs out');
    expect(lines.join('\n')).not.toContain('a.test.ts');
  });

  it('prints the end of the output when a failed run left no failed test in its report', () => {
    const lines = recap('e2e', 1, null, 'starting\nError: the local server did not start\n');
    expect(lines).toContain('      Error: the local server did not start');
    expect(recap('e2e', 0, null, '')).toEqual(['e2e: passed']);
  });

  it('names a test that passed only on its retry, in a run that passed, with what its failed attempt said', () => {
    const flaky = {
      testResults: [
        {
          name: `${process.cwd()}/e2e/d.test.ts`,
          status: 'passed',
          assertionResults: [
            {
              fullName: 'loads',
              status: 'passed',
              // As vitest's JSON reporter keeps a retried test's failed attempt beside its pass.
              failureMessages: [
                'TimeoutError: page.goto: Timeout 45000ms exceeded.\nCall log:\n  - navigating to "/login"\n    at e2e/d.test.ts:9:5\n    at more',
              ],
              meta: { retried: 1 },
            },
            { fullName: 'steady', status: 'passed', meta: {} },
          ],
        },
      ],
    };
    expect(recap('e2e', 0, flaky, '')).toEqual([
      'e2e: passed',
      '  \u21BB e2e/d.test.ts \u203A loads: passed on retry 1 (flaky: look into it)',
      '      TimeoutError: page.goto: Timeout 45000ms exceeded.',
      '      Call log:',
      '        - navigating to "/login"',
      '          at e2e/d.test.ts:9:5',
    ]);
  });

  it('adds what the browser showed when the attempt failed, for a retried test and a failed one', () => {
    const browser = ['page /admin showed: "Sign in"', 'still waiting after 19.5 s: GET /api/users/profile'];
    const test = { fullName: 'opens', failureMessages: ['Error: no link'], meta: { retried: 1, browser } };
    const report = (status: string) => ({
      testResults: [{ name: `${process.cwd()}/e2e/e.test.ts`, status, assertionResults: [{ ...test, status }] }],
    });
    const shown = [
      '      Error: no link',
      '      what the browser showed:',
      '        page /admin showed: "Sign in"',
      '        still waiting after 19.5 s: GET /api/users/profile',
    ];
    expect(recap('e2e', 0, report('passed'), '').slice(2)).toEqual(shown);
    expect(recap('e2e', 1, report('failed'), '').slice(2, 6)).toEqual(shown);
  });
});
