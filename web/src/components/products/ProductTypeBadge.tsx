import type { Schemas } from '../../../../worker/platform/api-client';
import { Badge, type BadgeTone } from '../../components/ui/badge';
import { PRODUCT_TYPES } from '../../../../worker/platform/vocabulary';
import { useT } from '../../lib/i18n';
import type { MessageId } from '../../lib/i18n';

type ProductType = Schemas['ProductType'];

/** Each product type's message (its name as people read it). */
export const PRODUCT_TYPE_MESSAGES: Record<ProductType, MessageId> = {
  software: 'products.type.software',
  game: 'products.type.game',
  service: 'products.type.service',
  other: 'products.type.other',
};

const TONES: Record<ProductType, BadgeTone> = { software: 'blue', game: 'purple', service: 'green', other: 'gray' };

export function ProductTypeBadge({ type }: { type: ProductType }) {
  const t = useT();
  return <Badge tone={TONES[type] ?? 'gray'}>{PRODUCT_TYPE_MESSAGES[type] ? t(PRODUCT_TYPE_MESSAGES[type]) : type}</Badge>;
}

/** The product types as the options of a select, named as people read them. */
export function ProductTypeOptions() {
  const t = useT();
  return PRODUCT_TYPES.map((type) => (
    <option key={type} value={type}>
      {t(PRODUCT_TYPE_MESSAGES[type])}
    </option>
  ));
}
