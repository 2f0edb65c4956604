import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { QueryState } from '../../components/ui/query-state';
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
      <QueryState query={sessions} loading="Loading sessions…" failed="Could not load your sessions.">
        {(list) => (
          <ul className="session-list" aria-label="Active sessions">
            {list.map((s) => (
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
                    onClick={() => void onTerminate(s.id)}
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
      </QueryState>
    </Card>
  );
}
