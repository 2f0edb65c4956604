// Generate Keys: owners only. Everyone else reads its refusal.
import { useCurrentUser } from '../../../lib/session';
import { GenerateKeysForm } from './GenerateKeysForm';
import { ImportSection } from './ImportSection';

export const GENERATE_ACCESS_DENIED =
  'Access Denied - Only owners can generate license keys. This feature is restricted to system administrators.';

export function GenerateKeysTab() {
  const user = useCurrentUser()!;
  if (user.role !== 'owner') {
    return (
      <div className="notice notice-error" role="alert">
        {GENERATE_ACCESS_DENIED}
      </div>
    );
  }
  return (
    <>
      <section aria-label="Generate License Keys" className="admin-section">
        <div className="section-head">
          <div>
            <h2>Generate License Keys</h2>
            <p className="muted">Free keys for a product, available until their first activation.</p>
          </div>
        </div>
        <GenerateKeysForm />
      </section>
      <ImportSection />
    </>
  );
}
