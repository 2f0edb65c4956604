// Step-up, asked inline: sensitive actions (an API token, two-factor on or off, new recovery tokens,
// Google, making a reseller or an owner, a webhook endpoint's address) need the current password or
// a current code beyond the session. An account without a password may instead have signed in within
// the last 5 minutes (the server decides). Shared by the security page and the admin panel.
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { CodeInput, isCompleteCode } from './ui/code-input';
import { Field } from './ui/field';
import { FormModal } from './ui/form-modal';
import { Spinner } from './ui/spinner';
import { ApiError, errorMessage } from '../lib/api';
import { asyncHandler } from '../lib/async-handler';
import { useStepUpAccount } from '../lib/step-up';
import { translate, useT } from '../lib/i18n';

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

/** What to say when the proof is not filled in yet. */
export const stepUpMissing = (state: StepUpState) =>
  state.method === 'code' ? translate('stepUp.enterCode') : translate('stepUp.enterPassword');

/** The server refused the proof (403 REAUTH_REQUIRED): its message says why, and nothing changed. */
export const isProofRefused = (err: unknown): err is ApiError => err instanceof ApiError && err.code === 'REAUTH_REQUIRED';

/** The same method, nothing typed: after a refusal the password or code is asked again. */
export const clearedStepUp = (state: StepUpState): StepUpState => ({ ...state, currentPassword: '', code: '' });

/**
 * The proof a form asks for inline, as it is typed. `value` is null until the account's ways to
 * prove (`account`) are known; `reset` forgets what was typed.
 */
export function useStepUp(account: StepUpAccount | undefined) {
  const [edited, setEdited] = useState<StepUpState | null>(null);
  const value = edited ?? (account ? initialStepUp(account) : null);
  return { value, set: setEdited, reset: () => setEdited(null) };
}

export function StepUpFields({
  account,
  value,
  onChange,
  autoFocus,
  error,
  inputId,
}: {
  account: StepUpAccount;
  value: StepUpState;
  onChange: (next: StepUpState) => void;
  /** Inside a dialog: the field takes focus when the dialog opens (the dialog gives it back to the opener). */
  autoFocus?: boolean;
  /** The refusal, tied to the password or code field (announced, and described by it). */
  error?: string | null;
  /** The password or code field's id, for a form that moves focus to it after a refusal. */
  inputId?: string;
}) {
  const t = useT();
  if (value.method === 'none') {
    return (
      <>
        <p className="field-hint">{t('stepUp.google')}</p>
        {error && (
          <div className="notice notice-error" role="alert">
            {error}
          </div>
        )}
      </>
    );
  }
  return (
    <div className="step-up">
      {account.hasPassword && account.twoFactorEnabled && (
        <fieldset className="segmented">
          <legend className="visually-hidden">{t('stepUp.confirmWith')}</legend>
          <label className={value.method === 'currentPassword' ? 'active' : ''}>
            <input
              type="radio"
              name="step-up"
              checked={value.method === 'currentPassword'}
              onChange={() => onChange({ ...value, method: 'currentPassword' })}
            />{' '}
            {t('stepUp.password')}
          </label>
          <label className={value.method === 'code' ? 'active' : ''}>
            <input type="radio" name="step-up" checked={value.method === 'code'} onChange={() => onChange({ ...value, method: 'code' })} />{' '}
            {t('stepUp.authenticatorCode')}
          </label>
        </fieldset>
      )}
      {value.method === 'code' ? (
        <CodeInput
          label={t('stepUp.codeLabel')}
          value={value.code}
          onChange={(code) => onChange({ ...value, code })}
          data-autofocus={autoFocus || undefined}
          error={error ?? undefined}
          id={inputId}
        />
      ) : (
        <Field
          label={t('stepUp.passwordLabel')}
          type="password"
          name="stepUpPassword"
          autoComplete="current-password"
          value={value.currentPassword}
          onChange={(e) => onChange({ ...value, currentPassword: e.target.value })}
          data-autofocus={autoFocus || undefined}
          error={error}
          id={inputId}
        />
      )}
    </div>
  );
}

/**
 * Proof asked inside a larger form (a dialog that creates or changes something): why it is asked,
 * then the fields once the account's ways to prove are known.
 */
export function StepUpSection({
  account,
  failed,
  value,
  onChange,
  error,
  inputId,
  children,
}: {
  account: StepUpAccount | undefined;
  /** The account's ways to prove could not be loaded. */
  failed: boolean;
  value: StepUpState | null;
  onChange: (next: StepUpState) => void;
  error?: string | null;
  inputId?: string;
  /** Why proof is asked. */
  children: ReactNode;
}) {
  const t = useT();
  return (
    <fieldset className="step-up-section">
      <legend>{t('stepUp.legend')}</legend>
      <p className="field-hint">{children}</p>
      {account && value ? (
        <StepUpFields account={account} value={value} onChange={onChange} error={error} inputId={inputId} />
      ) : failed ? (
        <div className="notice notice-error" role="alert">
          {t('stepUp.checkFailed')}
        </div>
      ) : (
        <>
          <Spinner size="sm" label={t('stepUp.checking')} />
          {error && (
            <div className="notice notice-error" role="alert">
              {error}
            </div>
          )}
        </>
      )}
    </fieldset>
  );
}

/**
 * Proof asked inside a dialog that creates or changes something (User Management, Webhooks):
 * `section(why)` renders it, `proof()` gives what to send (or null, the reason shown), and
 * `refusedBy(err)` shows the server's refusal on the field, emptied and focused again, so the
 * dialog stays open for another try.
 */
export function useStepUpPrompt() {
  const account = useStepUpAccount();
  const stepUp = useStepUp(account.data);
  const [refused, setRefused] = useState<string | null>(null);
  const inputId = useId();
  return {
    section: (why: string) => (
      <StepUpSection
        account={account.data}
        failed={account.isError}
        value={stepUp.value}
        onChange={(next) => {
          stepUp.set(next);
          setRefused(null);
        }}
        error={refused}
        inputId={inputId}
      >
        {why}
      </StepUpSection>
    ),
    /** The proof to send, or null (with the reason shown) when it is not filled in yet. */
    proof() {
      if (!stepUp.value) {
        // Still loading; when loading failed, the section already says so.
        setRefused(account.isError ? null : translate('stepUp.wait'));
        return null;
      }
      if (!stepUpReady(stepUp.value)) {
        setRefused(stepUpMissing(stepUp.value));
        document.getElementById(inputId)?.focus();
        return null;
      }
      setRefused(null);
      return stepUpProof(stepUp.value);
    },
    /** True when the server refused the proof: the dialog stays open with its message. */
    refusedBy(err: unknown) {
      if (!isProofRefused(err)) return false;
      setRefused(errorMessage(err, err.message));
      if (stepUp.value) stepUp.set(clearedStepUp(stepUp.value));
      // After React has rendered the emptied field.
      setTimeout(() => document.getElementById(inputId)?.focus(), 0);
      return true;
    },
    reset() {
      stepUp.reset();
      setRefused(null);
    },
  };
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
  const t = useT();
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
      setError(errorMessage(err, t('stepUp.failed')));
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
