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
  if (totalPages <= 1) return null;
  return (
    <nav className="pagination" aria-label="Pagination">
      <button type="button" className="btn btn-secondary" onClick={() => onChange(page - 1)} disabled={disabled || page <= 1}>
        Previous
      </button>
      <span className="pagination-label" aria-live="polite">
        Page {page} of {totalPages}
      </span>
      <button type="button" className="btn btn-secondary" onClick={() => onChange(page + 1)} disabled={disabled || page >= totalPages}>
        Next
      </button>
    </nav>
  );
}
