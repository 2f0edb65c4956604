import { useT } from '../../lib/i18n';
export function Spinner({ label, size = 'md' }: { label?: string; size?: 'sm' | 'md' | 'lg' }) {
  const t = useT();
  return (
    <span className={`spinner spinner-${size}`} role="status">
      <span className="visually-hidden">{label ?? t('common.loading')}</span>
    </span>
  );
}

export function PageSpinner({ label }: { label?: string }) {
  return (
    <div className="page-spinner">
      <Spinner size="lg" label={label} />
    </div>
  );
}
