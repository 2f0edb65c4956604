// Client state for maintenance mode: the server's message while it answers 503 MAINTENANCE,
// null otherwise. The API client sets it; the guard shows the maintenance screen while it is set.
import { atom } from 'jotai';
import { appStore } from './session/store';

export const maintenanceAtom = atom<string | null>(null);

export function noteMaintenance(message: string | null) {
  if (appStore.get(maintenanceAtom) !== message) appStore.set(maintenanceAtom, message);
}
