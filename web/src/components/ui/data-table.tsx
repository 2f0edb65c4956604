// A table of rows described by columns: the header, the cell, and the label a phone shows beside it.
import type { ReactNode } from 'react';

export type Column<R> = {
  header: ReactNode;
  cell: (row: R) => ReactNode;
  /** The cell's label in the stacked phone layout; also names a header that is visually hidden. */
  label?: string;
  className?: string;
};

type DataTableProps<R> = {
  label: string;
  rows: readonly R[];
  rowKey: (row: R) => string;
  columns: Column<R>[];
  /** True while the rows are being fetched again (the old ones stay on screen). */
  busy?: boolean;
  className?: string;
  rowClassName?: (row: R) => string | undefined;
  /** For a table that scrolls within a fixed height: the wrapper's class, and its name as a focusable
   * region so the keyboard can scroll it too. */
  scroll?: { className: string; label: string };
};

export function DataTable<R>({ label, rows, rowKey, columns, busy, className = '', rowClassName, scroll }: DataTableProps<R>) {
  const region = scroll ? { tabIndex: 0, role: 'region', 'aria-label': scroll.label } : {};
  return (
    <div className={scroll ? `table-wrap ${scroll.className}` : 'table-wrap'} {...region}>
      <table className={`table ${className}`.trim()} aria-label={label} aria-busy={busy}>
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th key={i} scope="col">
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} className={rowClassName?.(row)}>
              {columns.map((column, i) => (
                <td key={i} data-label={column.label} className={column.className}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
