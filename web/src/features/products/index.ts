// What other features may use from the products feature.
export { productsKey, useProducts } from './api';
export { FeatureList } from './FeatureList';
export { ProductTypeBadge, ProductTypeOptions } from './ProductTypeBadge';
