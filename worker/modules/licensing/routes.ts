// Where the licensing module's routes are mounted: the licensing API, and a customer's devices.
import { myDevicesRoutes } from './routes/devices';
import { licensesRoutes } from './routes/licenses';
import { LICENSES_PATH } from './signature';

export const licensingMounts = [
  [LICENSES_PATH, licensesRoutes],
  ['/api/users', myDevicesRoutes],
] as const;
