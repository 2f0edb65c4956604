// Tabs whose screens come with the shop's admin work (products, keys, direct purchase). Until
// then each says plainly what it will hold, instead of a screen that does nothing.
import { EmptyState } from '../../components/ui/card';
import type { TabProps } from './AdminPage';

function ComingSoon({ title, children }: { title: string; children: string }) {
  return (
    <section aria-label={title} className="admin-section">
      <h2>{title}</h2>
      <EmptyState title="Not available yet" icon="⌛">
        <p className="muted">{children}</p>
      </EmptyState>
    </section>
  );
}

export function ProductsTab() {
  return <ComingSoon title="Product Management">Creating, editing and deleting products arrives here with the shop’s admin tools.</ComingSoon>;
}

export function LicenseKeysTab({ user }: TabProps) {
  return user.role === 'reseller' ? (
    <ComingSoon title="My License Keys">The keys you created and sold will be listed here.</ComingSoon>
  ) : (
    <ComingSoon title="License Key Management">Searching, revoking and deleting license keys arrives here with the shop’s admin tools.</ComingSoon>
  );
}

export function DirectPurchaseTab({ user }: TabProps) {
  return user.role === 'reseller' ? (
    <ComingSoon title="Reseller Purchase">Buying keys for your customers with your credits arrives here soon.</ComingSoon>
  ) : (
    <ComingSoon title="Direct Purchase">Buying keys on behalf of users arrives here with the shop’s admin tools.</ComingSoon>
  );
}
