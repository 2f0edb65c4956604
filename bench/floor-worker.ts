// The floor: the least a Worker can do to answer a licensing request in this runtime. It reads the
// JSON body and makes one D1 read of a key by its indexed value (license_keys_key_unique) against
// the same seeded database, and nothing else: no router, no validation, no signature. Every endpoint
// is measured as a share of what this Worker does under the same harness, on the same machine.
type FloorEnv = { DB: D1Database };

export default {
  async fetch(request: Request, env: FloorEnv): Promise<Response> {
    if (request.method !== 'POST') return new Response('POST a {"key": "..."} body', { status: 405 });
    const { key } = await request.json<{ key: string }>();
    const row = await env.DB.prepare('SELECT id, status, expires_at FROM license_keys WHERE key = ?1').bind(key).first();
    return Response.json({ found: row !== null, key: row });
  },
};
