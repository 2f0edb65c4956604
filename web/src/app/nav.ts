import type { Schemas } from '../../../worker/platform/api-client';
import type { IconName } from '../components/ui/icons';
import type { MessageId } from '../lib/i18n';

/** `label` is a message id: the layout shows it in the language in force. */
export type NavItem = { to: string; label: MessageId; icon: IconName };

export const MAIN_NAV: NavItem[] = [
  { to: '/dashboard', label: 'nav.dashboard', icon: 'grid' },
  { to: '/my-keys', label: 'nav.myKeys', icon: 'key' },
  { to: '/purchase', label: 'nav.purchase', icon: 'plus' },
  { to: '/products', label: 'nav.products', icon: 'box' },
  { to: '/exchange', label: 'nav.exchange', icon: 'swap' },
];

/** The admin entry by role, spelled as the product spells it. */
export function adminNavItem(role: Schemas['Role']): NavItem | null {
  if (role === 'owner') return { to: '/admin', label: 'nav.adminPanel', icon: 'gear' };
  if (role === 'reseller') return { to: '/admin', label: 'nav.resellerPanel', icon: 'gear' };
  return null;
}
