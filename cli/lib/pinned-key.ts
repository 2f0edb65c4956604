// The licensing public key, pinned per server at `keypanel login` and kept in the config file.
// `license verify-token` trusts only this copy (or --public-key): a key fetched at the moment of
// checking would come from whoever answers then, which is what an offline check must not depend on.
import { z } from 'zod';
import type { StoredConfig } from './config';
import { CliError } from './errors';
import { notKeyPanel, type Client } from './http';

export const REPIN_HINT = 'If the server\u2019s signing key was rotated on purpose, pin the new one with `keypanel login --repin`.';

const publicKeyAnswer = z.object({ pem: z.string().includes('PUBLIC KEY') });

/** Same key whatever the line ends and surrounding blanks. */
const sameKey = (a: string, b: string) => a.replace(/\s+/g, '') === b.replace(/\s+/g, '');

/**
 * The server's current key, checked against the one pinned for it: a different key is an error
 * unless `repin` (the server may be an impostor). Null when the server offers none.
 */
export async function keyToPin(client: Client, config: StoredConfig, repin: boolean): Promise<string | null> {
  let answer: unknown;
  try {
    answer = await client.get('/api/v1/licenses/public-key');
  } catch {
    return null; // no licensing key on this server: nothing to pin, and sign-in still works
  }
  const parsed = publicKeyAnswer.safeParse(answer);
  if (!parsed.success) throw notKeyPanel(client.url, null, 'a licensing public key this CLI cannot read');
  const pinned = config.publicKeys?.[client.url];
  if (pinned && !sameKey(pinned, parsed.data.pem) && !repin) {
    throw new CliError(
      `The licensing public key of ${client.url} is not the one pinned at an earlier sign-in. Nothing was sent to it and nothing was changed.`,
      `${REPIN_HINT} If nobody rotated it, something else may be answering at that address.`,
    );
  }
  return parsed.data.pem;
}
