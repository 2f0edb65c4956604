// Every web test starts from an empty page, empty storage and the real fetch put back.
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeAll, vi } from 'vitest';
import { loadArea } from '../src/lib/i18n';

// findBy and waitFor give up after 1 s by default: too soon on two cores shared with the other suites.
configure({ asyncUtilTimeout: 5_000 });

// The app loads the signed-in screens' and the Admin Panel's messages with their routes; the tests
// render those screens on their own.
beforeAll(async () => {
  await Promise.all([loadArea('account'), loadArea('admin')]);
});

afterEach(() => {
  cleanup();
  localStorage.clear();
  sessionStorage.clear();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});
