// /api/admin/import (owner): licences from another system or an export, a chunk per request.
// /api/admin/export (owner): the whole shop, or one table (the ledger and the audit log for a date
// range); /api/users/my-data (any signed-in account): their own data. Both streamed.
import { Hono } from 'hono';
import type { SignedInEnv } from '../../platform/context';
import { jsonBody, queryParams } from '../../platform/validate';
import { appUrl } from '../../platform/app-url';
import { mailTransport } from '../../platform/mail';
import { queueMails } from '../mail';
import { clientIp } from '../../platform/request';
import { proveCaller, routeOperations } from '../accounts';
import { exportMyData, exportShop } from './export';
import { importChunk } from './import';
import {
  EXPORT_MEDIA_TYPES,
  importRequestSchema,
  importResultSchema,
  myDataQuery,
  shopExportQuery,
  type ExportFormat,
  type ImportResult,
} from './schemas';

const exported = (description: string) => ({ 200: { description, mediaType: Object.values(EXPORT_MEDIA_TYPES) } });

function download(stream: ReadableStream<Uint8Array>, format: ExportFormat, name: string, now: Date) {
  const file = `${name}-${now.toISOString().slice(0, 10)}.${format}`;
  return new Response(stream, {
    status: 200,
    headers: { 'content-type': `${EXPORT_MEDIA_TYPES[format]}; charset=utf-8`, 'content-disposition': `attachment; filename="${file}"` },
  });
}

const adminOp = routeOperations({ tag: 'Admin', access: 'owner' });
const adminRoutes = new Hono<SignedInEnv>()
  .get(
    '/export',
    adminOp(
      'exportShop',
      'The whole shop, or one table, streamed as JSON lines or CSV',
      exported(
        'JSON lines (`application/x-ndjson`): a first line `{"table":"export","row":{...}}`, then one `{"table","row"}` line per row, table by table (users without secrets, products, keys, devices, ledger, payments, audit). CSV (`text/csv`): the one table named, with a header row.',
      ),
      { errors: [400] },
    ),
    queryParams(shopExportQuery),
    async (c) => {
      const query = c.req.valid('query');
      const now = new Date();
      const name = query.table ? `keypanel-${query.table}` : 'keypanel-shop';
      return download(await exportShop(c.var.db, query, now), query.format, name, now);
    },
  )
  .post(
    '/import',
    adminOp(
      'importKeys',
      'Import licences (KeyPanel, Keygen, Lemon Squeezy or Gumroad records), one chunk of a file per request, or plan it (dryRun); step-up to keep resellers and verified addresses',
      { 200: importResultSchema },
      { proof: 'conditional', errors: [400, 403] },
    ),
    jsonBody(importRequestSchema),
    async (c) => {
      const { currentPassword, code, ...request } = c.req.valid('json');
      // Proof is asked only when given: an import without it grants no power (import.ts).
      const proven =
        currentPassword !== undefined || code !== undefined
          ? (await proveCaller(c, { currentPassword, code }, 'import resellers or verified accounts'), true)
          : false;
      const { newAccounts, ...result } = await importChunk({ db: c.var.db, actor: c.var.caller, ip: clientIp(c), proven }, request);
      // Whether the accounts made are (in a dry run: would be) mailed how to sign in.
      const url = request.notify && c.env.APP_URL?.trim() ? appUrl(c, 'the sign-in mail of imported accounts') : null;
      const signInMail: ImportResult['signInMail'] = !request.notify
        ? 'off'
        : !url || mailTransport(c.env) === 'none'
          ? 'not-configured'
          : 'sent';
      // Each goes by the mail queue, after the answer.
      if (newAccounts.length && signInMail === 'sent')
        await queueMails(
          c.var.db,
          newAccounts.map((account) => ({ kind: 'import_invitation', userId: account.id, data: { url: `${url}/forgot-password` } })),
        );
      const body: ImportResult = { ...result, signInMail: newAccounts.length || result.story.accounts ? signInMail : 'off' };
      return c.json(body, 200);
    },
  );

const accountOp = routeOperations({ tag: 'Account', access: 'user' });
const accountRoutes = new Hono<SignedInEnv>().get(
  '/my-data',
  accountOp(
    'exportMyData',
    'Your own data (account, keys, devices, payments, security log), streamed as JSON lines or CSV',
    exported('JSON lines or, for the one table named, CSV; as the shop export writes them.'),
    { errors: [400] },
  ),
  queryParams(myDataQuery),
  async (c) => {
    const query = c.req.valid('query');
    const now = new Date();
    return download(await exportMyData(c.var.db, c.var.caller, query, now), query.format, 'keypanel-my-data', now);
  },
);

export const portabilityMounts = [
  ['/api/admin', adminRoutes],
  ['/api/users', accountRoutes],
] as const;
