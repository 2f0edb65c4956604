// The products to buy, as a select's options, each with its price: base cost + credits per day.
import type { Schemas } from '../../../../worker/platform/api-client';
import { formatCredits } from '../../lib/format';
import { translate } from '../../lib/i18n';

type Product = Schemas['Product'];

const productLabel = (p: Product) =>
  translate('purchase.productOption', { name: p.name, base: formatCredits(p.baseCreditCost), perDay: formatCredits(p.creditsPerDay) });

export function ProductOptions({ products }: { products: Product[] }) {
  return products.map((p) => (
    <option key={p._id} value={p._id}>
      {productLabel(p)}
    </option>
  ));
}
