// The admin panel's tabs: which exist, and which each role sees.
import type { Schemas } from '../../../../worker/platform/api-client';
import type { IconName } from '../../components/ui/icons';

export const TAB_IDS = ['overview', 'users', 'products', 'keys', 'generate', 'purchase', 'payments', 'webhooks', 'settings'] as const;
export type TabId = (typeof TAB_IDS)[number];

export const TAB_LABELS: Record<TabId, string> = {
  overview: 'Overview',
  users: 'Users',
  products: 'Products',
  keys: 'License Keys',
  generate: 'Generate Keys',
  purchase: 'Direct Purchase',
  payments: 'Payments',
  webhooks: 'Webhooks',
  settings: 'Settings',
};

export const TAB_ICONS: Record<TabId, IconName> = {
  overview: 'chart',
  users: 'users',
  products: 'box',
  keys: 'key',
  generate: 'plus',
  purchase: 'dollar',
  payments: 'dollar',
  webhooks: 'swap',
  settings: 'gear',
};

export function tabsFor(role: Schemas['Role']): TabId[] {
  if (role === 'owner') return [...TAB_IDS];
  if (role === 'reseller') return ['overview', 'keys', 'purchase'];
  return [];
}

export const isTabId = (value: string | null): value is TabId => TAB_IDS.includes(value as TabId);
