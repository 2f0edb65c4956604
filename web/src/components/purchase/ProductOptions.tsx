// The products to buy, as a select's options, each with its price: base cost + credits per day.
import type { Schemas } from '../../../../worker/platform/api-client';
import { formatCredits } from '../../lib/format';

type Product = Schemas['Product'];

const productLabel = (p: Product) => `${p.name} (${formatCredits(p.baseCreditCost)} + ${formatCredits(p.creditsPerDay)}/day)`;

export function ProductOptions({ products }: { products: Product[] }) {
  return products.map((p) => (
    <option key={p._id} value={p._id}>
      {productLabel(p)}
    </option>
  ));
}
