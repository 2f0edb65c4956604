// Stands in, in the Worker's bundle, for the optional converters hono-openapi would load for
// validation libraries KeyPanel does not use (effect, sury, valibot, zod 3's): their imports are
// wrapped in try/catch there, so throwing here reads as "not installed", as it always did, while
// the bundle keeps no import that cannot resolve (wrangler.toml [alias]).
throw new Error('This optional package is not part of the KeyPanel Worker.');
