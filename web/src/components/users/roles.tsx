// How the app shows a role, wherever one is shown or chosen (the header, the admin panel, API tokens):
// its name, its badge colour, and the roles as a select's options.
import { ROLES, type Role } from '../../../../worker/platform/vocabulary';
import { Badge, type BadgeTone } from '../ui/badge';
import { translate } from '../../lib/i18n';

/** Each role's name in the language in force (read when shown, so a change of language follows). */
export const ROLE_LABELS: Record<Role, string> = {
  get user() {
    return translate('roles.user');
  },
  get reseller() {
    return translate('roles.reseller');
  },
  get owner() {
    return translate('roles.owner');
  },
};
export const ROLE_TONES: Record<Role, BadgeTone> = { user: 'gray', reseller: 'blue', owner: 'purple' };

/** The role's name (the badge capitalises it). */
export function RoleBadge({ role }: { role: Role }) {
  return <Badge tone={ROLE_TONES[role]}>{ROLE_LABELS[role] ?? role}</Badge>;
}

/** The roles, least power first, as the options of a select. */
export function RoleOptions({ roles = ROLES }: { roles?: readonly Role[] }) {
  return roles.map((role) => (
    <option key={role} value={role}>
      {ROLE_LABELS[role]}
    </option>
  ));
}
