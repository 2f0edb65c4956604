// ESLint for the whole repository: typescript-eslint with type information, React's hook rules for
// the web app, no import cycles, and the web app's feature boundaries. Formatting is Prettier's.
import { readdirSync } from 'node:fs';
import eslintConfigPrettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const FEATURES = 'web/src/features';
const features = readdirSync(new URL(`./${FEATURES}`, import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'generated/', '.wrangler/', 'sdk/dist/', 'bench/profiles/', 'e2e/screenshots/', '**/*.d.ts'],
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
      // A feature imports only its own folder, components/ and lib/ (and the shared API schemas);
      // what one feature offers another goes through the app shell (app/).
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: features.map((feature) => ({
            target: `./${FEATURES}/${feature}`,
            from: `./${FEATURES}`,
            except: [`./${feature}`],
            message: 'A web feature imports only from its own folder, components/ and lib/.',
          })),
        },
      ],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  eslintConfigPrettier,
);
