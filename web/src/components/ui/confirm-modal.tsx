// A dialog that asks before something that cannot be undone: Cancel, and one (danger) button.
import type { ReactNode } from 'react';
import { Modal } from './modal';

type ConfirmModalProps = {
  title: string;
  confirmLabel: string;
  /** The confirm button's text while the request runs ("Deleting…"). */
  busyLabel: string;
  busy: boolean;
  onConfirm: () => void;
  onClose: () => void;
  children: ReactNode;
};

export function ConfirmModal({ title, confirmLabel, busyLabel, busy, onConfirm, onClose, children }: ConfirmModalProps) {
  return (
    <Modal
      open
      size="sm"
      title={title}
      onClose={onClose}
      busy={busy}
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="button" className="btn btn-danger" onClick={onConfirm} disabled={busy}>
            {busy ? busyLabel : confirmLabel}
          </button>
        </>
      }
    >
      {children}
    </Modal>
  );
}
