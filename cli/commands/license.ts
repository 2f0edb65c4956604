// The licensing API from a terminal, as licensed software calls it (no sign-in), and the offline
// check of the token a VALID answer carries. Both go through the licensing SDK (sdk/), so the CLI
// verifies answers and tokens exactly as an app does: against the server's public key as kept for
// this server at `keypanel login` (or --public-key), never trusting an answer that key did not sign.
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  createLicensing,
  TokenError,
  verifyOfflineToken,
  verifySignature,
  importPublicKey,
  type LicenseResult,
  type OfflineToken,
} from '../../sdk/src/index';
import {
  activateLicenseSchema,
  borrowSeatSchema,
  consumeLicenseSchema,
  deactivateLicenseSchema,
  heartbeatLicenseSchema,
  offlineProofSchema,
  offlineRequestSchema,
  replaceDeviceSchema,
  startTrialSchema,
  validateLicenseSchema,
} from '../../worker/modules/licensing/schemas';
import { readConfig, resolveConnection } from '../lib/config';
import { contextOf, type CommandContext } from '../lib/context';
import { CliError, UsageError } from '../lib/errors';
import { assertSecureUrl, notKeyPanel } from '../lib/http';
import { printRecord } from '../lib/output';
import { REPIN_HINT } from '../lib/pinned-key';
import { ask, closeInput } from '../lib/prompts';
import { parseWith, wholeNumber } from '../lib/validate';

type CallOptions = { key: string; fingerprint: string; nonce?: string; publicKey?: string };
type Licensing = ReturnType<typeof createLicensing>;

const ACTIONS = {
  activate: { schema: activateLicenseSchema, describe: 'Activate a key on a device (takes a device slot, or a floating seat)' },
  validate: { schema: validateLicenseSchema, describe: 'Check a key on an activated device' },
  deactivate: {
    schema: deactivateLicenseSchema,
    describe: 'Deactivate a device (its slot frees once its offline token has expired; a floating seat is checked in)',
  },
  heartbeat: { schema: heartbeatLicenseSchema, describe: "Renew a floating seat's lease" },
} as const;

/** A successful answer for each call; anything else exits 1 after printing the answer. */
const SUCCESS_CODES: Record<keyof typeof ACTIONS | 'borrow' | 'replace-device' | 'trial' | 'consume', string[]> = {
  consume: ['CONSUMED'],
  activate: ['VALID'],
  // A perpetual-fallback key past its expiry, for a release dated before it: valid.
  validate: ['VALID', 'UPDATES_ENDED'],
  deactivate: ['DEACTIVATED', 'SEAT_RELEASED'],
  heartbeat: ['VALID'],
  borrow: ['VALID'],
  'replace-device': ['DEVICE_REPLACED'],
  trial: ['TRIAL_STARTED'],
};
const PUBLIC_KEY_HELP = 'the public key (PEM or JWK); by default the one pinned at `keypanel login`';

