import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { PASSWORD_MIN } from '../../../../worker/modules/accounts/schemas/auth-rules';
import { passwordProblem, type PasswordOwner } from '../../../../worker/modules/accounts/schemas/password-policy';
import { PasswordStrength } from '../../components/PasswordStrength';
import { Card } from '../../components/ui/card';
import { Field } from '../../components/ui/field';
import { toast } from '../../components/ui/toast';
import { errorMessage } from '../../lib/api';
import { useCurrentUser } from '../../lib/session';
import { useChangePassword } from './api';
import { asyncHandler } from '../../lib/async-handler';
import { FormattedMessage } from 'react-intl';
import { translate, useT } from '../../lib/i18n';
import { validationMessage } from '../../lib/form/messages';
import { answerText } from '../../lib/server-words';

type Form = { currentPassword: string; newPassword: string; confirmPassword: string };
type Errors = Partial<Record<keyof Form, string>>;
const EMPTY: Form = { currentPassword: '', newPassword: '', confirmPassword: '' };

/** All three required, new and confirm match; and the password policy, as the server applies it. */
export function validatePasswordChange(form: Form, owner: PasswordOwner = {}): Errors {
  const errors: Errors = {};
  if (!form.currentPassword) errors.currentPassword = translate('passwordCard.currentRequired');
  const problem = passwordProblem(form.newPassword, owner);
  if (problem) errors.newPassword = validationMessage(problem);
  if (!form.confirmPassword) errors.confirmPassword = translate('passwordCard.confirmRequired');
  else if (form.confirmPassword !== form.newPassword) errors.confirmPassword = translate('passwordCard.mismatch');
  return errors;
}

export function PasswordCard({ hasPassword }: { hasPassword: boolean }) {
  const t = useT();
  const [form, setForm] = useState<Form>(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  // On by default: tokens made while the old password was known end with it.
  const [endApiTokens, setEndApiTokens] = useState(true);
  const change = useChangePassword();
  const user = useCurrentUser();
  const mayHoldApiTokens = user?.role === 'owner' || user?.role === 'reseller';
  const set = (field: keyof Form) => (e: React.ChangeEvent<HTMLInputElement>) => setForm((f) => ({ ...f, [field]: e.target.value }));

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const found = validatePasswordChange(form, user ?? {});
    setErrors(found);
    if (found.confirmPassword === t('passwordCard.mismatch')) toast.error(t('passwordCard.mismatch'));
    if (Object.keys(found).length) return;
    try {
      const answer = await change.mutateAsync({
        currentPassword: form.currentPassword,
        newPassword: form.newPassword,
        keepApiTokens: !endApiTokens,
      });
      toast.success(answerText(answer.message, t('passwordCard.changed')));
      setForm(EMPTY);
    } catch (err) {
      toast.error(errorMessage(err, t('passwordCard.failed')));
    }
  }

  if (!hasPassword) {
    return (
      <Card title={t('stepUp.password')}>
        <p className="muted">
          <FormattedMessage id="passwordCard.googleOnly" values={{ link: (chunks) => <Link to="/forgot-password">{chunks}</Link> }} />
        </p>
      </Card>
    );
  }

  return (
    <Card title={t('passwordCard.title')}>
      <form onSubmit={asyncHandler(onSubmit)} noValidate aria-label={t('passwordCard.title')}>
        <Field
          label={t('passwordCard.current')}
          type="password"
          name="currentPassword"
          autoComplete="current-password"
          value={form.currentPassword}
          onChange={set('currentPassword')}
          error={errors.currentPassword}
          required
        />
        <Field
          label={t('passwordCard.new')}
          type="password"
          name="newPassword"
          autoComplete="new-password"
          value={form.newPassword}
          onChange={set('newPassword')}
          error={errors.newPassword}
          hint={t('validation.passwordHint', { min: PASSWORD_MIN })}
          required
          minLength={PASSWORD_MIN}
        />
        <PasswordStrength password={form.newPassword} username={user?.username} email={user?.email} />
        <Field
          label={t('passwordCard.confirm')}
          type="password"
          name="confirmPassword"
          autoComplete="new-password"
          value={form.confirmPassword}
          onChange={set('confirmPassword')}
          error={errors.confirmPassword}
          required
          minLength={PASSWORD_MIN}
        />
        {mayHoldApiTokens && (
          <label className="checkbox">
            <input type="checkbox" checked={endApiTokens} onChange={(e) => setEndApiTokens(e.target.checked)} />{' '}
            {t('passwordCard.revokeTokens')}
          </label>
        )}
        <p className="field-hint">{t('passwordCard.signsOut')}</p>
        <button type="submit" className="btn btn-primary" disabled={change.isPending}>
          {change.isPending ? t('passwordCard.changing') : t('passwordCard.title')}
        </button>
      </form>
    </Card>
  );
}
