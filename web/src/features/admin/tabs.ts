// The admin panel's tabs: which exist, which each role sees, and how a screen opens another.
import { useSearchParams } from 'react-router-dom';
import type { Schemas } from '../../../../worker/platform/api-client';
import type { IconName } from '../../components/ui/icons';
import type { MessageId } from '../../lib/i18n';

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

/** Each tab's name, a message. */
export const TAB_LABELS: Record<TabId, MessageId> = {
  overview: 'admin.tabs.overview',
  users: 'admin.tabs.users',
  resellers: 'admin.tabs.resellers',
  products: 'admin.tabs.products',
  keys: 'admin.tabs.keys',
  generate: 'admin.tabs.generate',
  purchase: 'admin.tabs.purchase',
  payments: 'admin.tabs.payments',
  webhooks: 'admin.tabs.webhooks',
  mail: 'admin.tabs.mail',
  settings: 'admin.tabs.settings',
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
