// A mail API stand-in for the browser tests: it takes mail as the real one does (a JSON POST with a
// bearer key, Resend's shape), keeps it, and refuses an address with "bounce" in it as a real API
// refuses an address it will not deliver to (422), so the admin panel's Mail tab has a failure to show.
import { createServer, type Server } from 'node:http';

export type StandInMail = { to: string[]; subject: string; text: string; html: string; headers: Record<string, string> };

export async function startMailStandIn(): Promise<{ url: string; sent: StandInMail[]; close: () => Promise<void> }> {
  const sent: StandInMail[] = [];
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(sent));
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      let mail: StandInMail;
      try {
        mail = JSON.parse(body) as StandInMail;
      } catch {
        return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"message":"not JSON"}');
      }
      if (mail.to.some((address) => address.includes('bounce'))) {
        return void res.writeHead(422, { 'content-type': 'application/json' }).end('{"message":"The recipient is not valid"}');
      }
      sent.push(mail);
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"id":"${sent.length}"}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/emails`, sent, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
