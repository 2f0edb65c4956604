// The duration of a key: a slider over the product's day range and a box for an exact number.
import { useId, useState } from 'react';
import type { Schemas } from '../../../../worker/platform/api-client';
import { useT } from '../../lib/i18n';
import { formatDays } from '../../lib/format';

export function DurationPicker({
  product,
  days,
  onChange,
  disabled = false,
}: {
  product: Schemas['Product'];
  days: number;
  onChange: (days: number) => void;
  disabled?: boolean;
}) {
  const t = useT();
  const plural = (n: number) => formatDays(n);
  const rangeId = useId();
  const numberId = useId();
  // The box may hold a half-typed number; the chosen duration changes only with a valid one.
  const [typed, setTyped] = useState(String(days));
  // A duration chosen elsewhere (the slider, a new product) replaces what was typed, during render
  // rather than in an effect, so the box never shows the old number for a frame.
  const [typedFor, setTypedFor] = useState(days);
  if (days !== typedFor) {
    setTypedFor(days);
    setTyped(String(days));
  }

  const clamp = (n: number) => Math.min(product.maxDays, Math.max(product.minDays, Math.round(n)));

  return (
    <div className="duration-picker">
      <div className="field">
        <label htmlFor={rangeId}>{t('purchase.durationDays')}</label>
        <input
          id={rangeId}
          type="range"
          min={product.minDays}
          max={product.maxDays}
          step={1}
          value={days}
          disabled={disabled}
          aria-valuetext={plural(days)}
          onChange={(e) => onChange(clamp(Number(e.target.value)))}
        />
        <div className="range-scale" aria-hidden="true">
          <span>{plural(product.minDays)}</span>
          <strong>{plural(days)}</strong>
          <span>{plural(product.maxDays)}</span>
        </div>
      </div>
      <div className="field duration-number">
        <label htmlFor={numberId}>{t('purchase.numberOfDays')}</label>
        <input
          id={numberId}
          type="number"
          inputMode="numeric"
          min={product.minDays}
          max={product.maxDays}
          step={1}
          value={typed}
          disabled={disabled}
          onChange={(e) => {
            setTyped(e.target.value);
            const n = Number(e.target.value);
            if (e.target.value !== '' && Number.isInteger(n) && n >= product.minDays && n <= product.maxDays) onChange(n);
          }}
          onBlur={() => {
            const n = Number(typed);
            const next = typed === '' || !Number.isFinite(n) ? days : clamp(n);
            setTyped(String(next));
            onChange(next);
          }}
        />
        <div className="field-hint">
          {product.minDays === product.maxDays
            ? t('purchase.soldOnlyFor', { duration: plural(product.minDays) })
            : t('purchase.daysRange', { min: product.minDays, max: product.maxDays })}
        </div>
      </div>
    </div>
  );
}
