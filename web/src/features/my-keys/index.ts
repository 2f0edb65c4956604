// What other features may use from the my-keys feature (the page itself loads on demand).
export { myKeysKeys } from './query-keys';
