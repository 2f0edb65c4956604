// A key bought for a customer: a reseller pays with their own credits, the owner charges the
// customer (or, with --free, nobody).
import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { MAX_DURATION_DAYS } from '../../worker/modules/catalog/schemas';
import { contextOf } from '../lib/context';
import { findProduct, findUserId } from '../lib/lookup';
import { printRecord, success } from '../lib/output';
import { parseWith, wholeNumber } from '../lib/validate';
import { purchaseForUserSchema } from '../../worker/modules/resellers/schemas';

export function registerPurchaseCommand(program: Command) {
  program
    .command('purchase')
    .description('Buy a key for a user (reseller: paid with your credits; owner: charged to the user, or free)')
    .requiredOption('--user <user>', 'the customer: id, email or username')
    .requiredOption('--product <id|keyTag>', 'the product, by id or key tag')
    .requiredOption('--days <n>', "duration in days, within the product's range", wholeNumber('--days', 1, MAX_DURATION_DAYS))
    .option('--free', 'owner only: nobody is charged (bypass the balance check)', false)
    .addHelpText(
      'after',
      `
The request carries an Idempotency-Key, so a retried command never buys twice.

Examples:
  $ keypanel purchase --user alice@example.com --product APP --days 30
  $ keypanel purchase --user bob --product 6650f1c2a1b2c3d4e5f60718 --days 365 --free --format json
`,
    )
    .action(async (options: { user: string; product: string; days: number; free: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const body = parseWith(purchaseForUserSchema, { duration: options.days, bypassBalance: options.free });
      const api = ctx.api();
      const [user, product] = await Promise.all([findUserId(api, options.user), findProduct(api, options.product)]);
      const answer = await api.post(`/api/admin/users/${user._id}/purchase/${product._id}`, body, {
        'idempotency-key': randomUUID(),
      });
      const receipt = answer.licenseKey;
      await printRecord(
        ctx.format,
        [
          ['key', receipt.key],
          ['id', receipt._id],
          ['product', receipt.product],
          ['user', receipt.purchasedBy.username],
          ['duration', receipt.duration],
          ['expiryDate', receipt.expiryDate],
          ['cost', receipt.cost],
          ['yourCredits', answer.resellerCredits],
          ['payerCredits', answer.remainingCredits],
        ],
        answer,
      );
      success(answer.message);
    });
}