export function registerLicenseCommands(program: Command) {
  const license = program
    .command('license')
    .description('Call the licensing API as licensed software does, and verify offline tokens')
    .addHelpText(
      'after',
      `
These calls need no session; set the server with KEYPANEL_URL or \`keypanel login --url\`.
Every answer must be signed by the server's public key, as an app checks it; one that is not is
an error. The key is the one \`keypanel login\` pinned for this server (re-pin after a deliberate
rotation with \`keypanel login --repin\`), or --public-key; it is never fetched at the moment of
checking. The answer is printed; the exit code is 0 for VALID (DEACTIVATED or SEAT_RELEASED for
deactivate, DEVICE_REPLACED for replace-device, TRIAL_STARTED for trial, CONSUMED for consume), else 1.

Examples:
  $ keypanel license activate --key APP-XXXX-XXXX-XXXX --fingerprint device-0001
  $ keypanel license validate --key APP-XXXX-XXXX-XXXX --fingerprint device-0001 --nonce 42
  $ keypanel license deactivate --key APP-XXXX-XXXX-XXXX --fingerprint device-0001
  $ keypanel license heartbeat --key APP-XXXX-XXXX-XXXX --fingerprint device-0001
  $ keypanel license replace-device --key APP-XXXX-XXXX-XXXX --fingerprint device-0002 --replace DEVICE_ID
  $ keypanel license trial --key-tag APP --fingerprint device-0001
  $ keypanel license consume --key APP-XXXX-XXXX-XXXX --fingerprint device-0001 --amount 3 --idempotency-key job-42
  $ keypanel license verify-token eyJhbGciOiJFZERTQSJ9... --fingerprint device-0001
  $ keypanel license offline-activate request.json --output response.json
  $ keypanel license offline-deactivate proof.json
`,
    );

  for (const [action, { schema, describe }] of Object.entries(ACTIONS) as Array<
    [keyof typeof ACTIONS, (typeof ACTIONS)[keyof typeof ACTIONS]]
  >) {
    const call = license
      .command(action)
      .description(describe)
      .requiredOption('--key <key>', 'the license key')
      .requiredOption('--fingerprint <fingerprint>', 'the device fingerprint (8-256 printable characters)')
      .option('--nonce <nonce>', 'echoed back in the signed answer (a fresh random one by default)')
      .option('--public-key <file>', PUBLIC_KEY_HELP)
      .addHelpText('after', `\nExample:\n  $ keypanel license ${action} --key APP-XXXX-XXXX-XXXX --fingerprint device-0001\n`);
    if (action === 'validate') {
      call.option(
        '--release-date <date>',
        "the app release's date (2026-03-01): a perpetual-fallback key past its expiry answers UPDATES_ENDED for an earlier one",
      );
    }
    call.action(async (options: CallOptions & { releaseDate?: string }, command: Command) => {
      const body = parseWith(action === 'validate' ? validateLicenseSchema : schema, {
        key: options.key,
        deviceFingerprint: options.fingerprint,
        nonce: options.nonce,
        ...(options.releaseDate === undefined ? {} : { releaseDate: options.releaseDate }),
      });
      const req = { key: body.key, fingerprint: body.deviceFingerprint, nonce: body.nonce };
      await runCall(command, options.publicKey, action, (sdk) =>
        action === 'validate' ? sdk.validate({ ...req, releaseDate: options.releaseDate }) : sdk[action](req),
      );
    });
  }

  license
    .command('borrow')
    .description('Borrow a floating seat for offline use (the offline token lives until the borrow ends)')
    .requiredOption('--key <key>', 'the license key')
    .requiredOption('--fingerprint <fingerprint>', 'the device fingerprint')
    .requiredOption('--hours <hours>', "how long, in hours (at most the product's borrow maximum)", wholeNumber('--hours', 1, 720))
    .option('--nonce <nonce>', 'echoed back in the signed answer')
    .option('--public-key <file>', PUBLIC_KEY_HELP)
    .addHelpText('after', `\nExample:\n  $ keypanel license borrow --key APP-XXXX-XXXX-XXXX --fingerprint device-0001 --hours 48\n`)
    .action(async (options: CallOptions & { hours: number }, command: Command) => {
      const body = parseWith(borrowSeatSchema, {
        key: options.key,
        deviceFingerprint: options.fingerprint,
        nonce: options.nonce,
        hours: options.hours,
      });
      await runCall(command, options.publicKey, 'borrow', (sdk) =>
        sdk.borrow({ key: body.key, fingerprint: body.deviceFingerprint, nonce: body.nonce, hours: body.hours }),
      );
    });

  license
    .command('replace-device')
    .description("Replace one of a key's devices by this one (the id from a refused activation's devices), within the swap budget")
    .requiredOption('--key <key>', 'the license key')
    .requiredOption('--fingerprint <fingerprint>', 'the new device fingerprint')
    .requiredOption('--replace <deviceId>', 'the id of the device to replace')
    .option('--nonce <nonce>', 'echoed back in the signed answer')
    .option('--public-key <file>', PUBLIC_KEY_HELP)
    .addHelpText(
      'after',
      `\nExample:\n  $ keypanel license replace-device --key APP-XXXX-XXXX-XXXX --fingerprint device-0002 --replace 0194f3c2a1b2c3d4e5f60718\n`,
    )
    .action(async (options: CallOptions & { replace: string }, command: Command) => {
      const body = parseWith(replaceDeviceSchema, {
        key: options.key,
        deviceFingerprint: options.fingerprint,
        nonce: options.nonce,
        replaceDeviceId: options.replace,
      });
      await runCall(command, options.publicKey, 'replace-device', (sdk) =>
        sdk.replaceDevice({ key: body.key, fingerprint: body.deviceFingerprint, nonce: body.nonce, replaceDeviceId: body.replaceDeviceId }),
      );
    });

  license
    .command('consume')
    .description('Debit uses from a metered key (the same --idempotency-key debits once, however often it is sent)')
    .requiredOption('--key <key>', 'the license key')
    .requiredOption('--fingerprint <fingerprint>', 'the device fingerprint (activated on the key)')
    .option('--amount <n>', 'uses to debit', wholeNumber('--amount', 1, 1_000_000_000), 1)
    .option('--idempotency-key <key>', 'names this debit, so that sending it again debits nothing more (a fresh random one by default)')
    .option('--nonce <nonce>', 'echoed back in the signed answer')
    .option('--public-key <file>', PUBLIC_KEY_HELP)
    .addHelpText(
      'after',
      `\nExample:\n  $ keypanel license consume --key APP-XXXX-XXXX-XXXX --fingerprint device-0001 --amount 3 --idempotency-key job-42\n`,
    )
    .action(async (options: CallOptions & { amount: number; idempotencyKey?: string }, command: Command) => {
      const body = parseWith(consumeLicenseSchema, {
        key: options.key,
        deviceFingerprint: options.fingerprint,
        nonce: options.nonce,
        amount: options.amount,
      });
      await runCall(command, options.publicKey, 'consume', (sdk) =>
        sdk.consume({
          key: body.key,
          fingerprint: body.deviceFingerprint,
          nonce: body.nonce,
          amount: body.amount,
          idempotencyKey: options.idempotencyKey,
        }),
      );
    });

  license
    .command('trial')
    .description("Start a device's trial of a product (one per device and product); prints the trial key")
    .requiredOption('--key-tag <tag>', "the product's key tag")
    .requiredOption('--fingerprint <fingerprint>', 'the device fingerprint')
    .option('--nonce <nonce>', 'echoed back in the signed answer')
    .option('--public-key <file>', PUBLIC_KEY_HELP)
    .addHelpText('after', `\nExample:\n  $ keypanel license trial --key-tag APP --fingerprint device-0001\n`)
    .action(async (options: Omit<CallOptions, 'key'> & { keyTag: string }, command: Command) => {
      const body = parseWith(startTrialSchema, { keyTag: options.keyTag, deviceFingerprint: options.fingerprint, nonce: options.nonce });
      await runCall(command, options.publicKey, 'trial', (sdk) =>
        sdk.startTrial({ keyTag: body.keyTag, fingerprint: body.deviceFingerprint, nonce: body.nonce }),
      );
    });

  license
    .command('verify-token')
    .description("Verify an offline token with the server's public key, without calling the licensing API")
    .argument('<token>', 'the token from a VALID answer, or - to read it from stdin')
    .option('--public-key <file>', PUBLIC_KEY_HELP)
    .option('--fingerprint <fingerprint>', 'also require this device fingerprint')
    .option('--key <key>', 'also require this license key')
    .addHelpText(
      'after',
      `
Examples:
  $ keypanel license verify-token "$TOKEN" --fingerprint device-0001
  $ keypanel license verify-token - --public-key keypanel.pem < token.txt
`,
    )
    .action(async (tokenArg: string, options: { publicKey?: string; fingerprint?: string; key?: string }, command: Command) => {
      const ctx = contextOf(command);
      const token = tokenArg === '-' ? (await ask('', 'the token')).trim() : tokenArg.trim();
      closeInput();
      if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token))
        throw new UsageError('That is not an offline token (three dot-separated base64url parts).');
      const { text, pinned } = await loadPublicKey(options.publicKey);
      const publicKey = await importKey(text);
      let claims: OfflineToken;
      try {
        claims = await verifyOfflineToken(publicKey, token, { key: options.key, fingerprint: options.fingerprint });
      } catch (err) {
        if (!(err instanceof TokenError)) throw err;
        await printRecord(ctx.format, [
          ['valid', false],
          ['reason', err.message],
        ]);
        const rotated = pinned && err.problem === 'signature';
        throw new CliError(`The token is not valid: ${err.message}.`, rotated ? REPIN_HINT : undefined);
      }
      await printRecord(ctx.format, [
        ['valid', true],
        ['key', claims.key],
        ['fingerprint', claims.fingerprint],
        ['product', claims.keyTag || null],
        ['issuedAt', claims.issuedAt.toISOString()],
        ['expiresAt', claims.expiresAt.toISOString()],
        ['entitlements', claims.entitlements.join(', ') || null],
        ['expiryModel', claims.expiryModel],
        ['licenseExpiresAt', claims.licenseExpiresAt?.toISOString() ?? null],
      ]);
    });

  registerOfflineCommands(license);
}

