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
import { formatCredits } from '../../../lib/format';
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

const credits = (n: number) => `${formatCredits(n)} ${n === 1 ? 'credit' : 'credits'}`;

function CostBreakdown({
  product,
  days,
  isOwner,
  terms,
  bypass,
  payerCredits,
  payer,
}: {
  product: Product;
  days: number;
  isOwner: boolean;
  terms: PurchaseTerms | undefined;
  bypass: boolean;
  payerCredits: number | null;
  payer: string;
}) {
  const tier = terms?.tier ?? null;
  const wholesale = isOwner || !terms ? null : priceForReseller(product, days, terms);
  const q = wholesale ?? quote(product, days);
  const total = isOwner && bypass ? 0 : q.total;
  const after = payerCredits === null ? null : payerCredits - total;
  return (
    <dl className="breakdown" aria-label="Cost breakdown">
      <div>
        <dt>Base cost</dt>
        <dd>{credits(q.baseCost)}</dd>
      </div>
      <div>
        <dt>
          Duration ({days} {days === 1 ? 'day' : 'days'} × {formatCredits(product.creditsPerDay)}
          {isOwner || tier ? '' : `, ${terms?.defaultDailyDiscount ?? 0}% reseller discount`})
        </dt>
        <dd>{credits(q.durationCost)}</dd>
      </div>
      {tier && wholesale && (
        <div>
          <dt>
            {tier.name} discount ({tier.discountPercent}% of {credits(wholesale.listPrice)})
          </dt>
          <dd>−{credits(wholesale.discount)}</dd>
        </div>
      )}
      <div className="breakdown-total">
        <dt>{isOwner ? 'Total' : 'Reseller price'}</dt>
        <dd data-testid="direct-purchase-total">{isOwner && bypass ? 'Free' : credits(total)}</dd>
      </div>
      {!(isOwner && bypass) && payerCredits !== null && after !== null && (
        <>
          <div>
            <dt>{payer} credits</dt>
            <dd>{formatCredits(payerCredits)}</dd>
          </div>
          <div className={after < 0 ? 'breakdown-short' : ''}>
            <dt>After purchase</dt>
            <dd>{after < 0 ? `${formatCredits(-after)} credits short` : credits(after)}</dd>
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

  const [debouncedSearch] = useDebounced(search);
  const terms = usePurchaseTerms();
  const customers = useCustomerChoices(debouncedSearch);
  // Where the owner says so, a reseller buys for their own customers only: they are the choices.
  const ownOnly = !isOwner && terms.data?.resellersSellToOwnCustomersOnly === true;
  const own = useResellerCustomers(null, 1, debouncedSearch, ownOnly);
  const products = useProducts();
  const purchase = usePurchaseForUser();

  useEffect(() => {
    if (customers.isError) toast.error('Failed to load users');
  }, [customers.isError]);
  useEffect(() => {
    if (products.isError) toast.error('Failed to load products');
  }, [products.isError]);

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
    if (!customer || !product) return toast.error('Please choose a user and a product');
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
      toast.success(`License key purchased for ${customer.username}`, TOAST_PURCHASE_MS);
    } catch (err) {
      toast.error(purchaseErrorMessage(err, 'Failed to purchase license key'), TOAST_PURCHASE_MS);
    }
  }

  return (
    <section aria-labelledby="direct-purchase-title" className="admin-section">
      <div className="section-head">
        <div>
          <h2 id="direct-purchase-title">{isOwner ? 'Direct Purchase' : 'Reseller Purchase'}</h2>
          <p className="muted">
            {isOwner
              ? 'Buy a key on behalf of a user, charged to their credits or free.'
              : `Buy keys for your customers with your credits (you have ${credits(user.credits)}), at the reseller price.`}
          </p>
        </div>
      </div>
      {switchedOff && (
        <div className="notice notice-warning" role="status">
          {isOwner ? 'Direct purchases are turned off in the settings.' : 'Reseller purchases are turned off in the settings.'}
        </div>
      )}
      {tier && (
        <p className="muted" data-testid="reseller-tier">
          Your tier: <strong>{tier.name}</strong>, {tier.discountPercent}% off the list price
          {tier.dailyKeyCap !== null ? `, ${tier.keysBoughtToday} of ${tier.dailyKeyCap} keys bought today` : ''}.
        </p>
      )}
      {capReached && tier && (
        <div className="notice notice-warning" role="status">
          You have bought your tier’s {tier.dailyKeyCap} keys for today. The cap resets at midnight UTC.
        </div>
      )}
      {answer && (
        <ReceiptCard
          receipt={answer.licenseKey}
          title={`Key purchased for ${answer.licenseKey.purchasedBy.username}`}
          note={`The key is also in ${answer.licenseKey.purchasedBy.username}’s My Keys.`}
          dismissLabel="New purchase"
          onDismiss={() => setAnswer(null)}
        />
      )}
      <form
        className="card direct-purchase-form"
        onSubmit={asyncHandler(onSubmit)}
        noValidate
        aria-label={isOwner ? 'Direct purchase' : 'Reseller purchase'}
      >
        <div className="form-grid">
          <Field
            label="Find a user"
            type="search"
            placeholder="Username or email starts with…"
            value={search}
            maxLength={100}
            onChange={(e) => setSearch(e.target.value)}
          />
          <SelectField label="User" value={customerId} onChange={(e) => setCustomerId(e.target.value)} disabled={customers.isPending}>
            <option value="">{customers.isPending ? 'Loading users…' : choices.length ? 'Choose a user…' : 'No user matches'}</option>
            {/* The chosen user stays listed while another search runs. */}
            {customer && !choices.some((u) => u._id === customer._id) && <option value={customer._id}>{customer.username}</option>}
            {choices.map((u) => (
              <option key={u._id} value={u._id}>
                {u.username} ({u.email}, {u.role}){isOwner && u.credits !== undefined ? ` · ${credits(u.credits)}` : ''}
              </option>
            ))}
          </SelectField>
        </div>
        <div className="field">
          <label htmlFor={productFieldId}>Product</label>
          {products.isPending ? (
            <Spinner label="Loading products…" />
          ) : (
            <select id={productFieldId} value={productId} onChange={(e) => chooseProduct(e.target.value)} disabled={!offered.length}>
              <option value="">{offered.length ? 'Choose a product…' : 'No products available'}</option>
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
                label="Bypass balance check (free purchase)"
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
                payer={isOwner ? `${customer?.username ?? 'User'}’s` : 'Your'}
              />
            )}
          </>
        )}
        {short && (
          <div className="notice notice-warning" role="status">
            {isOwner
              ? `${customer?.username} does not have enough credits for this key. Choose fewer days, or bypass the balance check.`
              : 'You do not have enough credits for this key. Choose fewer days or exchange USD for credits.'}
          </div>
        )}
        <button type="submit" className="btn btn-primary" disabled={!ready}>
          {purchase.isPending ? 'Purchasing…' : customer ? `Purchase for ${customer.username}` : 'Purchase'}
        </button>
      </form>
    </section>
  );
}
