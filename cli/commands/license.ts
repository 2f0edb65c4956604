// The licensing API from a terminal, as licensed software calls it (no sign-in), and the offline
// check of the token a VALID answer carries, with the server's public key alone.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { errors as joseErrors, importJWK, importSPKI, jwtVerify, type JWK } from 'jose';
import { z } from 'zod';
import { activateLicenseSchema, deactivateLicenseSchema, validateLicenseSchema, type LicenseAnswer } from '../../worker/schemas/licensing';
import { readConfig, resolveConnection } from '../lib/config';
import { contextOf, type CommandContext } from '../lib/context';
import { CliError, UsageError } from '../lib/errors';
import { notKeyPanel } from '../lib/http';
import { printRecord } from '../lib/output';
import { REPIN_HINT } from '../lib/pinned-key';
import { ask, closeInput } from '../lib/prompts';
import { parseWith } from '../lib/validate';

/** The issuer the server signs offline tokens with (worker/lib/license-signing.ts). */
const TOKEN_ISSUER = 'keypanel';

type CallOptions = { key: string; fingerprint: string; nonce?: string };

const ACTIONS = {
  activate: { schema: activateLicenseSchema, describe: 'Activate a key on a device (takes a device slot)' },
  validate: { schema: validateLicenseSchema, describe: 'Check a key on an activated device' },
  deactivate: { schema: deactivateLicenseSchema, describe: "Release a device's slot" },
} as const;

/** What printing an answer relies on; the answer is signed, but a stranger's is not. */
const licenseAnswerShape = z.object({ valid: z.boolean(), code: z.string(), license: z.object({ key: z.string() }).loose().nullable() }).loose();

/** A successful answer for each action; anything else exits 1 after printing the answer. */
const SUCCESS_CODES: Record<keyof typeof ACTIONS, string> = { activate: 'VALID', validate: 'VALID', deactivate: 'DEACTIVATED' };

export function registerLicenseCommands(program: Command) {
  const license = program
    .command('license')
    .description('Call the licensing API as licensed software does, and verify offline tokens')
    .addHelpText(
      'after',
      `
These calls need no sign-in; set the server with KEYPANEL_URL or \`keypanel login --url\`.
The answer is printed; the exit code is 0 for VALID (DEACTIVATED for deactivate), else 1.

Examples:
  $ keypanel license activate --key APP-XXXX-XXXX-XXXX --fingerprint device-0001
  $ keypanel license validate --key APP-XXXX-XXXX-XXXX --fingerprint device-0001 --nonce 42
  $ keypanel license deactivate --key APP-XXXX-XXXX-XXXX --fingerprint device-0001
  $ keypanel license verify-token eyJhbGciOiJFZERTQSJ9... --fingerprint device-0001
`,
    );

  for (const [action, { schema, describe }] of Object.entries(ACTIONS) as Array<[keyof typeof ACTIONS, (typeof ACTIONS)[keyof typeof ACTIONS]]>) {
    license
      .command(action)
      .description(describe)
      .requiredOption('--key <key>', 'the license key')
      .requiredOption('--fingerprint <fingerprint>', 'the device fingerprint (8-256 printable characters)')
      .option('--nonce <nonce>', 'echoed back in the signed answer')
      .addHelpText('after', `\nExample:\n  $ keypanel license ${action} --key APP-XXXX-XXXX-XXXX --fingerprint device-0001\n`)
      .action(async (options: CallOptions, command: Command) => {
        const ctx = contextOf(command);
        const body = parseWith(schema, { key: options.key, deviceFingerprint: options.fingerprint, nonce: options.nonce });
        const client = ctx.publicApi();
        const answer = await client.post<LicenseAnswer>(`/api/v1/licenses/${action}`, body);
        if (!licenseAnswerShape.safeParse(answer).success) throw notKeyPanel(client.url, null, 'a licensing answer this CLI cannot read');
        await printAnswer(ctx, answer);
        if (answer.code !== SUCCESS_CODES[action]) throw new CliError(`${answer.code}: ${answer.detail}`);
      });
  }

  license
    .command('verify-token')
    .description("Verify an offline token with the server's public key, without calling the licensing API")
    .argument('<token>', 'the token from a VALID answer, or - to read it from stdin')
    .option('--public-key <file>', 'the public key (PEM or JWK); by default the one pinned at `keypanel login`')
    .option('--fingerprint <fingerprint>', 'also require this device fingerprint')
    .option('--key <key>', 'also require this license key')
    .addHelpText(
      'after',
      `
The key is never fetched at the moment of checking: it is the one \`keypanel login\` pinned for
this server (re-pin after a deliberate rotation with \`keypanel login --repin\`), or --public-key.

Examples:
  $ keypanel license verify-token "$TOKEN" --fingerprint device-0001
  $ keypanel license verify-token - --public-key keypanel.pem < token.txt
`,
    )
    .action(async (tokenArg: string, options: { publicKey?: string; fingerprint?: string; key?: string }, command: Command) => {
      const ctx = contextOf(command);
      const token = tokenArg === '-' ? (await ask('', 'the token')).trim() : tokenArg.trim();
      closeInput();
      if (!/^[\w-]+\.[\w-]+\.[\w-]+$/.test(token)) throw new UsageError('That is not an offline token (three dot-separated base64url parts).');
      const { key: publicKey, pinned } = await loadPublicKey(options.publicKey);
      let claims: { sub?: string; fp?: unknown; product?: unknown; iat?: number; exp?: number };
      try {
        ({ payload: claims } = await jwtVerify(token, publicKey, { algorithms: ['EdDSA'], issuer: TOKEN_ISSUER }));
      } catch (err) {
        await printRecord(ctx.format, [['valid', false], ['reason', tokenProblem(err)]]);
        const rotated = pinned && err instanceof joseErrors.JWSSignatureVerificationFailed;
        throw new CliError(`The token is not valid: ${tokenProblem(err)}.`, rotated ? REPIN_HINT : undefined);
      }
      const mismatch =
        options.fingerprint !== undefined && claims.fp !== options.fingerprint
          ? 'it was issued for another device fingerprint'
          : options.key !== undefined && claims.sub !== options.key.trim().toUpperCase()
            ? 'it was issued for another license key'
            : null;
      const fields: Array<[string, string | boolean | null]> = [
        ['valid', mismatch === null],
        ['key', claims.sub ?? null],
        ['fingerprint', typeof claims.fp === 'string' ? claims.fp : null],
        ['product', typeof claims.product === 'string' ? claims.product : null],
        ['issuedAt', claims.iat ? new Date(claims.iat * 1000).toISOString() : null],
        ['expiresAt', claims.exp ? new Date(claims.exp * 1000).toISOString() : null],
      ];
      if (mismatch) fields.push(['reason', mismatch]);
      await printRecord(ctx.format, fields);
      if (mismatch) throw new CliError(`The token is not valid: ${mismatch}.`);
    });
}

