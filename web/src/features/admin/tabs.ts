// The admin panel's tabs: which exist, which each role sees, and how a screen opens another.
import { useSearchParams } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import type { IconName } from '../../components/ui/icons';

type Role = Schemas['Role'];

export const TAB_IDS = [
  'overview',
  'users',
  'resellers',
  'products',
  'keys',
  'generate',
  'purchase',
  'payments',
  'webhooks',
  'mail',
  'settings',
] as const;
export type TabId = (typeof TAB_IDS)[number];

export const TAB_LABELS: Record<TabId, string> = {
  overview: 'Overview',
  users: 'Users',
  resellers: 'Resellers',
  products: 'Products',
  keys: 'License Keys',
  generate: 'Generate Keys',
  purchase: 'Direct Purchase',
  payments: 'Payments',
  webhooks: 'Webhooks',
  mail: 'Mail',
  settings: 'Settings',
};

export const TAB_ICONS: Record<TabId, IconName> = {
  overview: 'chart',
  users: 'users',
  resellers: 'chart',
  products: 'box',
  keys: 'key',
  generate: 'plus',
  purchase: 'dollar',
  payments: 'dollar',
  webhooks: 'swap',
  mail: 'mail',
  settings: 'gear',
};

export function tabsFor(role: Role): TabId[] {
  if (role === 'owner') return [...TAB_IDS];
  if (role === 'reseller') return ['overview', 'keys', 'purchase'];
  return [];
}

export const isTabId = (value: string | null): value is TabId => TAB_IDS.includes(value as TabId);

/** Opens a tab: the tab is the page's `?tab=`, so the address and the history follow it. */
export function useSelectTab() {
  const [, setParams] = useSearchParams();
  return (tab: TabId) => setParams({ tab });
}
