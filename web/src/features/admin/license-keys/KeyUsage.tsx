// A key's entitlements and metered usage in its details: the entitlements it has (its product's and
// those granted to it), and for a metered product its uses left and history. The owner may grant or
// remove the key's own entitlements and top its uses up; each form is checked with the API's schema.
import { keyEntitlementsSchema, topUpSchema } from '../../../../../worker/modules/keys/schemas/admin-keys';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { EntitlementList, RefillNote } from '../../../components/KeyUsage';
import { Field } from '../../../components/ui/field';
import { QueryState } from '../../../components/ui/query-state';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import { useForm } from '../../../lib/form';
import { adminSchemaErrors } from '../schema-messages';
import { formatCredits, formatDateTime } from '../../../lib/format';
import { FormattedMessage } from 'react-intl';
import { useT } from '../../../lib/i18n';
import { useKeyUsage, useSetKeyEntitlements, useTopUpKey } from './api';

type LicenseKey = Schemas['LicenseKey'];
type Props = { licenseKey: LicenseKey; canManage: boolean; onChanged: (key: LicenseKey) => void };

export function KeyUsage({ licenseKey: key, canManage, onChanged }: Props) {
  const usage = useKeyUsage(key._id, canManage);
  const topUp = useTopUpKey();
  const granted = usage.data?.grantedEntitlements;
  const t = useT();

  const topUpForm = useForm({
    initial: { amount: '' },
    validate: (v) => adminSchemaErrors(topUpSchema, { amount: Number(v.amount) }),
    submit: async (v) => {
      const amount = Number(v.amount);
      const answer = await topUp.mutateAsync({ keyId: key._id, amount });
      toast.success(t('admin.usage.added', { count: amount }));
      topUpForm.reset({ amount: '' });
      onChanged(answer.licenseKey);
    },
    onError: (err) => {
      toast.error(errorMessage(err, t('admin.usage.topUpFailed')));
      return null;
    },
  });

  return (
    <section aria-labelledby={`usage-${key._id}`}>
      <h3 className="section-title" id={`usage-${key._id}`}>
        {t('admin.usage.title')}
      </h3>
      {key.entitlements.length === 0 ? (
        <p className="muted">{t('admin.usage.noEntitlements')}</p>
      ) : (
        <EntitlementList names={key.entitlements} />
      )}
      {canManage && granted && <GrantForm key={granted.join(',')} keyId={key._id} granted={granted} onChanged={onChanged} />}
      {key.usage === null ? (
        <p className="muted">{t('admin.usage.notMetered')}</p>
      ) : (
        <p data-testid="key-uses-left">
          <FormattedMessage
            id="admin.usage.usesLeft"
            values={{
              remaining: formatCredits(key.usage.remaining),
              allowance: formatCredits(key.usage.allowance),
              strong: (chunks) => <strong>{chunks}</strong>,
            }}
          />
          <RefillNote usage={key.usage} />
        </p>
      )}
      {canManage && key.usage !== null && (
        <>
          <form className="inline-form" onSubmit={topUpForm.onSubmit} noValidate aria-label={t('admin.usage.topUpForm')}>
            <Field label={t('admin.usage.addUses')} type="number" min={1} step={1} inputMode="numeric" {...topUpForm.field('amount')} />
            <button type="submit" className="btn btn-secondary" disabled={topUp.isPending}>
              {topUp.isPending ? t('admin.usage.adding') : t('admin.usage.topUp')}
            </button>
          </form>
          <QueryState
            query={usage}
            loading={t('admin.usage.loading')}
            failed={t('admin.usage.loadFailed')}
            isEmpty={(u) => u.history.length === 0}
            empty={<p className="muted">{t('admin.usage.empty')}</p>}
          >
            {(u) => (
              <>
                <p className="muted small">
                  {t('admin.usage.totals', { consumed: formatCredits(u.consumed), toppedUp: formatCredits(u.toppedUp) })}
                </p>
                <div className="table-wrap">
                  <table className="table">
                    <caption className="visually-hidden">{t('admin.usage.caption')}</caption>
                    <thead>
                      <tr>
                        <th scope="col">{t('admin.usage.when')}</th>
                        <th scope="col">{t('admin.usage.what')}</th>
                        <th scope="col">{t('admin.usage.uses')}</th>
                        <th scope="col">{t('admin.usage.leftAfter')}</th>
                      </tr>
                    </thead>
                    <tbody>
                      {u.history.map((h) => (
                        <tr key={h._id}>
                          <td>{formatDateTime(h.at)}</td>
                          <td>
                            {h.kind === 'consume'
                              ? t('admin.usage.usedByApp')
                              : h.by?.username
                                ? t('admin.usage.topUpBy', { username: h.by.username })
                                : t('admin.usage.topUpByOwner')}
                          </td>
                          <td>{h.kind === 'consume' ? `−${formatCredits(h.amount)}` : `+${formatCredits(h.amount)}`}</td>
                          <td>{formatCredits(h.remaining)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </>
            )}
          </QueryState>
        </>
      )}
    </section>
  );
}

/** The entitlements granted to this key beyond its product's, as the owner edits them. */
function GrantForm({ keyId, granted, onChanged }: { keyId: string; granted: string[]; onChanged: (key: LicenseKey) => void }) {
  const setEntitlements = useSetKeyEntitlements();
  const t = useT();
  const form = useForm({
    initial: { entitlements: granted.join(', ') },
    validate: (v) => adminSchemaErrors(keyEntitlementsSchema, v),
    submit: async (v) => {
      const { entitlements } = keyEntitlementsSchema.parse(v);
      const answer = await setEntitlements.mutateAsync({ keyId, entitlements });
      toast.success(t('admin.usage.entitlementsSaved'));
      onChanged(answer.licenseKey);
    },
    onError: (err) => {
      toast.error(errorMessage(err, t('admin.usage.entitlementsFailed')));
      return null;
    },
  });
  return (
    <form className="inline-form" onSubmit={form.onSubmit} noValidate aria-label={t('admin.usage.grantForm')}>
      <Field
        label={t('admin.usage.granted')}
        {...form.field('entitlements')}
        placeholder="beta, priority-support"
        hint={t('admin.usage.grantedHint')}
        autoCapitalize="none"
        spellCheck={false}
      />
      <button type="submit" className="btn btn-secondary" disabled={setEntitlements.isPending}>
        {setEntitlements.isPending ? t('admin.usage.saving') : t('admin.usage.saveEntitlements')}
      </button>
    </form>
  );
}
