// Generate License Keys (owner): a product, a duration within its bounds, a
// quantity between 1 and maxKeysPerGeneration with quick buttons, and the keys made, each with a
// copy button, plus Copy All and a CSV download.
import { useEffect, useId, useState, type FormEvent } from 'react';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { Card } from '../../../components/ui/card';
import { CopyButton } from '../../../components/ui/copy-button';
import { SelectField } from '../../../components/ui/field';
import { Spinner } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/toast';
import { errorMessage } from '../../../lib/api';
import {
  DEFAULT_MAX_KEYS_PER_GENERATION,
  GENERATION_QUICK_QUANTITIES,
  TOAST_GENERATION_MS,
  TOAST_GENERATION_SHORT_MS,
} from '../../../lib/constants';
import { DurationPicker } from '../../../components/purchase/DurationPicker';
import { useAllProducts } from '../products/api';
import { useSettings } from '../settings/api';
import { useGenerateKeys } from './api';
import { downloadText, keysCsv } from './csv';
import { asyncHandler } from '../../../lib/async-handler';
import { useT } from '../../../lib/i18n';

type LicenseKey = Schemas['LicenseKey'];
type Product = Schemas['Product'];

type Generated = { product: Product; days: number; keys: LicenseKey[] };

function GeneratedKeys({ result }: { result: Generated }) {
  const t = useT();
  const all = result.keys.map((k) => k.key).join('\n');
  const filename = `${result.product.keyTag}-keys-${new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')}.csv`;
  return (
    <Card
      title={t('admin.generate.resultTitle', { count: result.keys.length, product: result.product.name })}
      className="generated-keys"
      actions={
        <div className="button-row">
          <CopyButton
            text={all}
            label={t('admin.generate.copyAll')}
            copiedMessage={t('admin.generate.allCopied', { count: result.keys.length })}
            className="btn btn-secondary"
          />
          <button type="button" className="btn btn-primary" onClick={() => downloadText(filename, keysCsv(result.keys))}>
            {t('admin.generate.downloadCsv')}
          </button>
        </div>
      }
    >
      <p className="muted">{t('admin.generate.resultHint', { count: result.days })}</p>
      <ol className="generated-list" aria-label={t('admin.generate.generatedKeys')}>
        {result.keys.map((k) => (
          <li key={k._id} className="key-box">
            <code>{k.key}</code>
            <CopyButton text={k.key} label={t('admin.keys.copy', { key: k.key })} copiedMessage={t('admin.keys.copied')} />
          </li>
        ))}
      </ol>
    </Card>
  );
}

export function GenerateKeysForm() {
  const quantityId = useId();
  const products = useAllProducts();
  const settings = useSettings(true);
  const generate = useGenerateKeys();
  const t = useT();
  const limit = settings.data?.maxKeysPerGeneration ?? DEFAULT_MAX_KEYS_PER_GENERATION;
  const active = (products.data ?? []).filter((p) => p.isActive);

  const [chosenId, setChosenId] = useState('');
  const [days, setDays] = useState(1);
  const [quantity, setQuantity] = useState('10');
  const [clamped, setClamped] = useState(false);
  const [result, setResult] = useState<Generated | null>(null);
  const product = active.find((p) => p._id === chosenId) ?? null;

  useEffect(() => {
    if (products.isError) toast.error(t('admin.products.loadFailed'));
  }, [products.isError, t]);

  function choose(id: string) {
    setChosenId(id);
    const next = active.find((p) => p._id === id);
    if (next) setDays(next.minDays);
  }

  /** The quantity is clamped to 1..limit, and a larger one says so. */
  function changeQuantity(text: string) {
    const n = Number(text);
    if (text !== '' && Number.isFinite(n) && n > limit) {
      setQuantity(String(limit));
      setClamped(true);
      toast.warning(t('admin.generate.limit', { limit }), TOAST_GENERATION_SHORT_MS);
      return;
    }
    setClamped(false);
    setQuantity(text);
  }

  const count = Number(quantity);
  const validCount = quantity !== '' && Number.isInteger(count) && count >= 1 && count <= limit;

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!product) return toast.error(t('admin.generate.chooseProductFirst'));
    if (!validCount) return toast.error(count > limit ? t('admin.generate.limit', { limit }) : t('admin.generate.quantityInvalid'));
    try {
      const answer = await generate.mutateAsync({ productId: product._id, quantity: count, duration: days });
      setResult({ product, days, keys: answer.keys });
      toast.success(t('admin.generate.done', { count: answer.generated }), TOAST_GENERATION_MS);
    } catch (err) {
      toast.error(errorMessage(err, t('admin.generate.failed')), TOAST_GENERATION_MS);
    }
  }

  if (products.isPending) {
    return (
      <div className="panel-loading">
        <Spinner label={t('admin.products.loading')} />
      </div>
    );
  }
  return (
    <>
      <form className="card generate-form" onSubmit={asyncHandler(onSubmit)} noValidate aria-label={t('admin.generate.form')}>
        {active.length === 0 ? (
          <p className="notice notice-info">{t('admin.generate.noActiveProduct')}</p>
        ) : (
          <SelectField label={t('admin.generate.product')} value={chosenId} onChange={(e) => choose(e.target.value)} required>
            <option value="">{t('admin.generate.chooseProduct')}</option>
            {active.map((p) => (
              <option key={p._id} value={p._id}>
                {t('admin.generate.productOption', { name: p.name, keyTag: p.keyTag, min: p.minDays, max: p.maxDays })}
              </option>
            ))}
          </SelectField>
        )}
        {product && <DurationPicker key={product._id} product={product} days={days} onChange={setDays} disabled={generate.isPending} />}
        <div className="field">
          <label htmlFor={quantityId}>{t('admin.generate.quantity')}</label>
          <input
            id={quantityId}
            type="number"
            inputMode="numeric"
            min={1}
            max={limit}
            step={1}
            value={quantity}
            onChange={(e) => changeQuantity(e.target.value)}
            aria-describedby={`${quantityId}-hint`}
            disabled={generate.isPending}
          />
          <div id={`${quantityId}-hint`} className={clamped ? 'field-error' : 'field-hint'} role={clamped ? 'alert' : undefined}>
            {clamped ? t('admin.generate.limit', { limit }) : t('admin.generate.quantityHint', { limit })}
          </div>
        </div>
        <div className="quick-amounts" role="group" aria-label={t('admin.generate.quickQuantities')}>
          {GENERATION_QUICK_QUANTITIES.filter((q) => q <= limit).map((q) => (
            <button
              key={q}
              type="button"
              className={`btn btn-sm ${count === q ? 'btn-primary' : 'btn-secondary'}`}
              aria-pressed={count === q}
              onClick={() => changeQuantity(String(q))}
              disabled={generate.isPending}
            >
              {q}
            </button>
          ))}
        </div>
        <button type="submit" className="btn btn-primary" disabled={!product || !validCount || generate.isPending}>
          {generate.isPending
            ? t('admin.generate.generating')
            : validCount
              ? t('admin.generate.submitCount', { count })
              : t('admin.generate.submit')}
        </button>
      </form>
      {result && <GeneratedKeys result={result} />}
    </>
  );
}
