// keypanel webhooks: an endpoint added from the terminal receives a signed test event, end to end
// through the local Worker's queue, and its deliveries list as CSV and JSON; each attempt shows, in
// a table under its delivery and in the JSON.
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvRecords, keypanel, ownerCredentials, ownerSession, signedInHome, json, type Schemas } from './helpers';

let home: string;
let server: Server;
let receiverUrl: string;
const received: Array<{ headers: Record<string, string>; body: string }> = [];
/**
 * Deliveries to /hook/flaky: each event's first attempt is answered 500, its next 200. Counted per
 * event, since other files' key.revoked events, delivered at the same time, reach this endpoint too.
 */
const flakyAttempts = new Map<string, number>();

beforeAll(async () => {
  home = signedInHome(await ownerSession());
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/hook/flaky') {
        const event = (JSON.parse(body) as { id: string }).id;
        flakyAttempts.set(event, (flakyAttempts.get(event) ?? 0) + 1);
        if (flakyAttempts.get(event) === 1) return void res.writeHead(500, { 'content-type': 'text/plain' }).end('down for\nmaintenance');
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
      }
      received.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('keypanel webhooks', () => {
  it('adds an endpoint, sends it a verified test event, lists it and its deliveries, and removes it', async () => {
    const added = await keypanel(
      ['webhooks', 'add', receiverUrl, '--events', 'key.purchased,key.revoked', '--description', 'CLI test', '--format', 'json'],
      // A new destination for events needs proof that it is you: the owner's password, as a script gives it.
      { home, env: { KEYPANEL_PASSWORD: ownerCredentials().password } },
    );
    expect(added.code, added.stderr).toBe(0);
    const endpoint = json<Schemas['CreatedWebhookEndpoint']>(added.stdout);
    expect(endpoint).toMatchObject({ url: receiverUrl, events: ['key.purchased', 'key.revoked'], enabled: true });
    expect(endpoint.secret).toMatch(/^whsec_/);

    const listed = await keypanel(['webhooks', 'list', '--format', 'csv'], { home });
    expect(csvRecords(listed.stdout)).toContainEqual(
      expect.objectContaining({ id: endpoint.id, url: receiverUrl, events: 'key.purchased key.revoked', enabled: 'true' }),
    );

    const tested = await keypanel(['webhooks', 'test', endpoint.id, '--format', 'json'], { home });
    expect(tested.code, tested.stderr).toBe(0);
    const { eventId } = json<Schemas['TestEventResponse']>(tested.stdout);
    // Other files revoke and buy keys meanwhile, and the endpoint hears of those too: this test's event is the test event.
    const ours = () => received.find((r) => r.body.includes(eventId));
    await expect.poll(() => ours() !== undefined, { timeout: 15_000, interval: 200 }).toBe(true);
    const event = new Webhook(endpoint.secret).verify(ours()!.body, ours()!.headers) as { id: string; type: string };
    expect(event).toMatchObject({ id: eventId, type: 'webhook.test' });

    const testDeliveries = async () =>
      json<Schemas['WebhookDelivery'][]>(
        (await keypanel(['webhooks', 'deliveries', endpoint.id, '--format', 'json'], { home })).stdout,
      ).filter((d) => d.event === 'webhook.test');
    await expect.poll(testDeliveries, { timeout: 10_000, interval: 500 }).toEqual([
      expect.objectContaining({
        id: ours()!.headers['webhook-id'],
        event: 'webhook.test',
        status: 'delivered',
        attempts: 1,
        responseStatus: 204,
      }),
    ]);

    const removed = await keypanel(['webhooks', 'remove', endpoint.id], { home });
    expect(removed.code, removed.stderr).toBe(0);
    expect(json<unknown>((await keypanel(['webhooks', 'list', '--format', 'json'], { home })).stdout)).not.toContainEqual(
      expect.objectContaining({ id: endpoint.id }),
    );
  });

  it('shows every attempt of a delivery: under it in a table, and in the JSON', async () => {
    const added = await keypanel(['webhooks', 'add', `${receiverUrl}/flaky`, '--events', 'key.revoked', '--format', 'json'], {
      home,
      env: { KEYPANEL_PASSWORD: ownerCredentials().password },
    });
    expect(added.code, added.stderr).toBe(0);
    const endpoint = json<Schemas['CreatedWebhookEndpoint']>(added.stdout);
    try {
      expect((await keypanel(['webhooks', 'test', endpoint.id], { home })).code).toBe(0);
      // The queue tries again 5 seconds after the 500.
      // Only the test event's delivery: other files' key.revoked events reach this endpoint too.
      const deliveries = async () =>
        json<Schemas['WebhookDelivery'][]>(
          (await keypanel(['webhooks', 'deliveries', endpoint.id, '--format', 'json'], { home })).stdout,
        ).filter((d) => d.event === 'webhook.test');
      await expect.poll(async () => (await deliveries())[0]?.status, { timeout: 30_000, interval: 1_000 }).toBe('delivered');
      const [delivery] = await deliveries();
      expect(delivery).toMatchObject({ attempts: 2, responseStatus: 200 });
      expect(delivery.attemptLog).toMatchObject([
        { attempt: 1, responseStatus: 500, responseBody: 'down for\nmaintenance', error: null },
        { attempt: 2, responseStatus: 200, responseBody: 'thanks', error: null },
      ]);

      const table = await keypanel(['webhooks', 'deliveries', endpoint.id, '--format', 'table'], { home });
      expect(table.code, table.stderr).toBe(0);
      // Its line, and its attempts under it (other deliveries may be listed around it).
      const all = table.stdout.trimEnd().split('\n');
      const at = all.findIndex((line) => line.startsWith(delivery.id));
      const lines = all.slice(at - 1, at + 3);
      expect(lines[1]).toMatch(new RegExp(`^${delivery.id}\\s+webhook\\.test\\s+delivered\\s+2\\s+200\\b`));
      const time = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
      const [first, second] = delivery.attemptLog;
      expect(lines[2]).toMatch(
        new RegExp(`^  attempt 1 +${time(first.startedAt)} +HTTP 500 +${first.durationMs} ms +down for maintenance$`),
      );
      expect(lines[3]).toMatch(new RegExp(`^  attempt 2 +${time(second.startedAt)} +HTTP 200 +${second.durationMs} ms +thanks$`));
      // CSV stays one line per delivery.
      const csv = await keypanel(['webhooks', 'deliveries', endpoint.id, '--format', 'csv'], { home });
      expect(csvRecords(csv.stdout).filter((r) => r.id === delivery.id)).toEqual([
        expect.objectContaining({ id: delivery.id, attempts: '2', response: '200' }),
      ]);
    } finally {
      await keypanel(['webhooks', 'remove', endpoint.id], { home });
    }
  });

  it('adds nothing without the proof: a wrong KEYPANEL_PASSWORD is refused, and with no answer it says what it needs', async () => {
    const url = `${receiverUrl}/unproven`;
    const add = (env: Record<string, string>) => keypanel(['webhooks', 'add', url, '--events', 'key.purchased'], { home, env });
    const wrong = await add({ KEYPANEL_PASSWORD: 'not-the-owner-password' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Password is incorrect');
    const unanswered = await add({});
    expect(unanswered.code).toBe(2);
    expect(unanswered.stderr).toContain('Expected the current password on standard input, but it ended.');
    const listed = json<Schemas['WebhookEndpoint'][]>((await keypanel(['webhooks', 'list', '--format', 'json'], { home })).stdout);
    expect(listed.map((e) => e.url)).not.toContain(url);
  });

  it('refuses a bad URL or event before calling the API, and an unknown id', async () => {
    // The server judges the URL once the proof holds.
    const insecure = await keypanel(['webhooks', 'add', 'ftp://example.com/x', '--events', 'key.purchased'], {
      home,
      env: { KEYPANEL_PASSWORD: ownerCredentials().password },
    });
    expect(insecure.code).toBe(1);
    expect(insecure.stderr).toContain('URL must use https');
    const unknown = await keypanel(['webhooks', 'add', 'https://example.com/x', '--events', 'key.bought'], { home });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('Events must be among');
    const badId = await keypanel(['webhooks', 'test', 'nope'], { home });
    expect(badId.code).not.toBe(0);
    expect(badId.stderr).toContain('is not an endpoint id');
  });
});
