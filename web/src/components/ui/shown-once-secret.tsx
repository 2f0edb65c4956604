// A secret the server shows once (an API token, a webhook's signing secret): the warning, the value,
// a copy button, and the button that says it was saved (after which it is gone for good).
import type { ReactNode } from 'react';
import { CopyButton } from './copy-button';
import { useT } from '../../lib/i18n';

type ShownOnceSecretProps = {
  value: string;
  /** The value's accessible name ("Your new API token"). */
  label: string;
  copyLabel: string;
  copiedMessage: string;
  /** The warning above the value: copy it now, and what to do when it is lost. */
  children: ReactNode;
  onDone: () => void;
};

export function ShownOnceSecret({ value, label, copyLabel, copiedMessage, children, onDone }: ShownOnceSecretProps) {
  const t = useT();
  return (
    <div className="shown-once-secret">
      <div className="notice notice-warning" role="status">
        {children}
      </div>
      <p className="secret-key mono" aria-label={label}>
        {value}
      </p>
      <div className="button-row">
        <CopyButton text={value} label={copyLabel} copiedMessage={copiedMessage} />
        <button type="button" className="btn btn-primary btn-sm" onClick={onDone}>
          {t('common.savedIt')}
        </button>
      </div>
    </div>
  );
}
