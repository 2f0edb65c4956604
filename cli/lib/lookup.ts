// Commands name things the way a person does (a product's keyTag, a user's email or username, a
// license key itself); the API wants ids. These turn one into the other, or fail clearly.
import type { Schemas } from '../../worker/platform/api-client';
import { CliError } from './errors';
import type { Client } from './http';
import { MONGO_LIKE_ID } from './validate';

export async function findProduct(api: Client, ref: string): Promise<Schemas['Product']> {
  const products = await api.get('/api/products');
  const wanted = ref.trim();
  const product = products.find((p) => p._id === wanted) ?? products.find((p) => p.keyTag === wanted.toUpperCase());
  if (!product) throw new CliError(`No product with the id or key tag "${ref}".`, 'List them with `keypanel products list`.');
  return product;
}

/** A user by id, email or username (exact, case-insensitive). */
export async function findUserId(api: Client, ref: string): Promise<{ _id: string; username: string }> {
  const wanted = ref.trim().toLowerCase();
  if (MONGO_LIKE_ID.test(wanted)) return { _id: wanted, username: wanted };
  const { users } = await api.get('/api/admin/users', { search: wanted, limit: 100 });
  const user = users.find((u) => u.email.toLowerCase() === wanted || u.username.toLowerCase() === wanted);
  if (!user) throw new CliError(`No user with the email or username "${ref}".`, 'List them with `keypanel users list --search <prefix>`.');
  return user;
}

/** A license key by id or by the key itself. */
export async function findKey(api: Client, ref: string): Promise<{ _id: string; key: string }> {
  const wanted = ref.trim();
  if (MONGO_LIKE_ID.test(wanted)) return { _id: wanted, key: wanted };
  const key = wanted.toUpperCase();
  const { keys } = await api.get('/api/admin/keys', { search: key, limit: 100 });
  const found = keys.find((k: Schemas['LicenseKey']) => k.key === key);
  if (!found) throw new CliError(`No license key "${ref}" among the keys you manage.`);
  return found;
}
