// The keys' counters kept by triggers (shop_counts by status, migration 0032; product_key_counts and
// key_tag_counts, 0034) recounted from the keys themselves: one statement whose `n` is the number of
// counts that differ, either way (a counter at zero is no count). The benchmark checks it after its
// purchases, and the rows-read test on the shop it writes.

/** The rows of `a` not in `b` and of `b` not in `a`, counted (D1 allows few terms in one compound SELECT). */
const differing = (a: string, b: string) => `(SELECT count(*) FROM (${a} EXCEPT ${b})) + (SELECT count(*) FROM (${b} EXCEPT ${a}))`;

const byProduct = 'SELECT product_id, status, count(*) FROM license_keys GROUP BY 1, 2';
const byTag = "SELECT substr(key, 1, instr(key, '-') - 1), product_id, count(*) FROM license_keys WHERE instr(key, '-') > 0 GROUP BY 1, 2";
const byStatus = 'SELECT status, count(*) FROM license_keys GROUP BY 1';

export const MISCOUNTED_KEYS_SQL = `SELECT ${differing(byProduct, 'SELECT product_id, status, n FROM product_key_counts WHERE n != 0')}
  + ${differing(byTag, 'SELECT tag, product_id, n FROM key_tag_counts WHERE n != 0')}
  + ${differing(byStatus, "SELECT value, n FROM shop_counts WHERE kind = 'key_status' AND n != 0")} AS n`;
