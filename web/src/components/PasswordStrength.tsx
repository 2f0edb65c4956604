// How strong a new password is, as it is typed: the policy's reason when it would be refused,
// otherwise zxcvbn-ts's score. zxcvbn-ts is loaded on the first keystroke, never with the page.
import { passwordProblem } from '../../../worker/modules/accounts/schemas/password-policy';
import { useEffect, useState } from 'react';
import { useT } from '../lib/i18n';
import { validationMessage } from '../lib/form/messages';

const LABELS = ['password.veryWeak', 'password.weak', 'password.fair', 'password.good', 'password.strong'] as const;
type Scorer = (password: string, userInputs: string[]) => number;
let loading: Promise<Scorer> | undefined;
const loadScorer = () => (loading ??= import('../lib/password-strength').then((m) => m.strengthScore));

export function PasswordStrength({ password, username, email }: { password: string; username?: string; email?: string }) {
  const t = useT();
  const [scorer, setScorer] = useState<Scorer | null>(null);
  useEffect(() => {
    if (!password || scorer) return;
    let live = true;
    loadScorer().then(
      (s) => live && setScorer(() => s),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [password, scorer]);
  if (!password) return null;

  const problem = validationMessage(passwordProblem(password, { username, email }));
  const score = problem ? 0 : scorer ? scorer(password, [username ?? '', email ?? '']) : null;
  const label = problem ?? (score === null ? t('password.checking') : t(LABELS[score]));
  return (
    <div className="password-strength" data-score={score ?? undefined}>
      <meter
        min={0}
        max={4}
        low={2}
        high={3}
        optimum={4}
        value={score ?? 0}
        aria-label={t('password.strengthLabel')}
        aria-valuetext={label}
      />
      <span aria-live="polite">
        {t('password.strength')} <strong>{problem ? t('password.notAllowed') : label}</strong>
        {problem && ` (${problem})`}
      </span>
    </div>
  );
}
