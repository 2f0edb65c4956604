import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge, type BadgeTone } from '../../components/ui/badge';
import { PRODUCT_TYPES } from '../../../../worker/platform/vocabulary';

type ProductType = Schemas['ProductType'];

const TONES: Record<ProductType, BadgeTone> = { software: 'blue', game: 'purple', service: 'green', other: 'gray' };

export function ProductTypeBadge({ type }: { type: ProductType }) {
  return <Badge tone={TONES[type] ?? 'gray'}>{type}</Badge>;
}

/** The product types as the options of a select, named as people read them. */
export function ProductTypeOptions() {
  return PRODUCT_TYPES.map((t) => (
    <option key={t} value={t}>
      {t[0].toUpperCase() + t.slice(1)}
    </option>
  ));
}
