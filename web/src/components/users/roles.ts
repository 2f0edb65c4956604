// How the app shows a role: its badge colour, wherever a role is shown (the header, the admin panel).
import type { Role } from '@schemas/entities';
import type { BadgeTone } from '../ui/badge';

export const ROLE_TONES: Record<Role, BadgeTone> = { user: 'gray', reseller: 'blue', owner: 'purple' };
