// What other features may use from the site-status feature.
export { usePublicSettings } from './api';
