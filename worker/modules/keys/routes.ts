// Where the keys module's routes are mounted: a customer's purchase and keys, the owner's key work.
import { adminKeysRoutes } from './routes/admin-keys';
import { keysRoutes } from './routes/keys';
import { myKeysRoutes } from './routes/my-keys';

export const keysMounts = [
  ['/api/keys', keysRoutes],
  ['/api/users', myKeysRoutes],
  ['/api/admin/keys', adminKeysRoutes],
] as const;
