// Direct Purchase (owner) and Reseller Purchase (reseller): pick a
// customer and a product, a duration within the product's bounds, see the cost, and buy the key
// for the customer. A reseller pays the reseller price with their own credits; the owner charges
// the customer, or nobody with the bypass checkbox.
import { useEffect, useId, useState, type FormEvent } from 'react';
import { priceForReseller, tierSells } from '../../../../../worker/modules/resellers/schemas';
import { quote } from '../../../../../worker/modules/catalog/schemas';
import type { Schemas } from '../../../../../worker/platform/api-client';
import { CheckboxField, Field, SelectField } from '../../../components/ui/field';
import { Spinner } from '../../../components/ui/spinner';
import { toast } from '../../../components/ui/toast';
import { TOAST_PURCHASE_MS } from '../../../lib/constants';
import { useDebounced } from '../../../lib/debounce';
import { formatCredits, formatPercent } from '../../../lib/format';
import { FormattedMessage } from 'react-intl';
import { translate, useT } from '../../../lib/i18n';
import { useIdempotencyKey } from '../../../lib/idempotency';
import { DurationPicker } from '../../../components/purchase/DurationPicker';
import { ProductOptions } from '../../../components/purchase/ProductOptions';
import { ReceiptCard } from '../../../components/purchase/ReceiptCard';
import { useProducts } from '../../../lib/products';
import { purchaseErrorMessage } from '../../../lib/purchase';
import { useCurrentUser } from '../../../lib/session';
import { useCustomerChoices } from '../users/api';
import { useResellerCustomers } from '../resellers/api';
import { usePurchaseForUser, usePurchaseTerms } from './api';
import { asyncHandler } from '../../../lib/async-handler';

type Product = Schemas['Product'];
type User = Schemas['User'];
type PurchaseForUserResponse = Schemas['PurchaseForUserResponse'];
type PurchaseTerms = Schemas['PurchaseTerms'];

type Customer = Pick<User, '_id' | 'username' | 'email' | 'role'> & Partial<User>;

const credits = (n: number) => translate('admin.purchase.credits', { count: n });

function CostBreakdown({
  product,
  days,
  isOwner,
  terms,
  bypass,
  payerCredits,
  payerLabel,
}: {
  product: Product;
  days: number;
  isOwner: boolean;
  terms: PurchaseTerms | undefined;
  bypass: boolean;
  payerCredits: number | null;
  /** "Bob’s credits", "Your credits". */
  payerLabel: string;
}) {
  const t = useT();
  const tier = terms?.tier ?? null;
  const wholesale = isOwner || !terms ? null : priceForReseller(product, days, terms);
  const q = wholesale ?? quote(product, days);
  const total = isOwner && bypass ? 0 : q.total;
  const after = payerCredits === null ? null : payerCredits - total;
  return (
    <dl className="breakdown" aria-label={t('admin.purchase.breakdown')}>
      <div>
        <dt>{t('admin.purchase.baseCost')}</dt>
        <dd>{credits(q.baseCost)}</dd>
      </div>
      <div>
        <dt>
          {isOwner || tier
            ? t('admin.purchase.duration', { count: days, perDay: formatCredits(product.creditsPerDay) })
            : t('admin.purchase.durationDiscounted', {
                count: days,
                perDay: formatCredits(product.creditsPerDay),
                discount: formatPercent(terms?.defaultDailyDiscount ?? 0),
              })}
        </dt>
        <dd>{credits(q.durationCost)}</dd>
      </div>
      {tier && wholesale && (
        <div>
          <dt>
            {t('admin.purchase.tierDiscount', {
              tier: tier.name,
              percent: formatPercent(tier.discountPercent),
              listPrice: credits(wholesale.listPrice),
            })}
          </dt>
          <dd>−{credits(wholesale.discount)}</dd>
        </div>
      )}
      <div className="breakdown-total">
        <dt>{isOwner ? t('admin.purchase.total') : t('admin.purchase.resellerPrice')}</dt>
        <dd data-testid="direct-purchase-total">{isOwner && bypass ? t('admin.purchase.free') : credits(total)}</dd>
      </div>
      {!(isOwner && bypass) && payerCredits !== null && after !== null && (
        <>
          <div>
            <dt>{payerLabel}</dt>
            <dd>{formatCredits(payerCredits)}</dd>
          </div>
          <div className={after < 0 ? 'breakdown-short' : ''}>
            <dt>{t('admin.purchase.after')}</dt>
            <dd>{after < 0 ? t('admin.purchase.short', { credits: formatCredits(-after) }) : credits(after)}</dd>
          </div>
        </>
      )}
    </dl>
  );
}

