// ESLint for the whole repository: typescript-eslint with type information, React's hook rules for
// the web app, no import cycles, and the web app's feature boundaries. Formatting is Prettier's.
import { readdirSync } from 'node:fs';
import eslintConfigPrettier from 'eslint-config-prettier';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

const MODULES = 'worker/modules';
const modules = readdirSync(new URL(`./${MODULES}`, import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
/** A module's own files. */
const codeOf = (module) => `./${MODULES}/${module}`;
const APP_LAYER = ['./worker/app.ts', './worker/index.ts', './worker/scheduled.ts'];

const FEATURES = 'web/src/features';
const folders = (path) =>
  readdirSync(new URL(`./${path}`, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
const features = folders(FEATURES);
// The admin panel, one folder per resource (users, products, license keys, ...) under its shell.
const ADMIN = `${FEATURES}/admin`;
const adminResources = folders(ADMIN);

// The web app's boundaries.
const webZones = [
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
];

// What the web app and the CLI may take from the Worker: the words, the API's types and the zod
// schemas of its inputs; never its code.
const clientZone = {
  target: ['./web/src', './cli'],
  from: './worker',
  except: [
    './platform/vocabulary.ts',
    './platform/api-client.ts',
    './platform/schemas',
    ...modules.flatMap((module) => [`./modules/${module}/schemas.ts`, `./modules/${module}/schemas`]),
  ],
  message: 'Clients take only the vocabulary, the API types and the input schemas from worker/.',
};

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
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [...webZones, clientZone],
        },
      ],
    },
  },
  {
    // The Worker's layers (docs/architecture.md): platform/ imports no module; a module uses another
    // only through its index.ts (and its schemas); only the app layer (app.ts, index.ts, scheduled.ts)
    // mounts a module's routes.ts and runs its jobs.ts.
    files: ['worker/**/*.ts'],
    // Tests may reach into what they test, and drive the app.
    ignores: ['worker/**/test/**'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './worker/platform',
              from: ['./worker/modules', ...APP_LAYER],
              message: 'worker/platform is below every module: it imports none of them, nor the app.',
            },
            { target: `./${MODULES}`, from: APP_LAYER, message: 'A module does not import the app layer that mounts it.' },
            ...modules.flatMap((module) => [
              {
                target: modules.filter((other) => other !== module).map(codeOf),
                from: `./${MODULES}/${module}`,
                // Its schemas are the API's shared contract (the web app and the CLI import them too).
                except: ['./index.ts', './schemas.ts', './schemas'],
                message: `Another module uses ${module} through ${MODULES}/${module}/index.ts (or its schemas), not its internals.`,
              },
              {
                target: APP_LAYER,
                from: `./${MODULES}/${module}`,
                except: ['./index.ts', './routes.ts', './jobs.ts', './schemas.ts', './schemas'],
                message: `The app layer mounts ${module}'s routes.ts, runs its jobs.ts and uses the rest through its index.ts.`,
              },
            ]),
          ],
        },
      ],
    },
  },
  {
    // The CLI's part of clientZone (the web app's is in its own block above: a later block's
    // no-restricted-paths would replace, not join, an earlier one's for the same files).
    files: ['cli/**/*.ts'],
    ignores: ['cli/test/**'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [clientZone],
        },
      ],
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  eslintConfigPrettier,
);