/** The options of the air-gapped commands. */
type OfflineOptions = { output?: string; publicKey?: string };

/**
 * An air-gapped device's file turned into the server's signed file, as the key's holder (signed in):
 * the signature checked with the pinned key before anything is written or believed.
 */
async function offlineExchange(
  command: Command,
  file: string,
  options: OfflineOptions,
  send: (body: unknown) => Promise<{ answer: string; signature: string }>,
  success: string,
  defaultOutput: string | null,
) {
  const ctx = contextOf(command);
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? 'it is not JSON';
    throw new UsageError(`Cannot read ${file}: ${why}`);
  }
  const { text, pinned } = await loadPublicKey(options.publicKey);
  const signed = await send(body);
  const publicKey = await importKey(text);
  if (!(await verifySignature(publicKey, new TextEncoder().encode(signed.answer), signed.signature))) {
    throw new CliError(
      'The server\u2019s answer is not signed by the licensing public key; nothing was written.',
      pinned ? REPIN_HINT : undefined,
    );
  }
  const answer = JSON.parse(signed.answer) as { valid: boolean; code: string; detail: string; license: { key: string } | null };
  const output = answer.code === success ? (options.output ?? defaultOutput) : null;
  if (output) writeFileSync(output, `${JSON.stringify(signed, null, 2)}\n`);
  await printRecord(
    ctx.format,
    [
      ['code', answer.code],
      ['detail', answer.detail],
      ['key', answer.license?.key ?? null],
      ...(output ? [['written', output] as [string, string]] : []),
    ],
    { code: answer.code, detail: answer.detail, key: answer.license?.key ?? null, ...(output ? { written: output } : {}), answer },
  );
  if (answer.code !== success) throw new CliError(`${answer.code}: ${answer.detail}`);
}

