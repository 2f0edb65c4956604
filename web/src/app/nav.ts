import type { Schemas } from '../../../worker/platform/api-client';
import type { IconName } from '../components/ui/icons';

export type NavItem = { to: string; label: string; icon: IconName };

export const MAIN_NAV: NavItem[] = [
  { to: '/dashboard', label: 'Dashboard', icon: 'grid' },
  { to: '/my-keys', label: 'My Keys', icon: 'key' },
  { to: '/purchase', label: 'Purchase', icon: 'plus' },
  { to: '/products', label: 'Products', icon: 'box' },
  { to: '/exchange', label: 'Exchange', icon: 'swap' },
];

/** The admin entry by role, spelled as the product spells it. */
export function adminNavItem(role: Schemas['Role']): NavItem | null {
  if (role === 'owner') return { to: '/admin', label: 'Admin Panel', icon: 'gear' };
  if (role === 'reseller') return { to: '/admin', label: 'Resseler Panel', icon: 'gear' };
  return null;
}
