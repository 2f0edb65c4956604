// What other features may use from the products feature.
export { useProducts } from './api';
export { productKeys } from './query-keys';
export { FeatureList } from './FeatureList';
export { ProductTypeBadge, ProductTypeOptions } from './ProductTypeBadge';