function registerOfflineCommands(license: Command) {
  license
    .command('offline-activate')
    .description("Turn an air-gapped device's activation request into the signed response file to carry back to it (your own keys)")
    .argument('<request>', 'the request file the device wrote (the SDK\u2019s createOfflineRequest)')
    .option('--output <file>', 'where to write the response', 'response.json')
    .option('--public-key <file>', PUBLIC_KEY_HELP)
    .addHelpText(
      'after',
      `
Needs a sign-in as the key's holder (\`keypanel login\`, or an API token). The device counts against
the key's device limit like any other, and the request's nonce is accepted once. The response is
written only when the device was activated (exit 0); otherwise the answer is printed and the exit
code is 1.

Example:
  $ keypanel license offline-activate request.json --output response.json
`,
    )
    .action(async (file: string, options: OfflineOptions, command: Command) => {
      await offlineExchange(
        command,
        file,
        options,
        (body) =>
          contextOf(command)
            .api()
            .post('/api/users/my-keys/offline-activations', parseWith(offlineRequestSchema, body, `${file}: `)),
        'OFFLINE_ACTIVATED',
        'response.json',
      );
    });

  license
    .command('offline-deactivate')
    .description("Bring back an air-gapped device's signed deactivation proof: it frees the device's slot, once")
    .argument('<proof>', 'the proof file the device wrote (the SDK\u2019s createDeactivationProof)')
    .option('--output <file>', 'also write the signed receipt to this file')
    .option('--public-key <file>', PUBLIC_KEY_HELP)
    .addHelpText('after', `\nExample:\n  $ keypanel license offline-deactivate proof.json\n`)
    .action(async (file: string, options: OfflineOptions, command: Command) => {
      await offlineExchange(
        command,
        file,
        options,
        (body) =>
          contextOf(command)
            .api()
            .post('/api/users/my-keys/offline-deactivations', parseWith(offlineProofSchema, body, `${file}: `)),
        'DEACTIVATED',
        null,
      );
    });
}

/** One licensing call through the SDK: its answer printed, a refusal exiting 1. */
async function runCall(
  command: Command,
  publicKeyFile: string | undefined,
  action: keyof typeof SUCCESS_CODES,
  send: (sdk: Licensing) => Promise<LicenseResult>,
) {
  const ctx = contextOf(command);
  const { url } = resolveConnection();
  assertSecureUrl(url);
  const { text: publicKey, pinned } = await loadPublicKey(publicKeyFile);
  const result = await send(createLicensing({ url, publicKey, retry: { maxDelayMs: 60_000 } }));
  if (result.code === 'INVALID_SIGNATURE') {
    const refused = notKeyPanel(url, null, `a licensing answer the public key does not verify (${result.detail})`);
    throw new CliError(refused.message, pinned ? `${refused.hint} ${REPIN_HINT}` : refused.hint);
  }
  if (result.code === 'UNREACHABLE')
    throw new CliError(`${result.detail}.`, 'Check the address (KEYPANEL_URL or `keypanel login --url`) and that the server is running.');
  await printAnswer(ctx, result);
  if (!SUCCESS_CODES[action].includes(result.code)) throw new CliError(`${result.code}: ${result.detail}`);
}

