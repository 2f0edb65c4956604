// The request body limit, for bodies with or without Content-Length.
//
// Hono's bodyLimit reads a chunked body (no Content-Length) until the limit and answers 413 with the
// rest of the upload unread and the stream still held. workerd cannot discard a body that a script
// has half read: under `npm start` (wrangler dev) the connection was lost and the next request on it,
// anyone's, answered 503 "Your worker restarted mid-request". Cancelling the stream is no better:
// workerd then drops the connection. So an oversized chunked body is read to its end and thrown away
// (nothing is kept), and only then refused. A body whose Content-Length is over the limit is refused
// unread: the runtime discards an untouched body itself. Cloudflare caps bodies at the edge (100 MB
// and up, by plan), which bounds what draining can cost.
import type { MiddlewareHandler } from 'hono';
import { AppError } from './errors';

export function bodyLimit(maxBytes: number): MiddlewareHandler {
  const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', `Request body must be at most ${maxBytes / 1024} KB`);
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) return next();
    const declared = c.req.header('content-length');
    if (declared !== undefined && !c.req.raw.headers.has('transfer-encoding')) {
      if (Number(declared) > maxBytes) throw tooLarge();
      return next();
    }
    const reader = (body as ReadableStream<Uint8Array>).getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await drain(reader);
        throw tooLarge();
      }
      chunks.push(value);
    }
    const whole = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      whole.set(chunk, offset);
      offset += chunk.byteLength;
    }
    c.req.raw = new Request(c.req.raw, { body: whole });
    return next();
  };
}

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>) {
  for (;;) if ((await reader.read()).done) return;
}
