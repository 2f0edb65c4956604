// What other features may use from the dashboard feature (the page itself loads on demand).
export { dashboardKeys } from './query-keys';
