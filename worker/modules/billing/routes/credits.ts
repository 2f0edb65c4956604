// /api/credits: the exchange rate, and exchanging USD for credits.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../../platform/context';
import { EXCHANGE_STATUS, exchangeUsdForCredits } from '../exchange';
import { idempotencyClaim } from '../../../platform/idempotency';
import { jsonBody } from '../../../platform/validate';
import { type ExchangeRateResponse, exchangeRateResponseSchema, exchangeResponseSchema, exchangeSchema } from '../schemas/exchange';
import { routeOperations } from '../../accounts';
import { getSettings } from '../../settings';

const op = routeOperations({ tag: 'Credits', access: 'user' });

export const creditsRoutes = new Hono<SignedInEnv>()
  .get('/exchange-rate', op('getExchangeRate', 'Credits per USD', { 200: exchangeRateResponseSchema }), async (c) => {
    const { usdToCreditRate } = await getSettings(c.env.KV);
    return c.json({ rate: usdToCreditRate } satisfies ExchangeRateResponse, 200);
  })
  .post(
    '/exchange',
    op(
      'exchangeCredits',
      'Exchange USD balance for credits',
      { 200: exchangeResponseSchema },
      { errors: [400, 402, 409], idempotent: true },
    ),
    jsonBody(exchangeSchema),
    async (c) => {
      const { usdAmount: cents, creditsToAdd } = c.req.valid('json');
      const me = c.var.caller.id;
      const settings = await getSettings(c.env.KV);
      const rate = settings.usdToCreditRate;
      const result = await exchangeUsdForCredits(c.var.db, {
        userId: me,
        cents,
        rate,
        promisedCredits: creditsToAdd,
        idempotency: idempotencyClaim('exchange', me, c.req.header('idempotency-key'), String(cents)),
        lowBalanceBelowCents:
          settings.emailNotificationsEnabled && settings.notifyLowBalance ? Math.round(settings.lowBalanceThreshold * 100) : undefined,
      });
      if (result.replayed) c.header('Idempotent-Replayed', 'true');
      return c.json(result.body, EXCHANGE_STATUS);
    },
  );
