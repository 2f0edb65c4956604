// Generate Keys: owners only. Everyone else reads SPEC section 2's refusal.
import { EmptyState } from '../../components/ui/card';
import type { TabProps } from './AdminPage';

export const GENERATE_ACCESS_DENIED = 'Access Denied - Only owners can generate license keys. This feature is restricted to system administrators.';

export function GenerateKeysTab({ user }: TabProps) {
  if (user.role !== 'owner') {
    return (
      <div className="notice notice-error" role="alert">
        {GENERATE_ACCESS_DENIED}
      </div>
    );
  }
  return (
    <section aria-label="Generate License Keys" className="admin-section">
      <h2>Generate License Keys</h2>
      <EmptyState title="Not available yet" icon="⌛">
        <p className="muted">Generating keys for a product arrives here with the shop’s admin tools.</p>
      </EmptyState>
    </section>
  );
}
