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

type Notice = (typeof NOTICE_MAIL_KINDS)[number];

const NOTICES: { kind: Notice; label: string; hint: string }[] = [
  { kind: 'expiry_reminder', label: 'Expiry reminders', hint: 'Before a key runs out (none for a key that renews itself).' },
  { kind: 'receipt', label: 'Receipts', hint: 'Each purchase and renewal, with the key.' },
  { kind: 'auto_renew_failed', label: 'Failed auto-renewals', hint: 'When a key could not renew itself from your credits.' },
  { kind: 'low_balance', label: 'Low balance', hint: 'When your USD balance falls below the shop’s threshold, once until it recovers.' },
  { kind: 'new_device', label: 'New devices', hint: 'When a device you may not know starts using one of your keys.' },
];

const PREFERENCES = ['mail-preferences'] as const;

export function MailPreferencesCard() {
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
      toast.success(on ? `${label}: on` : `${label}: off`);
    } catch (err) {
      toast.error(errorMessage(err, 'Could not save your choice'));
    } finally {
      setPending(({ [kind]: _done, ...rest }) => rest);
    }
  }

  return (
    <section className="card" aria-labelledby="mail-preferences-heading">
      <h2 id="mail-preferences-heading">Mail</h2>
      <p className="muted small">
        Choose the notices you get by mail. Mail that keeps your account safe, such as a reset link, always goes.
      </p>
      <QueryState query={preferences} loading="Loading your mail choices…" failed="Could not load your mail choices.">
        {(data) => (
          <>
            {!data.shopSendsNotices && (
              <p className="notice notice-info" role="status">
                This shop sends no notices by mail at the moment; your choices apply when it does.
              </p>
            )}
            <fieldset className="field">
              <legend className="visually-hidden">Notices by mail</legend>
              {NOTICES.map(({ kind, label, hint }) => (
                <CheckboxField
                  key={kind}
                  label={label}
                  hint={hint}
                  checked={pending[kind] ?? data.notices[kind]}
                  onChange={(e) => void toggle(kind, e.target.checked, label)}
                />
              ))}
            </fieldset>
          </>
        )}
      </QueryState>
    </section>
  );
}
