// Where the accounts module's routes are mounted (worker/app.ts mounts every module's).
import { adminUsersRoutes } from './routes/admin-users';
import { authRoutes } from './routes/auth';
import { authGoogleRoutes } from './routes/auth-google';
import { usersRoutes } from './routes/users';

export const accountsMounts = [
  ['/api/auth', authRoutes],
  ['/api/auth/google', authGoogleRoutes],
  ['/api/users', usersRoutes],
  ['/api/admin/users', adminUsersRoutes],
] as const;
