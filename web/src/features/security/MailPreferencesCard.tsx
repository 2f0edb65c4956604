// The notices a customer gets by mail (reminders before a key expires, receipts, a failed
// auto-renewal, a low balance, a new device on a key), each on or off. Mail that keeps the account
// safe (a reset link, an address to confirm, a key given to them) always goes.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { NOTICE_MAIL_KINDS } from '../../../../worker/platform/vocabulary';
import { CheckboxField } from '../../components/ui/field';
import { QueryState } from '../../components/ui/query-state';
import { toast } from '../../components/ui/toast';
import { api, errorMessage } from '../../lib/api';
import { useT, type MessageId } from '../../lib/i18n';

type Notice = (typeof NOTICE_MAIL_KINDS)[number];

const NOTICES: { kind: Notice; label: MessageId; hint: MessageId }[] = [
  { kind: 'expiry_reminder', label: 'mailPrefs.expiry', hint: 'mailPrefs.expiryHint' },
  { kind: 'receipt', label: 'mailPrefs.receipts', hint: 'mailPrefs.receiptsHint' },
  { kind: 'auto_renew_failed', label: 'mailPrefs.autoRenew', hint: 'mailPrefs.autoRenewHint' },
  { kind: 'low_balance', label: 'mailPrefs.lowBalance', hint: 'mailPrefs.lowBalanceHint' },
  { kind: 'new_device', label: 'mailPrefs.newDevice', hint: 'mailPrefs.newDeviceHint' },
];

const PREFERENCES = ['mail-preferences'] as const;

export function MailPreferencesCard() {
  const t = useT();
  const queryClient = useQueryClient();
  const preferences = useQuery({
    queryKey: PREFERENCES,
    queryFn: ({ signal }) => api.get('/api/users/mail-preferences', undefined, signal),
  });
  // The box follows the click at once (kept here until the server's answer); a refusal puts it back.
  const [pending, setPending] = useState<Partial<Record<Notice, boolean>>>({});
  const change = useMutation({
    mutationFn: (notices: Partial<Record<Notice, boolean>>) => api.put('/api/users/mail-preferences', { notices }),
    onSuccess: (data) => queryClient.setQueryData(PREFERENCES, data),
  });

  async function toggle(kind: Notice, on: boolean, label: string) {
    setPending((now) => ({ ...now, [kind]: on }));
    try {
      await change.mutateAsync({ [kind]: on });
      toast.success(on ? t('mailPrefs.on', { label }) : t('mailPrefs.off', { label }));
    } catch (err) {
      toast.error(errorMessage(err, t('mailPrefs.saveFailed')));
    } finally {
      setPending(({ [kind]: _done, ...rest }) => rest);
    }
  }

  return (
    <section className="card" aria-labelledby="mail-preferences-heading">
      <h2 id="mail-preferences-heading">{t('mailPrefs.title')}</h2>
      <p className="muted small">{t('mailPrefs.body')}</p>
      <QueryState query={preferences} loading={t('mailPrefs.loading')} failed={t('mailPrefs.loadFailed')}>
        {(data) => (
          <>
            {!data.shopSendsNotices && (
              <p className="notice notice-info" role="status">
                {t('mailPrefs.shopSendsNone')}
              </p>
            )}
            <fieldset className="field">
              <legend className="visually-hidden">{t('mailPrefs.legend')}</legend>
              {NOTICES.map(({ kind, label, hint }) => (
                <CheckboxField
                  key={kind}
                  label={t(label)}
                  hint={t(hint)}
                  checked={pending[kind] ?? data.notices[kind]}
                  onChange={(e) => void toggle(kind, e.target.checked, t(label))}
                />
              ))}
            </fieldset>
          </>
        )}
      </QueryState>
    </section>
  );
}
