import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { Spinner } from '../../components/ui/spinner';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { formatDateTime, formatRelativeTime } from '../../lib/format';
import { useSessions, useTerminateSession } from './api';

export function SessionsCard() {
  const sessions = useSessions();
  const terminate = useTerminateSession();

  async function onTerminate(id: string) {
    try {
      await terminate.mutateAsync(id);
      toast.success('Session terminated');
    } catch (err) {
      toast.error(errorMessage(err, 'Failed to terminate session'));
    }
  }

  return (
    <Card title="Active sessions">
      {sessions.isPending ? (
        <Spinner label="Loading sessions…" />
      ) : sessions.isError ? (
        <div className="notice notice-error" role="alert">
          Could not load your sessions.{' '}
          <button type="button" className="link-button" onClick={() => sessions.refetch()}>
            Try again
          </button>
        </div>
      ) : (
        <ul className="session-list" aria-label="Active sessions">
          {sessions.data.map((s) => (
            <li key={s.id} className="session-item">
              <div className="session-main">
                <div className="session-title">
                  <strong>{s.browser}</strong> on {s.device} {s.current && <Badge tone="green">This device</Badge>}
                </div>
                <div className="session-meta muted">
                  {[s.location, s.ipAddress].filter(Boolean).join(' · ') || 'Unknown location'} ·{' '}
                  <span title={formatDateTime(s.lastActive)}>Active {formatRelativeTime(s.lastActive)}</span>
                </div>
              </div>
              {!s.current && (
                <button
                  type="button"
                  className="btn btn-secondary btn-sm"
                  onClick={() => onTerminate(s.id)}
                  disabled={terminate.isPending && terminate.variables === s.id}
                  aria-label={`Terminate session: ${s.browser} on ${s.device}`}
                >
                  Terminate
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
