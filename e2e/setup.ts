// A browser test gets one retry (vitest.config.ts): a page load that times out on a CI machine's
// two busy cores is not a failure of the product. A test that passed only on its retry is marked
// here, and `npm test` names it in its last lines (scripts/test.ts), so a flaky test is seen, not hidden.
// A failed attempt also keeps what the browser showed at that moment (e2e/evidence.ts), printed with it.
import { afterEach, inject } from 'vitest';
import { closeOpenContexts, describeOpenPages } from './evidence';

declare module 'vitest' {
  interface TaskMeta {
    /** The attempts before the one that finished. */
    retried?: number;
    /** What the browser showed when the (first) failed attempt failed. */
    browser?: string[];
  }
}

afterEach(async ({ task }) => {
  const retries = task.result?.retryCount ?? 0;
  if (retries > 0) task.meta.retried = retries;
  if (task.result?.state !== 'fail') return;
  task.meta.browser ??= await describeOpenPages(inject('baseURL'), inject('serverLog'));
  await closeOpenContexts();
});