async function printAnswer(ctx: CommandContext, answer: LicenseAnswer) {
  const license = answer.license;
  await printRecord(
    ctx.format,
    [
      ['valid', answer.valid],
      ['code', answer.code],
      ['detail', answer.detail],
      ['key', license?.key ?? null],
      ['status', license?.status ?? null],
      ['product', license ? `${license.product.name} (${license.product.keyTag})` : null],
      ['expiresAt', license?.expiresAt ?? null],
      ['activations', license ? `${license.activationCount}/${license.maxActivations}` : null],
      ['nonce', answer.nonce],
      ['token', license?.token ?? null],
    ],
    answer,
  );
}

function tokenProblem(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'it has expired';
  if (err instanceof joseErrors.JWSSignatureVerificationFailed) return 'the signature does not match this public key';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `its ${err.claim} claim is wrong`;
  if (err instanceof joseErrors.JOSEError) return 'it is malformed';
  throw err;
}

type VerifyKey = Awaited<ReturnType<typeof importSPKI>>;

/** From --public-key, else the key pinned for this server at sign-in; never fetched here. */
async function loadPublicKey(file: string | undefined): Promise<{ key: VerifyKey; pinned: boolean }> {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UsageError(`Cannot read --public-key ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    return { key: await importPublicKey(text, `--public-key ${file}`), pinned: false };
  }
  const { url } = resolveConnection();
  const pinned = readConfig().publicKeys?.[url];
  if (!pinned) {
    throw new CliError(`No licensing public key is pinned for ${url}.`, 'Run `keypanel login` (it pins the server\u2019s key), or pass --public-key FILE.');
  }
  return { key: await importPublicKey(pinned, 'the pinned public key'), pinned: true };
}

async function importPublicKey(text: string, what: string): Promise<VerifyKey> {
  try {
    if (text.trim().startsWith('{')) return (await importJWK(JSON.parse(text) as JWK, 'EdDSA')) as VerifyKey;
    return await importSPKI(text.trim(), 'EdDSA');
  } catch {
    throw new UsageError(`${what} is not an Ed25519 public key (PEM or JWK)`);
  }
}
