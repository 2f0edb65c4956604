// What the browser showed when a test failed: each open page's address and text, the requests still
// waiting for an answer (with whether the server's log has an answer to each), and the last refusals
// and errors it saw. e2e/setup.ts records it on the failed attempt (`meta.browser`) and `npm test`
// prints it with the failure (scripts/test.ts), so a test that failed once on CI, then passed on its
// retry, can be read afterwards instead of guessed at.
import { existsSync, readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import type { BrowserContext, Page, Request } from 'playwright-core';

/** The events kept per context: the last ones before a failure are the ones that explain it. */
const KEPT_EVENTS = 8;
/** A page's text is cut here: enough to tell a sign-in page, a spinner or an error screen apart. */
const TEXT_SHOWN = 200;

type Watched = { events: { at: number; text: string }[]; waiting: Map<Request, number> };
const watched = new Map<BrowserContext, Watched>();

/** A text without this origin (the test server's), which every address in it would repeat. */
const local = (text: string, origin: string) => text.split(origin).join('') || '/';

/** Starts keeping what `context` does, until it closes. */
export function watchContext(context: BrowserContext) {
  const w: Watched = { events: [], waiting: new Map() };
  watched.set(context, w);
  const note = (text: string) => {
    w.events.push({ at: Date.now(), text });
    if (w.events.length > KEPT_EVENTS) w.events.shift();
  };
  context.on('request', (request) => w.waiting.set(request, Date.now()));
  context.on('requestfinished', (request) => w.waiting.delete(request));
  context.on('requestfailed', (request) => {
    w.waiting.delete(request);
    note(`${request.method()} ${request.url()} failed: ${request.failure()?.errorText ?? 'no reason given'}`);
  });
  context.on('response', (response) => {
    if (response.status() >= 400) note(`${response.request().method()} ${response.url()}: ${response.status()}`);
  });
  context.on('console', (message) => {
    if (message.type() === 'error') note(`console error: ${message.text()}`);
  });
  context.on('weberror', (error) => note(`uncaught in the page: ${error.error().message}`));
  context.on('close', () => watched.delete(context));
}

/** What one context showed, as `describeOpenPages` reads it. */
export type ContextSnapshot = {
  pages: { url: string; text: string }[];
  waiting: { method: string; url: string; ms: number }[];
  events: { agoMs: number; text: string }[];
};

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
const clip = (text: string) => (text.length > TEXT_SHOWN ? `${text.slice(0, TEXT_SHOWN)}…` : text);

/** The server's lines that can explain a request left waiting: a reload, a restart, an error. */
const TROUBLE = /reload|restart|error|✘|uncaught/i;
const TROUBLE_SHOWN = 3;

/** What the server's log (wrangler's output, a line per answered request) says of a waiting request. */
function serverSaid(lines: string[], method: string, where: string): string {
  const answer = lines.findLast((line) => line.includes(` ${method} ${where} `));
  return answer ? `the server logged "${clip(answer)}"` : 'the server logged no answer to it';
}

/**
 * The lines a failure report shows for the contexts open at the failure; with the server's log, each
 * waiting request says whether the server answered it, and the log's last troubles follow.
 */
export function evidenceLines(contexts: ContextSnapshot[], origin: string, serverLog?: string): string[] {
  const server = serverLog === undefined ? null : stripVTControlCharacters(serverLog).split('\n').map(oneLine).filter(Boolean);
  const lines = contexts.flatMap((context) => [
    ...context.pages.map((page) => `page ${local(page.url, origin)} showed: "${clip(oneLine(page.text)) || '(nothing)'}"`),
    ...context.waiting.map((r) => {
      const where = local(r.url, origin);
      return `still waiting after ${seconds(r.ms)}: ${r.method} ${where}${server ? `; ${serverSaid(server, r.method, where)}` : ''}`;
    }),
    ...context.events.map((e) => `${seconds(e.agoMs)} before: ${clip(oneLine(local(e.text, origin)))}`),
  ]);
  const troubles = server?.filter((line) => TROUBLE.test(line)).slice(-TROUBLE_SHOWN) ?? [];
  return lines.length && troubles.length ? [...lines, ...troubles.map((line) => `the server's log: ${clip(line)}`)] : lines;
}

/**
 * The page's main region (the app's navigation would fill the line otherwise), or its body. A page
 * that is stuck may not answer either: its address alone still says where it was.
 */
async function pageText(page: Page): Promise<string> {
  const main = page.locator('main');
  const region = (await main.count().catch(() => 0)) > 0 ? main.first() : page.locator('body');
  return region.innerText({ timeout: 2_000 }).catch(() => '(its text could not be read)');
}

/** Reads every open context's pages and what it kept, and the server's log; nothing when no context is open. */
export async function describeOpenPages(origin: string, serverLogFile?: string): Promise<string[]> {
  const now = Date.now();
  const snapshots = await Promise.all(
    [...watched].map(async ([context, w]) => ({
      pages: await Promise.all(
        context.pages().map(async (page) => ({
          url: page.url(),
          text: await pageText(page),
        })),
      ),
      waiting: [...w.waiting].map(([request, at]) => ({ method: request.method(), url: request.url(), ms: now - at })),
      events: w.events.map((e) => ({ agoMs: now - e.at, text: e.text })),
    })),
  );
  const serverLog = serverLogFile && existsSync(serverLogFile) ? readFileSync(serverLogFile, 'utf8') : undefined;
  return evidenceLines(snapshots, origin, serverLog);
}

/**
 * Closes the contexts a failed attempt left open (it never reached its own `close`), so the retry
 * starts clean and a later failure describes only its own pages. What their closing reports (an
 * answer the API document does not allow) is not what failed the attempt, and the retry checks again.
 */
export async function closeOpenContexts() {
  await Promise.all([...watched.keys()].map((context) => context.close().catch(() => undefined)));
}
