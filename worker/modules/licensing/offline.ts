// Air-gapped activation: a device that never reaches the network writes a request (its key, its
// fingerprint, a one-time nonce and the public half of a key pair of its own); the key's holder,
// signed in on a connected machine, turns it into a signed response here, and carries the response
// back. The request is unsigned data, so what is checked is the caller: the key must be theirs.
// One batch records the nonce (unique per key, so it is accepted once), takes the device's slot
// with the same conditional insert as an online activation (so the device counts against the
// key's limit under any concurrency), and gives the nonce back when the slot was refused.
// The device frees its slot with a proof signed by its own key, which only it holds: once.
import { rawSql, runBatch, sqlFirst, type Database } from '../../platform/db/client';
import { AppError, notFound } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { DAY_MS } from '../../platform/vocabulary';
import type { Settings } from '../settings';
import { dispatchCommitted, offlineActivationEvent } from '../webhooks';
import { deviceExitStatements } from './device-exit';
import {
  activationKeyStatement,
  boundDevices,
  describe,
  fullKeyStatement,
  iso,
  limitReached,
  LIVE,
  mayTakeDevice,
  productInactive,
  standing,
  swapBudgetExhausted,
  valid,
  type ActivationKeyRow,
  type FullKeyRow,
  type LicenseResult,
} from './licensing';
import { offlineProofBodySchema, type OfflineRequest } from './schemas';

type OwnedKey = { id: string; license_model: string | null };

/** The caller's own key, or 404 (another customer's key is as unknown as no key at all). */
async function ownedKey(db: Database, userId: string, key: string): Promise<OwnedKey> {
  const row = await sqlFirst<OwnedKey>(
    db,
    rawSql(
      'SELECT k.id, p.license_model FROM license_keys k LEFT JOIN products p ON p.id = k.product_id WHERE k.key = ?1 AND k.purchased_by = ?2',
      key,
      userId,
    ),
  );
  if (!row) throw notFound('License key');
  return row;
}

