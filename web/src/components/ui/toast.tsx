// Toasts: top-right, each with a close button; 5000 ms by default, 0 stays until closed.
import { atom, useAtomValue } from 'jotai';
import { useEffect } from 'react';
import { TOAST_DEFAULT_MS } from '../../lib/constants';
import { appStore } from '../../lib/session/store';
import { useT } from '../../lib/i18n';

export type ToastType = 'success' | 'error' | 'warning' | 'info';
export type Notification = { id: number; message: string; type: ToastType; duration: number };

export const toastsAtom = atom<Notification[]>([]);
let nextId = 1;

export function dismissToast(id: number) {
  appStore.set(toastsAtom, (list) => list.filter((t) => t.id !== id));
}

function show(type: ToastType, message: string, duration = TOAST_DEFAULT_MS) {
  const id = nextId++;
  appStore.set(toastsAtom, (list) => [...list, { id, message, type, duration }]);
  return id;
}

export const toast = {
  success: (message: string, duration?: number) => show('success', message, duration),
  error: (message: string, duration?: number) => show('error', message, duration),
  warning: (message: string, duration?: number) => show('warning', message, duration),
  info: (message: string, duration?: number) => show('info', message, duration),
};

const ICONS: Record<ToastType, string> = { success: '✓', error: '✕', warning: '!', info: 'i' };

function ToastItem({ item }: { item: Notification }) {
  const t = useT();
  useEffect(() => {
    if (item.duration <= 0) return;
    const timer = setTimeout(() => dismissToast(item.id), item.duration);
    return () => clearTimeout(timer);
  }, [item.id, item.duration]);
  return (
    <div className={`toast toast-${item.type}`} role={item.type === 'error' ? 'alert' : 'status'} data-testid="toast">
      <span className="toast-icon" aria-hidden="true">
        {ICONS[item.type]}
      </span>
      <div className="toast-message">{item.message}</div>
      <button type="button" className="toast-close" aria-label={t('common.closeNotification')} onClick={() => dismissToast(item.id)}>
        ×
      </button>
    </div>
  );
}

export function Toaster() {
  const toasts = useAtomValue(toastsAtom);
  return (
    <div className="toaster" aria-live="polite" aria-relevant="additions">
      {toasts.map((t) => (
        <ToastItem key={t.id} item={t} />
      ))}
    </div>
  );
}
