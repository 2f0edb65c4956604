// A dialog around a form: Cancel, and a submit button for the form (by id) that shows its busy label.
import type { ComponentProps, ReactNode } from 'react';
import { Modal, ModalActions } from './modal';

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

export function FormModal({
  open = true,
  formId,
  submitLabel,
  busyLabel,
  busy,
  submitDisabled = false,
  tone = 'primary',
  onClose,
  children,
  ...modal
}: FormModalProps) {
  return (
    <Modal
      {...modal}
      open={open}
      onClose={onClose}
      busy={busy}
      footer={
        <ModalActions
          onCancel={onClose}
          busy={busy}
          label={submitLabel}
          busyLabel={busyLabel}
          tone={tone}
          disabled={submitDisabled}
          formId={formId}
        />
      }
    >
      {children}
    </Modal>
  );
}
