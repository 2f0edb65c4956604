import { defineConfig } from 'drizzle-kit';

// drizzle-kit writes numbered SQL into migrations/; wrangler applies that same folder.
export default defineConfig({
  dialect: 'sqlite',
  schema: './worker/platform/db/schema.ts',
  out: './migrations',
});
