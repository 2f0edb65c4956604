import { useT } from '../../lib/i18n';
import { formatNumber } from '../../lib/format';
export function Pagination({
  page,
  totalPages,
  onChange,
  disabled = false,
}: {
  page: number;
  totalPages: number;
  onChange: (page: number) => void;
  disabled?: boolean;
}) {
  const t = useT();
  if (totalPages <= 1) return null;
  return (
    <nav className="pagination" aria-label={t('common.pagination')}>
      <button type="button" className="btn btn-secondary" onClick={() => onChange(page - 1)} disabled={disabled || page <= 1}>
        {t('common.previous')}
      </button>
      <span className="pagination-label" aria-live="polite">
        {t('common.pageOf', { page: formatNumber(page), total: formatNumber(totalPages) })}
      </span>
      <button type="button" className="btn btn-secondary" onClick={() => onChange(page + 1)} disabled={disabled || page >= totalPages}>
        {t('common.next')}
      </button>
    </nav>
  );
}
