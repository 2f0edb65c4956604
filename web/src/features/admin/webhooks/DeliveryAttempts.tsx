// Every attempt of a webhook delivery (issue 28), in the deliveries table's Attempts cell: the count,
// which opens (a native disclosure, so Enter or Space from the keyboard) onto one line per attempt,
// oldest first: when it started, the status code, how long it took, and the error or the start of
// the answer, the whole kept KB one more disclosure away. The attempts come with the deliveries page,
// so its loading state is the page's; a pending delivery says when its next attempt comes.
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Badge } from '../../../components/ui/badge';
import { formatDateTime, formatNumber } from '../../../lib/format';
import { translate } from '../../../lib/i18n';

/** How much of an answer shows before "Whole answer" is opened. */
const EXCERPT_LENGTH = 120;

type WebhookDelivery = Schemas['WebhookDelivery'];
type WebhookDeliveryAttempt = Schemas['WebhookDeliveryAttempt'];

function Answer({ attempt }: { attempt: WebhookDeliveryAttempt }) {
  if (attempt.error !== null) return <p className="delivery-attempt-error">{attempt.error}</p>;
  const body = attempt.responseBody;
  if (body === null || body.trim() === '') return <p className="muted small">{translate('admin.attempts.noBody')}</p>;
  const oneLine = body.replace(/\s+/g, ' ').trim();
  if (oneLine.length <= EXCERPT_LENGTH && !body.includes('\n')) return <code className="delivery-attempt-answer small">{body}</code>;
  return (
    <details className="delivery-attempt-answer">
      <summary>
        <code className="small">{oneLine.slice(0, EXCERPT_LENGTH)}…</code>{' '}
        <span className="small">{translate('admin.attempts.wholeAnswer')}</span>
      </summary>
      <pre className="mono small">{body}</pre>
    </details>
  );
}

function AttemptItem({ attempt }: { attempt: WebhookDeliveryAttempt }) {
  const status = attempt.responseStatus;
  const ok = status !== null && status >= 200 && status < 300;
  return (
    <li className="delivery-attempt">
      <div className="delivery-attempt-head">
        <strong>{translate('admin.attempts.attempt', { number: attempt.attempt })}</strong>
        <time dateTime={attempt.startedAt}>{formatDateTime(attempt.startedAt)}</time>
        <Badge tone={ok ? 'green' : 'red'}>{status === null ? translate('admin.attempts.noAnswer') : `HTTP ${status}`}</Badge>
        <span>{formatNumber(attempt.durationMs, { style: 'unit', unit: 'millisecond' })}</span>
      </div>
      <Answer attempt={attempt} />
    </li>
  );
}

export function DeliveryAttempts({ delivery }: { delivery: WebhookDelivery }) {
  const { attempts, attemptLog, status, nextAttemptAt } = delivery;
  const next =
    status === 'pending' && nextAttemptAt ? (
      <p className="muted small">{translate('admin.attempts.next', { when: formatDateTime(nextAttemptAt) })}</p>
    ) : null;
  if (attemptLog.length === 0) {
    return (
      <>
        {attempts}
        {status === 'pending' && attempts === 0 && <p className="muted small">{translate('admin.attempts.notSent')}</p>}
      </>
    );
  }
  const notKept = attempts - attemptLog.length;
  return (
    <details className="delivery-attempts">
      <summary>
        {attempts}
        <span className="visually-hidden"> {translate('admin.attempts.word', { count: attempts })}</span>
      </summary>
      {notKept > 0 && <p className="muted small">{translate('admin.attempts.notKept', { count: notKept })}</p>}
      <ol className="delivery-attempt-list" aria-label={translate('admin.attempts.list', { event: delivery.event, id: delivery.id })}>
        {attemptLog.map((a) => (
          <AttemptItem key={a.attempt} attempt={a} />
        ))}
      </ol>
      {next}
    </details>
  );
}
