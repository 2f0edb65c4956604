// `npm test -- <module>` runs that module's tests alone; anything else goes to vitest unchanged.
import { describe, expect, it } from 'vitest';
import { MODULES, moduleTests, vitestArgs, vitestRuns } from '../test';

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
