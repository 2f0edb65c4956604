// A product's first features with a check mark, and '+N more' for the rest.
import { Icon } from '../../components/ui/icons';
import { useT } from '../../lib/i18n';

export function FeatureList({ features, shown }: { features: string[]; shown: number }) {
  const t = useT();
  const first = features.slice(0, shown);
  const hidden = features.length - first.length;
  if (first.length === 0) return null;
  return (
    <ul className="feature-list">
      {first.map((f, i) => (
        <li key={`${i}-${f}`}>
          <Icon name="check" size={14} /> {f}
        </li>
      ))}
      {hidden > 0 && <li className="muted">{t('products.moreFeatures', { count: hidden })}</li>}
    </ul>
  );
}