/** The verified answer, shaped as the licensing API's (the token kept under license, as it comes). */
async function printAnswer(ctx: CommandContext, result: LicenseResult) {
  const license = result.license;
  const token = result.offlineToken?.token ?? null;
  const slotFreesAt = result.slotFreesAt === undefined ? undefined : (result.slotFreesAt?.toISOString() ?? null);
  const expiresAt = license?.expiresAt?.toISOString() ?? null;
  // The moments only some answers carry: a floating seat's lease and borrow, a swap budget's next swap.
  const moments = (['leaseExpiresAt', 'borrowedUntil', 'nextSwapAt'] as const)
    .filter((name) => result[name] !== undefined)
    .map((name) => [name, result[name]?.toISOString() ?? null] as [string, string | null]);
  const devices = result.devices?.map((d) => ({
    ...d,
    lastSeenAt: d.lastSeenAt?.toISOString() ?? null,
    leaseExpiresAt: d.leaseExpiresAt?.toISOString() ?? null,
  }));
  await printRecord(
    ctx.format,
    [
      ['valid', result.valid],
      ['code', result.code],
      ['detail', result.detail],
      ['key', license?.key ?? null],
      ['status', license?.status ?? null],
      ['product', license ? `${license.product.name} (${license.product.keyTag})` : null],
      ['expiresAt', expiresAt],
      ['model', license?.licenseModel ?? null],
      ['activations', license ? `${license.activationCount}/${license.maxActivations}` : null],
      ['entitlements', license?.entitlements.join(', ') || null],
      ...(license?.usage ? [['usesLeft', `${license.usage.remaining} (allowance ${license.usage.allowance})`] as [string, string]] : []),
      // Deactivations, and activations refused for held slots: when a slot frees.
      ...(slotFreesAt !== undefined ? [['slotFreesAt', slotFreesAt] as [string, string | null]] : []),
      ...moments,
      // A refusal because the key is full: the devices holding it (an id to pass to replace-device).
      ...(devices
        ? [
            [
              'devices',
              devices
                .map((d) => `${d.id} ${d.name ?? '(unnamed)'}${d.model ? ` ${d.model}` : ''}, last seen ${d.lastSeenAt ?? 'never'}`)
                .join('; '),
            ] as [string, string],
          ]
        : []),
      ['nonce', result.nonce ?? null],
      ['token', token],
    ],
    {
      valid: result.valid,
      code: result.code,
      detail: result.detail,
      nonce: result.nonce ?? null,
      ...(slotFreesAt !== undefined ? { slotFreesAt } : {}),
      ...Object.fromEntries(moments),
      ...(devices ? { devices } : {}),
      ...(result.retryAfter !== undefined ? { retryAfter: result.retryAfter } : {}),
      license: license
        ? {
            ...license,
            expiresAt,
            usage: license.usage && { ...license.usage, nextRefillAt: license.usage.nextRefillAt?.toISOString() ?? null },
            token,
          }
        : null,
    },
  );
}

/** From --public-key, else the key pinned for this server at sign-in; never fetched here. */
async function loadPublicKey(file: string | undefined): Promise<{ text: string; pinned: boolean }> {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`Cannot read --public-key ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    await importKey(text, `--public-key ${file}`);
    return { text, pinned: false };
  }
  const { url } = resolveConnection();
  const pinned = readConfig().publicKeys?.[url];
  if (!pinned) {
    throw new CliError(
      `No licensing public key is pinned for ${url}.`,
      'Run `keypanel login` (it pins the server\u2019s key), or pass --public-key FILE.',
    );
  }
  await importKey(pinned, 'the pinned public key');
  return { text: pinned, pinned: true };
}

async function importKey(text: string, what = 'the pinned public key') {
  try {
    return await importPublicKey(text.trim());
  } catch {
    throw new UsageError(`${what} is not an Ed25519 public key (PEM or JWK)`);
  }
}
