// A dialog around a form: Cancel, and a submit button for the form (by id) that shows its busy label.
import type { ComponentProps, ReactNode } from 'react';
import { Modal } from './modal';

type FormModalProps = Omit<ComponentProps<typeof Modal>, 'footer' | 'busy' | 'open' | 'children'> & {
  open?: boolean;
  formId: string;
  submitLabel: ReactNode;
  /** The submit button's text while the request runs ("Saving…"). */
  busyLabel: string;
  busy: boolean;
  /** Beyond `busy`: the form is not ready to submit. */
  submitDisabled?: boolean;
  tone?: 'primary' | 'danger';
  children: ReactNode;
};

export function FormModal({ open = true, formId, submitLabel, busyLabel, busy, submitDisabled = false, tone = 'primary', onClose, children, ...modal }: FormModalProps) {
  return (
    <Modal
      {...modal}
      open={open}
      onClose={onClose}
      busy={busy}
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form={formId} className={`btn btn-${tone}`} disabled={busy || submitDisabled}>
            {busy ? busyLabel : submitLabel}
          </button>
        </>
      }
    >
      {children}
    </Modal>
  );
}
