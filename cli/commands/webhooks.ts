// Outbound webhooks (owner): the endpoints, a test event, and each endpoint's deliveries with their attempts.
import type { Command } from 'commander';
import type { Schemas } from '../../worker/platform/api-client';
import { createWebhookSchema, WEBHOOK_EVENT_TYPES } from '../../worker/modules/webhooks/schemas';
import { contextOf } from '../lib/context';
import { UsageError } from '../lib/errors';
import { notice, printRecord, rowWriter, shortDate, success, type Column } from '../lib/output';
import { withStepUp } from '../lib/prompts';
import { parseWith, wholeNumber } from '../lib/validate';

const ENDPOINT_ID = /^[0-9a-f]{24}$/;

const endpointColumns: Column<Schemas['WebhookEndpoint']>[] = [
  { header: 'id', value: (e) => e.id, width: 24 },
  { header: 'url', value: (e) => e.url, width: 40 },
  { header: 'events', value: (e) => e.events.join(' '), width: 30 },
  { header: 'enabled', value: (e) => e.enabled, width: 7, colour: (v) => (v === false ? 'red' : undefined) },
  { header: 'delivered24h', value: (e) => e.health.delivered24h, width: 12, align: 'right' },
  { header: 'failed24h', value: (e) => e.health.failed24h, width: 9, align: 'right', colour: (v) => (Number(v) > 0 ? 'red' : undefined) },
  { header: 'pending', value: (e) => e.health.pending, width: 7, align: 'right' },
  { header: 'lastDelivery', value: (e) => e.health.lastDeliveryAt, width: 16, display: shortDate },
  { header: 'disabledReason', value: (e) => e.disabledReason, width: 30 },
];

const deliveryColumns: Column<Schemas['WebhookDelivery']>[] = [
  { header: 'id', value: (d) => d.id, width: 28 },
  { header: 'event', value: (d) => d.event, width: 19 },
  { header: 'status', value: (d) => d.status, width: 9, colour: (v) => (v === 'failed' ? 'red' : v === 'delivered' ? 'green' : 'yellow') },
  { header: 'attempts', value: (d) => d.attempts, width: 8, align: 'right' },
  { header: 'response', value: (d) => d.responseStatus, width: 8, align: 'right' },
  { header: 'durationMs', value: (d) => d.durationMs, width: 10, align: 'right' },
  { header: 'error', value: (d) => d.error, width: 30 },
  { header: 'createdAt', value: (d) => d.createdAt, width: 16, display: shortDate },
];

/** How much of an answer or an error an attempt's line shows (the JSON has all that was kept). */
const EXCERPT_WIDTH = 80;

/** `2026-05-01T10:20:30.000Z` as `2026-05-01 10:20:30` (UTC): a retry can come seconds after. */
const secondsDate = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;

/** One attempt as a line under its delivery: when, the status code, how long, and the error or the start of the answer. */
function attemptLine(a: Schemas['WebhookDeliveryAttempt']): string {
  const answer = (a.error ?? a.responseBody ?? '').replace(/\s+/g, ' ').trim();
  const excerpt = answer.length > EXCERPT_WIDTH ? `${answer.slice(0, EXCERPT_WIDTH - 1)}…` : answer;
  const status = a.responseStatus === null ? 'no answer' : `HTTP ${a.responseStatus}`;
  return `  attempt ${String(a.attempt).padEnd(2)}  ${secondsDate(a.startedAt)}  ${status.padEnd(9)}  ${`${a.durationMs} ms`.padStart(8)}  ${excerpt}`;
}

/** The lines under a delivery in a table: each attempt kept, and how many older ones were not. */
function attemptLines(d: Schemas['WebhookDelivery']): string[] {
  const dropped = d.attempts - d.attemptLog.length;
  const note = dropped > 0 && d.attemptLog.length > 0 ? [`  (${dropped} earlier attempt${dropped === 1 ? '' : 's'} not kept)`] : [];
  return [...note, ...d.attemptLog.map(attemptLine)];
}

