// Where the built assets hold Scalar's browser bundle for the API reference (/api/docs). vite.config.ts
// copies it there from @scalar/api-reference, so the page loads it from this origin and never from a CDN.
export const SCALAR_BUNDLE_PATH = '/vendor/scalar-api-reference.js';
