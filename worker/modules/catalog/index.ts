// The catalog module's public surface: what other modules may use of it. Its routes are mounted by
// worker/app.ts from routes.ts; everything else in the folder is the module's own.
export {
  assertOfferedDuration,
  findProduct,
  forgetProduct,
  purchasable,
  recentProduct,
  rememberProduct,
  type ProductRow,
} from './products';
export { DEFAULT_OFFLINE_TOKEN_HOURS, isOfferedDuration, MAX_OFFLINE_TOKEN_HOURS, quote, type Quote } from './schemas';
export { entitlementsSql, keyEntitlements, usageJson, usageJsonSql, usageNow, usageSql, type Usage, type UsageFields } from './usage';
