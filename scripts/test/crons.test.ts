// wrangler.toml's cron triggers are the two worker/scheduled.ts tells apart: a cron it does not know
// would run every job on every firing (runCron's hand-made case), the housekeeping every minute.
import path from 'node:path';
import { expect, it } from 'vitest';
import { unstable_readConfig } from 'wrangler';
import { HOUSEKEEPING_CRON, KEY_JOBS_CRON } from '../../worker/platform/crons';
import { ROOT } from '../local';

it("wrangler.toml's crons are the key jobs' and the housekeeping's", () => {
  const config = unstable_readConfig({ config: path.join(ROOT, 'wrangler.toml') }) as unknown as { triggers: { crons?: string[] } };
  expect(config.triggers.crons).toEqual([KEY_JOBS_CRON, HOUSEKEEPING_CRON]);
});
