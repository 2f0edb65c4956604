// A browser test gets one retry (vitest.config.ts): a page load that times out on a CI machine's
// two busy cores is not a failure of the product. A test that passed only on its retry is marked
// here, and `npm test` names it in its last lines (scripts/test.ts), so a flaky test is seen, not hidden.
import { afterEach } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** The attempts before the one that finished. */
    retried?: number;
  }
}

afterEach(({ task }) => {
  const retries = task.result?.retryCount ?? 0;
  if (retries > 0) task.meta.retried = retries;
});
