// ESLint for the whole repository: typescript-eslint with type information, React's hook rules for
// the web app, no import cycles, and the web app's feature boundaries. Formatting is Prettier's.
import { readdirSync } from 'node:fs';
import eslintConfigPrettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const FEATURES = 'web/src/features';
const folders = (path) =>
  readdirSync(new URL(`./${path}`, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
const features = folders(FEATURES);
// The admin panel, one folder per resource (users, products, license keys, ...) under its shell.
const ADMIN = `${FEATURES}/admin`;
const adminResources = folders(ADMIN);

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.wrangler/',
      'sdk/dist/',
      'bench/profiles/',
      'e2e/screenshots/',
      '**/*.d.ts',
      'worker/schemas/api-paths.generated.ts',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['tsconfig.json', '*/tsconfig.json'] })],
    },
    rules: {
      // A cycle between modules makes load order matter; type-only imports never run.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            // A feature imports only its own folder, components/ and lib/ (and the shared API schemas);
            // what one feature offers another goes through the app shell (app/).
            ...features.map((feature) => ({
              target: `./${FEATURES}/${feature}`,
              from: `./${FEATURES}`,
              except: [`./${feature}`],
              message: 'A web feature imports only from its own folder, components/ and lib/.',
            })),
            // Within the admin panel, a resource folder uses another only through that folder's api.ts
            // (its query keys and hooks): its components and helpers are its own. No resource imports
            // the panel's page back (the page loads the tabs; a tab reads the user from lib/session and
            // opens another tab through tabs.ts).
            ...adminResources.flatMap((resource) => [
              ...adminResources
                .filter((other) => other !== resource)
                .map((other) => ({
                  target: `./${ADMIN}/${resource}`,
                  from: `./${ADMIN}/${other}`,
                  except: ['./api.ts'],
                  message: `An admin resource uses ${other}/ only through ${other}/api.ts.`,
                })),
              {
                target: `./${ADMIN}/${resource}`,
                from: `./${ADMIN}/AdminPage.tsx`,
                message: 'The admin page imports its tabs, not the reverse.',
              },
            ]),
          ],
        },
      ],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  eslintConfigPrettier,
);
