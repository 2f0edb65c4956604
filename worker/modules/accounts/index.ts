// The accounts module's public surface: what other modules may use of it. Its routes are mounted by
// worker/app.ts from routes.ts; everything else in the folder is the module's own.
export { routeOperations } from './operation';
export { proveCaller } from './signed-in';
export { findUserById, toUserJson, type UserRow } from './users';
