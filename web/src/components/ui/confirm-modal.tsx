// A dialog that asks before something that cannot be undone: Cancel, and one (danger) button.
import type { ReactNode } from 'react';
import { Modal, ModalActions } from './modal';

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
      footer={<ModalActions onCancel={onClose} busy={busy} label={confirmLabel} busyLabel={busyLabel} tone="danger" onAct={onConfirm} />}
    >
      {children}
    </Modal>
  );
}