/** Turns an offline device's request into the result its signed response carries. */
export async function activateOffline(
  db: Database,
  settings: Settings,
  userId: string,
  request: OfflineRequest,
  now = Date.now(),
): Promise<LicenseResult> {
  const owned = await ownedKey(db, userId, request.key);
  if (owned.license_model === 'floating') {
    throw new AppError(
      'CONFLICT',
      "A floating license's seats are leased and renewed over the network, so they cannot be activated offline: borrow a seat instead.",
    );
  }
  const offlineId = newId(now);
  const activationId = newId(now);
  const fp = request.deviceFingerprint;
  const [nonceRow, inserted, , , after, ...events] = await runBatch(db, [
    // The nonce, once per key; under the same owner check, so a key given away meanwhile takes nothing.
    rawSql(
      `INSERT INTO offline_activations (id, key_id, device_fingerprint, nonce, device_key, issued_at)
         SELECT ?1, k.id, ?3, ?4, ?5, ?6 FROM license_keys k WHERE k.id = ?2 AND k.purchased_by = ?7
         ON CONFLICT (key_id, nonce) DO NOTHING
         RETURNING id`,
      offlineId,
      owned.id,
      fp,
      request.nonce,
      request.deviceKey,
      now,
      userId,
    ),
    // The online activation's limit, in the same one statement: other live devices, and the slots
    // released devices still hold, below the key's limit. A device already there keeps its row.
    rawSql(
      `INSERT INTO activations (id, key_id, device_fingerprint, device_info, activated_at, last_used)
         SELECT ?1, k.id, ?3, ?4, ?5, ?5
           FROM license_keys k LEFT JOIN products p ON p.id = k.product_id
          WHERE k.id = ?2 AND ${mayTakeDevice('?5', '?6')}
            AND EXISTS (SELECT 1 FROM offline_activations o WHERE o.id = ?7)
            AND (SELECT count(*) FROM activations c WHERE c.key_id = k.id AND c.device_fingerprint != ?3 AND ${LIVE('c', '?5')}
                   AND (c.replace_pending_at IS NULL OR EXISTS (SELECT 1 FROM activations o WHERE o.key_id = k.id AND o.device_fingerprint = ?3)))
              + (SELECT count(*) FROM held_slots h WHERE h.key_id = k.id AND h.frees_at > ?5 AND h.device_fingerprint != ?3) < k.max_activations
         ON CONFLICT (key_id, device_fingerprint) DO NOTHING
         RETURNING id`,
      activationId,
      owned.id,
      fp,
      request.deviceInfo ? JSON.stringify(request.deviceInfo) : null,
      now,
      settings.keyExpiryGracePeriod * DAY_MS,
      offlineId,
    ),
    // A refused request gives its nonce back (the same request may be brought again once a slot
    // frees), and so does one for a key that takes no device now (revoked, expired), even one it has.
    rawSql(
      `DELETE FROM offline_activations WHERE id = ?1
          AND (NOT EXISTS (SELECT 1 FROM activations a WHERE a.key_id = ?2 AND a.device_fingerprint = ?3 AND ${LIVE('a', '?4')})
               OR NOT EXISTS (SELECT 1 FROM license_keys k LEFT JOIN products p ON p.id = k.product_id WHERE k.id = ?2 AND ${mayTakeDevice('?4', '?5')}))`,
      offlineId,
      owned.id,
      fp,
      now,
      settings.keyExpiryGracePeriod * DAY_MS,
    ),
    // The activation this request made, if it made one: only that one can the device's proof free at once.
    rawSql(
      'UPDATE offline_activations SET activation_id = ?1 WHERE id = ?2 AND EXISTS (SELECT 1 FROM activations WHERE id = ?1)',
      activationId,
      offlineId,
    ),
    activationKeyStatement(request.key, fp, now),
    offlineActivationEvent(offlineId, now),
  ]);
  await dispatchCommitted(events, db);
  const row = (after as ActivationKeyRow[])[0];
  if (!row) throw notFound('License key');
  if ((nonceRow as unknown[]).length === 0) {
    return {
      valid: false,
      code: 'NONCE_ALREADY_USED',
      detail: 'This request was turned into a response before (its nonce is accepted once). Have the device write a new request.',
      license: describe(row, now),
    };
  }
  const s = standing(row, settings, now);
  if (s.code !== 'OK') return { valid: false, code: s.code, detail: s.detail, license: describe(row, now) };
  const made = (inserted as unknown[]).length === 1;
  if (row.activation_id !== null && (made || row.lease_expires_at === null)) {
    return valid(
      row,
      s,
      now,
      made ? 'Device activated offline' : 'Device already activated; a new offline token issued',
      'OFFLINE_ACTIVATED',
    );
  }
  if (row.status === 'available' && row.product_active !== 1) return productInactive(row, now);
  return { ...limitReached(row, now), devices: boundDevices(row) };
}

type ProofRow = {
  id: string;
  key_id: string;
  device_fingerprint: string;
  device_key: string;
  deactivated_at: number | null;
  activation_id: string | null;
};

const encoder = new TextEncoder();
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (ch) => ch.charCodeAt(0));

/** True when `signature` is the device key's (base64url `x`) over `text`. */
async function signedByDevice(deviceKey: string, text: string, signature: string): Promise<boolean> {
  try {
    const key = await crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: deviceKey }, { name: 'Ed25519' }, false, ['verify']);
    return await crypto.subtle.verify({ name: 'Ed25519' }, key, fromBase64(signature), encoder.encode(text));
  } catch {
    return false;
  }
}

const badProof = (message: string) => new AppError('VALIDATION_ERROR', message);

/**
 * Frees the slot of the device whose signed proof this is: once (the activation it names goes, and
 * its offline activations are marked), within the key's swap budget as the app's own deactivation.
 * The device erased its offline token as it wrote the proof, so the slot is not held afterwards.
 */
