// Step-up, asked inline: sensitive actions (an API token, two-factor on or off, new recovery tokens,
// disconnecting Google) need the current password or a current code beyond the session. An account
// without a password may instead have signed in within the last 5 minutes (the server decides).
import { useState, type FormEvent, type ReactNode } from 'react';
import { CodeInput, isCompleteCode } from '../../components/ui/code-input';
import { Field } from '../../components/ui/field';
import { FormModal } from '../../components/ui/form-modal';
import { errorMessage } from '../../lib/api';
import { asyncHandler } from '../../lib/async-handler';

export type StepUpAccount = { hasPassword: boolean; twoFactorEnabled: boolean };
export type StepUpProof = { currentPassword?: string; code?: string };
export type StepUpState = { method: 'currentPassword' | 'code' | 'none'; currentPassword: string; code: string };

export const initialStepUp = (account: StepUpAccount): StepUpState => ({
  method: account.hasPassword ? 'currentPassword' : account.twoFactorEnabled ? 'code' : 'none',
  currentPassword: '',
  code: '',
});

export function stepUpProof(state: StepUpState): StepUpProof {
  if (state.method === 'currentPassword') return { currentPassword: state.currentPassword };
  if (state.method === 'code') return { code: state.code };
  return {};
}

export const stepUpReady = (state: StepUpState) =>
  state.method === 'none' || (state.method === 'code' ? isCompleteCode(state.code) : state.currentPassword.length > 0);

export function StepUpFields({
  account,
  value,
  onChange,
  autoFocus,
}: {
  account: StepUpAccount;
  value: StepUpState;
  onChange: (next: StepUpState) => void;
  autoFocus?: boolean;
}) {
  if (value.method === 'none') {
    return (
      <p className="field-hint">
        You signed in with Google, so a sign-in within the last 5 minutes confirms it is you. If this is refused, sign out, sign in again
        and retry.
      </p>
    );
  }
  return (
    <div className="step-up">
      {account.hasPassword && account.twoFactorEnabled && (
        <fieldset className="segmented">
          <legend className="visually-hidden">Confirm with</legend>
          <label className={value.method === 'currentPassword' ? 'active' : ''}>
            <input
              type="radio"
              name="step-up"
              checked={value.method === 'currentPassword'}
              onChange={() => onChange({ ...value, method: 'currentPassword' })}
            />{' '}
            Password
          </label>
          <label className={value.method === 'code' ? 'active' : ''}>
            <input type="radio" name="step-up" checked={value.method === 'code'} onChange={() => onChange({ ...value, method: 'code' })} />{' '}
            Authenticator code
          </label>
        </fieldset>
      )}
      {value.method === 'code' ? (
        <CodeInput
          label="Current code from your authenticator app"
          value={value.code}
          onChange={(code) => onChange({ ...value, code })}
          autoFocus={autoFocus}
        />
      ) : (
        <Field
          label="Confirm with your password"
          type="password"
          name="stepUpPassword"
          autoComplete="current-password"
          value={value.currentPassword}
          onChange={(e) => onChange({ ...value, currentPassword: e.target.value })}
          autoFocus={autoFocus}
        />
      )}
    </div>
  );
}

/** A dialog that confirms it is you, then runs `act` with the proof; the refusal shows inline. */
export function StepUpModal({
  open,
  title,
  account,
  submitLabel,
  busyLabel,
  tone,
  onClose,
  act,
  children,
}: {
  open: boolean;
  title: string;
  account: StepUpAccount;
  submitLabel: string;
  busyLabel: string;
  tone?: 'primary' | 'danger';
  onClose: () => void;
  act: (proof: StepUpProof) => Promise<unknown>;
  children?: ReactNode;
}) {
  const [state, setState] = useState(() => initialStepUp(account));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  function close() {
    setState(initialStepUp(account));
    setError(null);
    onClose();
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!stepUpReady(state) || busy) return;
    setBusy(true);
    try {
      await act(stepUpProof(state));
      setState(initialStepUp(account));
      setError(null);
    } catch (err) {
      setError(errorMessage(err, 'That did not work. Please try again.'));
    } finally {
      setBusy(false);
    }
  }

  return (
    <FormModal
      open={open}
      title={title}
      size="sm"
      onClose={close}
      busy={busy}
      formId="step-up"
      submitLabel={submitLabel}
      busyLabel={busyLabel}
      tone={tone}
      submitDisabled={!stepUpReady(state)}
    >
      <form id="step-up" onSubmit={asyncHandler(onSubmit)} noValidate aria-label={title}>
        {children}
        <StepUpFields account={account} value={state} onChange={setState} autoFocus />
        {error && (
          <div className="notice notice-error" role="alert">
            {error}
          </div>
        )}
      </form>
    </FormModal>
  );
}
