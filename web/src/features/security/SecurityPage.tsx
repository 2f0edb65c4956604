// /settings/security: password, two-factor and recovery tokens, Google, sessions, the log.
import { useEffect } from 'react';
import { PageSpinner } from '../../components/ui/spinner';
import { toast } from '../../components/ui/toast';
import { useSecurityInfo } from './api';
import { ApiTokensSection } from './ApiTokensSection';
import { GoogleCard } from './GoogleCard';
import { PasswordCard } from './PasswordCard';
import { RecoveryTokensCard } from './RecoveryTokensCard';
import { SecurityLogCard } from './SecurityLogCard';
import { SessionsCard } from './SessionsCard';
import { MailPreferencesCard } from './MailPreferencesCard';
import { MyDataCard } from './MyDataCard';
import { TwoFactorCard } from './TwoFactorCard';
import { useT } from '../../lib/i18n';

export function SecurityPage() {
  const t = useT();
  const info = useSecurityInfo();

  useEffect(() => {
    if (info.isError) toast.error(t('security.loadFailedToast'));
  }, [info.isError, t]);

  return (
    <div className="page">
      <header className="page-header">
        <h1>{t('security.title')}</h1>
        <p className="muted">{t('security.subtitle')}</p>
      </header>
      {info.isPending ? (
        <PageSpinner label={t('security.loading')} />
      ) : info.isError ? (
        <div className="notice notice-error" role="alert">
          {t('security.loadFailed')}{' '}
          <button type="button" className="link-button" onClick={() => void info.refetch()}>
            {t('common.tryAgain')}
          </button>
        </div>
      ) : (
        <div className="security-grid">
          <PasswordCard hasPassword={info.data.hasPassword} />
          <div className="security-column">
            <TwoFactorCard enabled={info.data.twoFactorEnabled} hasPassword={info.data.hasPassword} />
            {info.data.twoFactorEnabled && <RecoveryTokensCard remaining={info.data.recoveryTokens} account={info.data} />}
            <GoogleCard info={info.data} />
          </div>
          <ApiTokensSection account={info.data} />
          <div className="security-wide">
            <SessionsCard />
          </div>
          <div className="security-wide">
            <SecurityLogCard />
          </div>
          <div className="security-wide">
            <MailPreferencesCard />
          </div>
          <div className="security-wide">
            <MyDataCard />
          </div>
        </div>
      )}
    </div>
  );
}