export async function deactivateOffline(
  db: Database,
  userId: string,
  file: { proof: string; signature: string },
  now = Date.now(),
): Promise<{ result: LicenseResult; deviceFingerprint: string; nonce: string }> {
  let text: unknown;
  try {
    text = JSON.parse(file.proof);
  } catch {
    throw badProof('proof must be the JSON text the SDK wrote');
  }
  const parsed = offlineProofBodySchema.safeParse(text);
  if (!parsed.success) throw badProof('proof is not a deactivation proof the SDK wrote (type, key, deviceFingerprint, nonce)');
  const proof = parsed.data;
  const owned = await ownedKey(db, userId, proof.key);
  const row = await sqlFirst<ProofRow>(
    db,
    rawSql(
      'SELECT id, key_id, device_fingerprint, device_key, deactivated_at, activation_id FROM offline_activations WHERE key_id = ?1 AND nonce = ?2',
      owned.id,
      proof.nonce,
    ),
  );
  // Only the device holds the private half of the key its request carried.
  if (!row || row.device_fingerprint !== proof.deviceFingerprint || !(await signedByDevice(row.device_key, file.proof, file.signature))) {
    throw badProof('This proof is not signed by the device of an offline activation of this key');
  }
  const fp = row.device_fingerprint;
  const result = (code: 'DEACTIVATED' | 'NOT_ACTIVATED', detail: string, key: FullKeyRow, count?: number): LicenseResult => ({
    valid: false,
    code,
    detail,
    slotFreesAt: code === 'DEACTIVATED' ? now : null,
    license: describe(key, now, count),
  });
  const [before] = await runBatch(db, [fullKeyStatement(proof.key, fp, now)]);
  const key = (before as FullKeyRow[])[0];
  if (!key) throw notFound('License key');
  if (row.deactivated_at !== null || key.activation_id === null) {
    return {
      result: result('NOT_ACTIVATED', 'This device was already deactivated; its slot is free', key),
      deviceFingerprint: fp,
      nonce: proof.nonce,
    };
  }
  // The device leaves by its one way out (device-exit.ts), within the swap budget, while the proof
  // is unused, so two proofs racing free one slot. Its slot is free at once only when this request
  // made the activation: a device activated online first may hold online tokens, so it stays held.
  const madeOffline = row.activation_id !== null && row.activation_id === key.activation_id;
  const exit = deviceExitStatements(
    {
      keyId: owned.id,
      activationId: key.activation_id,
      fingerprint: fp,
      budget: 'counted',
      slot: madeOffline ? 'proven-free' : 'held',
      when: (param) => `EXISTS (SELECT 1 FROM offline_activations WHERE id = ${param(row.id)} AND deactivated_at IS NULL)`,
    },
    now,
  );
  const results = await runBatch(db, [
    ...exit.statements,
    rawSql(
      `UPDATE offline_activations SET deactivated_at = ?3 WHERE key_id = ?1 AND device_fingerprint = ?2 AND deactivated_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM activations a WHERE a.key_id = ?1 AND a.device_fingerprint = ?2)`,
      owned.id,
      fp,
      now,
    ),
  ]);
  await dispatchCommitted(results, db);
  const gone = exit.outcome(results, 0);
  if (gone.left) {
    const freesAt = gone.slotFreesAt ?? now;
    const detail =
      gone.slotFreesAt === null
        ? `Device deactivated by its proof; its slot is free at ${iso(now)}`
        : `Device deactivated by its proof; it was activated online before, so it may hold online tokens: its slot frees at ${iso(freesAt)}`;
    return {
      result: { ...result('DEACTIVATED', detail, key, key.activation_count - 1), slotFreesAt: freesAt },
      deviceFingerprint: fp,
      nonce: proof.nonce,
    };
  }
  if (key.swap_limit !== null) {
    const after = await sqlFirst<{ gone: number }>(
      db,
      rawSql('SELECT deactivated_at IS NOT NULL AS gone FROM offline_activations WHERE id = ?1', row.id),
    );
    if (!after?.gone) return { result: swapBudgetExhausted(key, now), deviceFingerprint: fp, nonce: proof.nonce };
  }
  return {
    result: result('NOT_ACTIVATED', 'This device was already deactivated; its slot is free', key),
    deviceFingerprint: fp,
    nonce: proof.nonce,
  };
}
