// What a non-owner sees while maintenance mode is on: the server's message, and a way back in.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Icon } from '../../components/ui/icons';
import { sessionKeys, useLogout } from '../../lib/session';

/** How often the screen asks whether maintenance is over. */
const RETRY_MS = 30_000;

export function MaintenanceScreen({ message }: { message: string }) {
  const queryClient = useQueryClient();
  const logout = useLogout();
  const [checking, setChecking] = useState(false);

  async function check() {
    setChecking(true);
    // A profile that loads again clears the maintenance state (see lib/api.ts).
    await queryClient.refetchQueries({ queryKey: sessionKeys.profile }).catch(() => undefined);
    setChecking(false);
  }

  useEffect(() => {
    const timer = setInterval(check, RETRY_MS);
    return () => clearInterval(timer);
  }, []);

  return (
    <main className="maintenance-page">
      <div className="maintenance-card" role="status">
        <div className="maintenance-icon" aria-hidden="true">
          <Icon name="gear" size={32} />
        </div>
        <h1>Down for maintenance</h1>
        <p>{message}</p>
        <p className="muted">This page checks again every 30 seconds.</p>
        <div className="maintenance-actions">
          <button type="button" className="btn btn-primary" onClick={check} disabled={checking}>
            {checking ? 'Checking…' : 'Try again'}
          </button>
          <button
            type="button"
            className="btn btn-secondary"
            onClick={async () => {
              await logout();
              window.location.assign('/login');
            }}
          >
            Sign out
          </button>
        </div>
      </div>
    </main>
  );
}
