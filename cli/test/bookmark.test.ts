// The CLI sends back the newest D1 bookmark it holds for a server, so a command reads what the last
// one wrote even when a read replica answers; it keeps the newer of two, per server.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBookmark, rememberBookmark } from '../lib/bookmark';
import { createClient } from '../lib/http';

const OLDER = '00000000-0000000a-00000000-00000000000000000000000000000000';
const NEWER = '00000000-0000000b-00000000-00000000000000000000000000000000';

const received: Array<string | undefined> = [];
let answerWith = NEWER;
const server = createServer((req, res) => {
  received.push(req.headers['x-d1-bookmark'] as string | undefined);
  res.writeHead(200, { 'content-type': 'application/json', 'x-d1-bookmark': answerWith });
  res.end('{"ok":true}');
});
let url = '';
const home = mkdtempSync(path.join(tmpdir(), 'keypanel-bookmark-'));
const savedHome = process.env.XDG_CONFIG_HOME;

beforeAll(async () => {
  process.env.XDG_CONFIG_HOME = home;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
  if (savedHome === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedHome;
});

describe('bookmarks', () => {
  it('are sent with the next call once an answer gave one, newest kept, per server', async () => {
    const client = createClient({ url, token: 'kp_test', tokenSource: 'KEYPANEL_TOKEN' }, 'signedIn');
    await client.get('/api/users/profile');
    expect(received[0]).toBeUndefined();
    expect(readBookmark(url)).toBe(NEWER);
    // An older answer arriving later does not move it back.
    answerWith = OLDER;
    await client.get('/api/users/profile');
    expect(received[1]).toBe(NEWER);
    expect(readBookmark(url)).toBe(NEWER);
    expect(JSON.parse(readFileSync(path.join(home, 'keypanel', 'bookmarks.json'), 'utf8'))).toEqual({ [url]: NEWER });
    // Another server's bookmark is its own; a malformed one is never kept.
    rememberBookmark('http://elsewhere.test', 'not-a-bookmark');
    expect(readBookmark('http://elsewhere.test')).toBeUndefined();
  });
});
