import type { ProductType } from '@schemas/entities';
import { Badge, type BadgeTone } from '../../components/ui/badge';

const TONES: Record<ProductType, BadgeTone> = { software: 'blue', game: 'purple', service: 'green', other: 'gray' };

export function ProductTypeBadge({ type }: { type: ProductType }) {
  return <Badge tone={TONES[type] ?? 'gray'}>{type}</Badge>;
}