export function DirectPurchaseTab() {
  const user = useCurrentUser()!;
  const isOwner = user.role === 'owner';
  const productFieldId = useId();
  const [search, setSearch] = useState('');
  const [customerId, setCustomerId] = useState('');
  const [productId, setProductId] = useState('');
  const [days, setDays] = useState(1);
  const [bypass, setBypass] = useState(false);
  const [answer, setAnswer] = useState<PurchaseForUserResponse | null>(null);
  const attempt = useIdempotencyKey();
  const t = useT();

  const [debouncedSearch] = useDebounced(search);
  const terms = usePurchaseTerms();
  const customers = useCustomerChoices(debouncedSearch);
  // Where the owner says so, a reseller buys for their own customers only: they are the choices.
  const ownOnly = !isOwner && terms.data?.resellersSellToOwnCustomersOnly === true;
  const own = useResellerCustomers(null, 1, debouncedSearch, ownOnly);
  const products = useProducts();
  const purchase = usePurchaseForUser();

  useEffect(() => {
    if (customers.isError) toast.error(t('admin.users.loadFailed'));
  }, [customers.isError, t]);
  useEffect(() => {
    if (products.isError) toast.error(t('admin.products.loadFailed'));
  }, [products.isError, t]);

  // A reseller buys for customers only (their own key is bought in the shop; the server refuses the rest).
  const choices: Customer[] = ownOnly
    ? (own.data?.customers ?? [])
        // Former customers are listed with what they bought then, but are no longer theirs to buy for.
        .filter((c) => c.customerUntil === null)
        .map((c) => ({ _id: c._id, username: c.username, email: c.email, role: 'user' as const }))
    : (customers.data?.users ?? []).filter((u) => isOwner || u.role === 'user');
  const customer = choices.find((u) => u._id === customerId) ?? null;
  const product = products.data?.find((p) => p._id === productId) ?? null;
  const switchedOff = terms.data ? (isOwner ? !terms.data.enableDirectPurchases : !terms.data.enableResellerPurchases) : false;

  const total = !product
    ? 0
    : isOwner
      ? bypass
        ? 0
        : quote(product, days).total
      : terms.data
        ? priceForReseller(product, days, terms.data).total
        : quote(product, days).total;
  // A reseller's tier may sell some products only, and may cap their keys for customers a day.
  const tier = isOwner ? null : (terms.data?.tier ?? null);
  const offered = (products.data ?? []).filter((p) => !tier || tierSells(tier, p._id));
  const capReached = tier !== null && tier.dailyKeyCap !== null && tier.keysBoughtToday >= tier.dailyKeyCap;
  // Who pays, and what they have: the reseller themselves, or the owner's customer.
  const payerCredits = isOwner ? (customer?.credits ?? null) : user.credits;
  const short = product !== null && !(isOwner && bypass) && payerCredits !== null && payerCredits < total;
  const ready =
    customer !== null &&
    product !== null &&
    !short &&
    !switchedOff &&
    !capReached &&
    !purchase.isPending &&
    (isOwner || terms.data !== undefined);

  function chooseProduct(id: string) {
    setProductId(id);
    const next = products.data?.find((p) => p._id === id);
    if (next) setDays(next.minDays);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (!customer || !product) return toast.error(t('admin.purchase.chooseBoth'));
    if (!ready) return;
    const body = { duration: days, bypassBalance: isOwner && bypass, useResellerCredits: !isOwner };
    try {
      const result = await purchase.mutateAsync({
        userId: customer._id,
        productId: product._id,
        body,
        idempotencyKey: attempt.keyFor(`${customer._id}:${product._id}:${days}:${body.bypassBalance}`),
      });
      attempt.done();
      setAnswer(result);
      setDays(product.minDays);
      toast.success(t('admin.purchase.done', { username: customer.username }), TOAST_PURCHASE_MS);
    } catch (err) {
      toast.error(purchaseErrorMessage(err, t('admin.purchase.failed')), TOAST_PURCHASE_MS);
    }
  }

  return (
    <section aria-labelledby="direct-purchase-title" className="admin-section">
      <div className="section-head">
        <div>
          <h2 id="direct-purchase-title">{isOwner ? t('admin.purchase.title') : t('admin.purchase.resellerTitle')}</h2>
          <p className="muted">
            {isOwner ? t('admin.purchase.subtitle') : t('admin.purchase.resellerSubtitle', { credits: credits(user.credits) })}
          </p>
        </div>
      </div>
      {switchedOff && (
        <div className="notice notice-warning" role="status">
          {isOwner ? t('admin.purchase.directOff') : t('admin.purchase.resellerOff')}
        </div>
      )}
      {tier && (
        <p className="muted" data-testid="reseller-tier">
          <FormattedMessage
            id={tier.dailyKeyCap !== null ? 'admin.purchase.tierCapped' : 'admin.purchase.tier'}
            values={{
              tier: tier.name,
              percent: formatPercent(tier.discountPercent),
              bought: tier.keysBoughtToday,
              cap: tier.dailyKeyCap ?? 0,
              strong: (chunks) => <strong>{chunks}</strong>,
            }}
          />
        </p>
      )}
      {capReached && tier && (
        <div className="notice notice-warning" role="status">
          {t('admin.purchase.capReached', { cap: tier.dailyKeyCap ?? 0 })}
        </div>
      )}
      {answer && (
        <ReceiptCard
          receipt={answer.licenseKey}
          title={t('admin.purchase.receiptTitle', { username: answer.licenseKey.purchasedBy.username })}
          note={t('admin.purchase.receiptNote', { username: answer.licenseKey.purchasedBy.username })}
          dismissLabel={t('admin.purchase.newPurchase')}
          onDismiss={() => setAnswer(null)}
        />
      )}
      <form
        className="card direct-purchase-form"
        onSubmit={asyncHandler(onSubmit)}
        noValidate
        aria-label={isOwner ? t('admin.purchase.form') : t('admin.purchase.resellerForm')}
      >
        <div className="form-grid">
          <Field
            label={t('admin.purchase.findUser')}
            type="search"
            placeholder={t('admin.users.searchPlaceholder')}
            value={search}
            maxLength={100}
            onChange={(e) => setSearch(e.target.value)}
          />
          <SelectField
            label={t('admin.purchase.user')}
            value={customerId}
            onChange={(e) => setCustomerId(e.target.value)}
            disabled={customers.isPending}
          >
            <option value="">
              {customers.isPending
                ? t('admin.users.loading')
                : choices.length
                  ? t('admin.purchase.chooseUser')
                  : t('admin.purchase.noUserMatches')}
            </option>
            {/* The chosen user stays listed while another search runs. */}
            {customer && !choices.some((u) => u._id === customer._id) && <option value={customer._id}>{customer.username}</option>}
            {choices.map((u) => (
              <option key={u._id} value={u._id}>
                {t('admin.purchase.userOption', { username: u.username, email: u.email, role: u.role })}
                {isOwner && u.credits !== undefined ? ` · ${credits(u.credits)}` : ''}
              </option>
            ))}
          </SelectField>
        </div>
        <div className="field">
          <label htmlFor={productFieldId}>{t('admin.purchase.product')}</label>
          {products.isPending ? (
            <Spinner label={t('admin.products.loading')} />
          ) : (
            <select id={productFieldId} value={productId} onChange={(e) => chooseProduct(e.target.value)} disabled={!offered.length}>
              <option value="">{offered.length ? t('admin.generate.chooseProduct') : t('admin.purchase.noProducts')}</option>
              <ProductOptions products={offered} />
            </select>
          )}
        </div>
        {product && (
          <>
            <DurationPicker key={product._id} product={product} days={days} onChange={setDays} disabled={purchase.isPending} />
            {isOwner && (
              <CheckboxField
                className="bypass-check"
                label={t('admin.purchase.bypass')}
                checked={bypass}
                onChange={(e) => setBypass(e.target.checked)}
              />
            )}
            {(isOwner || terms.data) && (
              <CostBreakdown
                product={product}
                days={days}
                isOwner={isOwner}
                terms={terms.data}
                bypass={bypass}
                payerCredits={payerCredits}
                payerLabel={
                  isOwner
                    ? t('admin.purchase.payerCredits', { username: customer?.username ?? t('admin.purchase.user') })
                    : t('admin.purchase.yourCredits')
                }
              />
            )}
          </>
        )}
        {short && (
          <div className="notice notice-warning" role="status">
            {isOwner ? t('admin.purchase.customerShort', { username: customer?.username ?? '' }) : t('admin.purchase.resellerShort')}
          </div>
        )}
        <button type="submit" className="btn btn-primary" disabled={!ready}>
          {purchase.isPending
            ? t('admin.purchase.purchasing')
            : customer
              ? t('admin.purchase.submitFor', { username: customer.username })
              : t('admin.purchase.submit')}
        </button>
      </form>
    </section>
  );
}
