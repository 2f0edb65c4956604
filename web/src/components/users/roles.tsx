// How the app shows a role, wherever one is shown or chosen (the header, the admin panel, API tokens):
// its name, its badge colour, and the roles as a select's options.
import { ROLES, type Role } from '../../../../worker/platform/vocabulary';
import { Badge, type BadgeTone } from '../ui/badge';

export const ROLE_LABELS: Record<Role, string> = { user: 'User', reseller: 'Reseller', owner: 'Owner' };
export const ROLE_TONES: Record<Role, BadgeTone> = { user: 'gray', reseller: 'blue', owner: 'purple' };

/** The role as the API spells it (the badge capitalises it). */
export function RoleBadge({ role }: { role: Role }) {
  return <Badge tone={ROLE_TONES[role]}>{role}</Badge>;
}

/** The roles, least power first, as the options of a select. */
export function RoleOptions({ roles = ROLES }: { roles?: readonly Role[] }) {
  return roles.map((role) => (
    <option key={role} value={role}>
      {ROLE_LABELS[role]}
    </option>
  ));
}
