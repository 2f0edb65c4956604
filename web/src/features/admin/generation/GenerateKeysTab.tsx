// Generate Keys: owners only. Everyone else reads its refusal.
import { useT } from '../../../lib/i18n';
import { useCurrentUser } from '../../../lib/session';
import { GenerateKeysForm } from './GenerateKeysForm';
import { ImportSection } from './ImportSection';

export function GenerateKeysTab() {
  const user = useCurrentUser()!;
  const t = useT();
  if (user.role !== 'owner') {
    return (
      <div className="notice notice-error" role="alert">
        {t('admin.generate.accessDenied')}
      </div>
    );
  }
  return (
    <>
      <section aria-label={t('admin.generate.title')} className="admin-section">
        <div className="section-head">
          <div>
            <h2>{t('admin.generate.title')}</h2>
            <p className="muted">{t('admin.generate.subtitle')}</p>
          </div>
        </div>
        <GenerateKeysForm />
      </section>
      <ImportSection />
    </>
  );
}
