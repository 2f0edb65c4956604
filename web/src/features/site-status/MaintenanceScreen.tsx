// What a non-owner sees while maintenance mode is on: the server's message, and a way back in.
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { Icon } from '../../components/ui/icons';
import { sessionKeys, useLogout } from '../../lib/session';
import { asyncHandler } from '../../lib/async-handler';
import { useT } from '../../lib/i18n';

/** How often the screen asks whether maintenance is over. */
const RETRY_MS = 30_000;

export function MaintenanceScreen({ message }: { message: string }) {
  const t = useT();
  const queryClient = useQueryClient();
  const logout = useLogout();
  const [checking, setChecking] = useState(false);

  const check = useCallback(async () => {
    setChecking(true);
    // A profile that loads again clears the maintenance state (see lib/api.ts).
    await queryClient.refetchQueries({ queryKey: sessionKeys.profile }).catch(() => undefined);
    setChecking(false);
  }, [queryClient]);

  useEffect(() => {
    const timer = setInterval(() => void check(), RETRY_MS);
    return () => clearInterval(timer);
  }, [check]);

  return (
    <main className="maintenance-page">
      <div className="maintenance-card" role="status">
        <div className="maintenance-icon" aria-hidden="true">
          <Icon name="gear" size={32} />
        </div>
        <h1>{t('maintenance.title')}</h1>
        <p>{message}</p>
        <p className="muted">{t('maintenance.checksAgain')}</p>
        <div className="maintenance-actions">
          <button type="button" className="btn btn-primary" onClick={asyncHandler(check)} disabled={checking}>
            {checking ? t('password.checking') : t('common.tryAgain')}
          </button>
          <button
            type="button"
            className="btn btn-secondary"
            onClick={asyncHandler(async () => {
              await logout();
              window.location.assign('/login');
            })}
          >
            {t('maintenance.signOut')}
          </button>
        </div>
      </div>
    </main>
  );
}
