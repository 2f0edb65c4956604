import { Badge } from '../../components/ui/badge';
import { Card } from '../../components/ui/card';
import { QueryState } from '../../components/ui/query-state';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { formatDateTime, formatRelativeTime } from '../../lib/format';
import { useSessions, useTerminateSession } from './api';
import { FormattedMessage } from 'react-intl';
import { useT } from '../../lib/i18n';

export function SessionsCard() {
  const t = useT();
  const sessions = useSessions();
  const terminate = useTerminateSession();

  async function onTerminate(id: string) {
    try {
      await terminate.mutateAsync(id);
      toast.success(t('sessions.terminated'));
    } catch (err) {
      toast.error(errorMessage(err, t('sessions.terminateFailed')));
    }
  }

  return (
    <Card title={t('sessions.title')}>
      <QueryState query={sessions} loading={t('sessions.loading')} failed={t('sessions.loadFailed')}>
        {(list) => (
          <ul className="session-list" aria-label={t('sessions.title')}>
            {list.map((s) => (
              <li key={s.id} className="session-item">
                <div className="session-main">
                  <div className="session-title">
                    <FormattedMessage
                      id="sessions.browserOn"
                      values={{ browser: s.browser, device: s.device, strong: (chunks) => <strong>{chunks}</strong> }}
                    />{' '}
                    {s.current && <Badge tone="green">{t('sessions.thisDevice')}</Badge>}
                  </div>
                  <div className="session-meta muted">
                    {[s.location, s.ipAddress].filter(Boolean).join(' · ') || t('sessions.unknownLocation')} ·{' '}
                    <span title={formatDateTime(s.lastActive)}>{t('sessions.active', { when: formatRelativeTime(s.lastActive) })}</span>
                  </div>
                </div>
                {!s.current && (
                  <button
                    type="button"
                    className="btn btn-secondary btn-sm"
                    onClick={() => void onTerminate(s.id)}
                    disabled={terminate.isPending && terminate.variables === s.id}
                    aria-label={t('sessions.terminateLabel', { browser: s.browser, device: s.device })}
                  >
                    {t('sessions.terminate')}
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
