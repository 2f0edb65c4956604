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
import { schemaErrors, useForm } from '../../../lib/form';
import { formatCredits, formatDateTime } from '../../../lib/format';
import { useKeyUsage, useSetKeyEntitlements, useTopUpKey } from './api';

type LicenseKey = Schemas['LicenseKey'];
type Props = { licenseKey: LicenseKey; canManage: boolean; onChanged: (key: LicenseKey) => void };

export function KeyUsage({ licenseKey: key, canManage, onChanged }: Props) {
  const usage = useKeyUsage(key._id, canManage);
  const topUp = useTopUpKey();
  const granted = usage.data?.grantedEntitlements;

  const topUpForm = useForm({
    initial: { amount: '' },
    validate: (v) => schemaErrors(topUpSchema, { amount: Number(v.amount) }),
    submit: async (v) => {
      const amount = Number(v.amount);
      const answer = await topUp.mutateAsync({ keyId: key._id, amount });
      toast.success(`${formatCredits(amount)} uses added`);
      topUpForm.reset({ amount: '' });
      onChanged(answer.licenseKey);
    },
    onError: (err) => {
      toast.error(errorMessage(err, 'Failed to top up the key'));
      return null;
    },
  });

  return (
    <section aria-labelledby={`usage-${key._id}`}>
      <h3 className="section-title" id={`usage-${key._id}`}>
        Entitlements and usage
      </h3>
      {key.entitlements.length === 0 ? <p className="muted">No entitlements.</p> : <EntitlementList names={key.entitlements} />}
      {canManage && granted && <GrantForm key={granted.join(',')} keyId={key._id} granted={granted} onChanged={onChanged} />}
      {key.usage === null ? (
        <p className="muted">Its product is not metered.</p>
      ) : (
        <p data-testid="key-uses-left">
          Uses left: <strong>{formatCredits(key.usage.remaining)}</strong> (allowance {formatCredits(key.usage.allowance)})
          <RefillNote usage={key.usage} />
        </p>
      )}
      {canManage && key.usage !== null && (
        <>
          <form className="inline-form" onSubmit={topUpForm.onSubmit} noValidate aria-label="Top up this key">
            <Field label="Add uses" type="number" min={1} step={1} inputMode="numeric" {...topUpForm.field('amount')} />
            <button type="submit" className="btn btn-secondary" disabled={topUp.isPending}>
              {topUp.isPending ? 'Adding…' : 'Top up'}
            </button>
          </form>
          <QueryState
            query={usage}
            loading="Loading usage history…"
            failed="Could not load the usage history."
            isEmpty={(u) => u.history.length === 0}
            empty={<p className="muted">No uses yet.</p>}
          >
            {(u) => (
              <>
                <p className="muted small">
                  Used {formatCredits(u.consumed)} in all; {formatCredits(u.toppedUp)} added by top-ups.
                </p>
                <div className="table-wrap">
                  <table className="table">
                    <caption className="visually-hidden">Usage history, newest first</caption>
                    <thead>
                      <tr>
                        <th scope="col">When</th>
                        <th scope="col">What</th>
                        <th scope="col">Uses</th>
                        <th scope="col">Left after</th>
                      </tr>
                    </thead>
                    <tbody>
                      {u.history.map((h) => (
                        <tr key={h._id}>
                          <td>{formatDateTime(h.at)}</td>
                          <td>{h.kind === 'consume' ? 'Used by its app' : `Top-up by ${h.by?.username ?? 'the owner'}`}</td>
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
  const form = useForm({
    initial: { entitlements: granted.join(', ') },
    validate: (v) => schemaErrors(keyEntitlementsSchema, v),
    submit: async (v) => {
      const { entitlements } = keyEntitlementsSchema.parse(v);
      const answer = await setEntitlements.mutateAsync({ keyId, entitlements });
      toast.success('Entitlements saved');
      onChanged(answer.licenseKey);
    },
    onError: (err) => {
      toast.error(errorMessage(err, 'Failed to save the entitlements'));
      return null;
    },
  });
  return (
    <form className="inline-form" onSubmit={form.onSubmit} noValidate aria-label="Entitlements granted to this key">
      <Field
        label="Granted to this key"
        {...form.field('entitlements')}
        placeholder="beta, priority-support"
        hint="Beyond its product's: lowercase names separated by commas; empty removes them."
        autoCapitalize="none"
        spellCheck={false}
      />
      <button type="submit" className="btn btn-secondary" disabled={setEntitlements.isPending}>
        {setEntitlements.isPending ? 'Saving…' : 'Save entitlements'}
      </button>
    </form>
  );
}
