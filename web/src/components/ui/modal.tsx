// A dialog that traps focus, closes on Escape and on the backdrop, and gives focus back.
import { useEffect, useEffectEvent, useId, useRef, type ReactNode } from 'react';
import { useT } from '../../lib/i18n';

type ModalProps = {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  size?: 'sm' | 'md' | 'lg';
  /** While true (a request in flight), Escape and the backdrop do not close it. */
  busy?: boolean;
};

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Modal({ open, title, onClose, children, footer, size = 'md', busy = false }: ModalProps) {
  const titleId = useId();
  const panel = useRef<HTMLDivElement>(null);
  const t = useT();
  // Escape reads the latest onClose and busy without reopening the dialog's focus handling.
  const onEscape = useEffectEvent((e: KeyboardEvent) => {
    if (busy) return;
    e.stopPropagation();
    onClose();
  });

  useEffect(() => {
    if (!open) return;
    const previous = document.activeElement as HTMLElement | null;
    const node = panel.current;
    // A field marked data-autofocus takes focus first; then a field that took it itself (React's
    // autoFocus); else the first control. (A selector list would pick whichever comes first.)
    const marked = node?.querySelector<HTMLElement>('[data-autofocus]');
    if (marked) marked.focus();
    else if (!node?.contains(document.activeElement)) (node?.querySelector<HTMLElement>(FOCUSABLE) ?? node)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onEscape(e);
      if (e.key === 'Tab' && node) {
        const items = Array.from(node.querySelectorAll<HTMLElement>(FOCUSABLE));
        if (items.length === 0) return e.preventDefault();
        const [head, tail] = [items[0], items[items.length - 1]];
        if (e.shiftKey && document.activeElement === head) {
          e.preventDefault();
          tail.focus();
        } else if (!e.shiftKey && document.activeElement === tail) {
          e.preventDefault();
          head.focus();
        }
      }
    };
    document.addEventListener('keydown', onKey);
    document.body.classList.add('modal-open');
    return () => {
      document.removeEventListener('keydown', onKey);
      document.body.classList.remove('modal-open');
      previous?.focus?.();
    };
  }, [open]);

  if (!open) return null;
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && !busy && onClose()}>
      <div ref={panel} className={`modal modal-${size}`} role="dialog" aria-modal="true" aria-labelledby={titleId} tabIndex={-1}>
        <div className="modal-header">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon-button" aria-label={t('common.closeDialog')} onClick={onClose} disabled={busy}>
            ×
          </button>
        </div>
        <div className="modal-body">{children}</div>
        {footer && <div className="modal-footer">{footer}</div>}
      </div>
    </div>
  );
}

type ModalActionsProps = {
  onCancel: () => void;
  busy: boolean;
  label: ReactNode;
  /** The action's text while the request runs ("Saving…", "Deleting…"). */
  busyLabel: string;
  tone: 'primary' | 'danger';
  /** Beyond `busy`: the action is not ready. */
  disabled?: boolean;
} & ({ formId: string; onAct?: never } | { onAct: () => void; formId?: never });

/** A dialog's footer: Cancel, and the one action (a form's submit button, or a plain button). */
export function ModalActions({ onCancel, busy, label, busyLabel, tone, disabled = false, formId, onAct }: ModalActionsProps) {
  const t = useT();
  return (
    <>
      <button type="button" className="btn btn-secondary" onClick={onCancel} disabled={busy}>
        {t('common.cancel')}
      </button>
      <button type={formId ? 'submit' : 'button'} form={formId} onClick={onAct} className={`btn btn-${tone}`} disabled={busy || disabled}>
        {busy ? busyLabel : label}
      </button>
    </>
  );
}
