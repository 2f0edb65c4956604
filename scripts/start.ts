// `npm start`: the whole product on the local embedded default, at http://localhost:8787.
import path from 'node:path';
import { applyMigrations, buildWeb, ensureDevVars, ensureOwner, ROOT, startServer, stripeVarsFromEnv } from './local';

const port = Number(process.env.PORT ?? 8787);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  console.error(`PORT must be a port number (1-65535), got "${process.env.PORT}"`);
  process.exit(2);
}

const step = (text: string) => console.log(`\u25B8 ${text}`);

try {
  const added = ensureDevVars();
  if (added.length) step(`Created ${path.relative(ROOT, path.join(ROOT, '.dev.vars'))} with fresh ${added.join(', ')}`);
  step('Building the web app');
  buildWeb();
  step('Applying database migrations to the local D1');
  applyMigrations();
  const owner = await ensureOwner();
  if (owner.created) {
    console.log('\n  Owner account created. Sign in with:');
    console.log(`    email:    ${owner.email}`);
    console.log(`    password: ${owner.generated ? owner.password : '(from OWNER_PASSWORD)'}`);
    if (owner.generated)
      console.log('  This password is shown only once: keep it, or set OWNER_EMAIL / OWNER_PASSWORD on a fresh database.\n');
  }
  // Card top-ups: STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET (and STRIPE_API_BASE) from the environment.
  const stripe = stripeVarsFromEnv();
  if (Object.keys(stripe).length) step(`Passing ${Object.keys(stripe).join(', ')} to the Worker`);
  step(`Starting KeyPanel at http://localhost:${port}`);
  // APP_URL from the environment wins (a tunnel or a proxy in front); else this server's own address.
  const child = await startServer({
    port,
    inherit: true,
    vars: process.env.APP_URL ? { APP_URL: process.env.APP_URL } : {},
    secrets: stripe,
  });
  console.log(`\n  KeyPanel is running at http://localhost:${port}  (Ctrl+C to stop)`);
  console.log(`  Every mail it sends (verification links too): http://localhost:${port}/dev/mailbox\n`);
  const stop = () => child.kill('SIGINT');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => process.exit(code ?? 0));
} catch (err) {
  console.error(`\n${(err as Error).message}`);
  process.exit(1);
}