function endpointId(ref: string): string {
  if (!ENDPOINT_ID.test(ref)) throw new UsageError(`"${ref}" is not an endpoint id (24 hex characters; see keypanel webhooks list)`);
  return ref;
}

export function registerWebhooksCommands(program: Command) {
  const webhooks = program
    .command('webhooks')
    .description('Outbound webhooks (owner): endpoints, test events and deliveries')
    .addHelpText(
      'after',
      `
Events: ${WEBHOOK_EVENT_TYPES.join(', ')}

Examples:
  $ keypanel webhooks add https://example.com/hooks --events key.purchased,key.revoked
  $ keypanel webhooks list --format csv
  $ keypanel webhooks test 6650c0ffee0123456789abcd
  $ keypanel webhooks deliveries 6650c0ffee0123456789abcd --limit 50
  $ keypanel webhooks remove 6650c0ffee0123456789abcd
`,
    );

  webhooks
    .command('list')
    .description('List the endpoints with their health')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const { endpoints } = await ctx.api().get('/api/webhooks');
      const out = rowWriter(ctx.format, endpointColumns);
      for (const endpoint of endpoints) await out.write(endpoint);
      await out.end();
    });

  webhooks
    .command('add')
    .description('Add an endpoint; its signing secret is printed this once')
    .argument('<url>', 'https URL that receives the events')
    .requiredOption('--events <list>', `comma-separated event types, or "all"`)
    .option('--description <text>', 'what it is for')
    .action(async (url: string, options: { events: string; description?: string }, command: Command) => {
      const ctx = contextOf(command);
      const events =
        options.events.trim() === 'all'
          ? [...WEBHOOK_EVENT_TYPES]
          : options.events
              .split(',')
              .map((e) => e.trim())
              .filter(Boolean);
      const body = parseWith(createWebhookSchema, { url, events, description: options.description ?? '' });
      // A new destination for every event needs proof that it is you (KEYPANEL_PASSWORD, or asked).
      const created = await withStepUp((proof) => ctx.api().post('/api/webhooks', { ...body, ...proof }));
      await printRecord(
        ctx.format,
        [
          ['id', created.id],
          ['url', created.url],
          ['events', created.events.join(' ')],
          ['enabled', created.enabled],
          ['secret', created.secret],
        ],
        created,
      );
      success('Endpoint added. Keep the signing secret now: it is not shown again.');
    });

  webhooks
    .command('remove')
    .description('Delete an endpoint and its delivery history')
    .argument('<id>', 'endpoint id')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.api().delete(`/api/webhooks/${endpointId(ref)}`);
      success('Endpoint removed.');
    });

  webhooks
    .command('test')
    .description('Send a webhook.test event to one endpoint')
    .argument('<id>', 'endpoint id')
    .action(async (ref: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const { eventId } = await ctx.api().post(`/api/webhooks/${endpointId(ref)}/test`);
      await printRecord(ctx.format, [['eventId', eventId]]);
      notice('Test event queued; see it with keypanel webhooks deliveries.');
    });

  webhooks
    .command('deliveries')
    .description("An endpoint's deliveries, newest first, each with its attempts (under it in a table; attemptLog in JSON)")
    .argument('<id>', 'endpoint id')
    .option('--page <n>', 'page', wholeNumber('--page', 1))
    .option('--limit <n>', 'deliveries per page (at most 100)', wholeNumber('--limit', 1, 100))
    .action(async (ref: string, options: { page?: number; limit?: number }, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.api().get(`/api/webhooks/${endpointId(ref)}/deliveries`, {
        page: options.page ?? 1,
        limit: options.limit ?? 20,
      });
      const out = rowWriter(ctx.format, deliveryColumns, { details: attemptLines });
      for (const delivery of answer.deliveries) await out.write(delivery);
      await out.end();
      notice(`Page ${options.page ?? 1} of ${Math.max(answer.totalPages, 1)} (${answer.total} deliveries).`);
    });
}
