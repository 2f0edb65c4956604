// The route guard: spinner while loading, /login remembering the way, role check.
import { useAtomValue } from 'jotai';
import { useEffect, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import type { Schemas } from '../../../worker/platform/api-client';
import { PageSpinner } from '../components/ui/spinner';
import { MaintenanceScreen } from '../features/site-status/MaintenanceScreen';
import { maintenanceAtom } from '../lib/maintenance';
import { clearSession, tokenAtom, useProfile } from '../lib/session';
import { useT } from '../lib/i18n';

export function RequireAuth({ roles, children }: { roles?: Schemas['Role'][]; children: ReactNode }) {
  const t = useT();
  const token = useAtomValue(tokenAtom);
  const location = useLocation();
  const profile = useProfile();
  const maintenance = useAtomValue(maintenanceAtom);
  // Maintenance answers every call with 503: that is no reason to sign the user out.
  const failedAtStartup = profile.isError && !profile.data && !maintenance;

  // A stored token whose profile cannot be fetched signs the user out.
  useEffect(() => {
    if (token && failedAtStartup) clearSession();
  }, [token, failedAtStartup]);

  if (token && maintenance) return <MaintenanceScreen message={maintenance} />;
  if (!token || failedAtStartup)
    return <Navigate to="/login" state={{ from: { pathname: location.pathname, search: location.search } }} replace />;
  if (!profile.data) return <PageSpinner label={t('shell.checkingSession')} />;
  if (roles && !roles.includes(profile.data.role)) return <Navigate to="/dashboard" replace />;
  return <>{children}</>;
}
