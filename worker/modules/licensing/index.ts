// The licensing module's public surface: what other modules may use of it. Its routes are mounted by
// worker/app.ts from routes.ts; everything else in the folder is the module's own.
export { removeActivation } from './licensing';
export { devicesExitStatements, exitingDevice, keyDevicesStatement, withinSwapBudget, type KeyDeviceRow } from './device-exit';
export { DEVICE_REMOVAL_INTERVAL_MS } from './devices';
export { LICENSES_PATH, signLicensingAnswers } from './signature';
