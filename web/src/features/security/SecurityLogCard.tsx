import { Card, EmptyState } from '../../components/ui/card';
import { Spinner } from '../../components/ui/spinner';
import { formatDateTime } from '../../lib/format';
import { useSecurityLog } from './api';
import { eventLabel, WARNING_EVENTS } from './events';

export function SecurityLogCard() {
  const log = useSecurityLog();
  return (
    <Card title="Security log">
      {log.isPending ? (
        <Spinner label="Loading the security log…" />
      ) : log.isError ? (
        <div className="notice notice-error" role="alert">
          Could not load the security log.{' '}
          <button type="button" className="link-button" onClick={() => log.refetch()}>
            Try again
          </button>
        </div>
      ) : log.data.length === 0 ? (
        <EmptyState title="No security events yet" />
      ) : (
        // Scrolls within a fixed height; focusable so the keyboard can scroll it too.
        <div className="table-wrap security-log" tabIndex={0} role="region" aria-label="Security log entries">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">IP address</th>
                <th scope="col">Date and time</th>
              </tr>
            </thead>
            <tbody>
              {log.data.map((entry) => (
                <tr key={entry._id} className={WARNING_EVENTS.has(entry.event) ? 'log-warning' : undefined}>
                  <td>{eventLabel(entry.event)}</td>
                  <td className="mono">{entry.ipAddress ?? '—'}</td>
                  <td>{formatDateTime(entry.timestamp)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
