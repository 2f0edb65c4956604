// The portability module's public surface: what other modules may use of it. Its routes are mounted
// by worker/app.ts from routes.ts; everything else in the folder is the module's own.
export { SHOP_TABLES, MY_DATA_TABLES } from './schemas';
