// Where the licensing module's routes are mounted: the licensing API, and a customer's devices and
// air-gapped activations.
import { myDevicesRoutes } from './routes/devices';
import { licensesRoutes } from './routes/licenses';
import { myOfflineRoutes } from './routes/offline';
import { LICENSES_PATH } from './signature';

export const licensingMounts = [
  [LICENSES_PATH, licensesRoutes],
  ['/api/users', myDevicesRoutes],
  ['/api/users', myOfflineRoutes],
] as const;
