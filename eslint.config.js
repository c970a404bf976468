// Lint rules that make the architecture's boundaries real (docs/architecture.md#import-directions).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import boundaries from 'eslint-plugin-boundaries';
import regexp from 'eslint-plugin-regexp';
import reactHooks from 'eslint-plugin-react-hooks';
import jsxA11y from 'eslint-plugin-jsx-a11y-x';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

const nodeBuiltins = {
  group: ['node:*'],
  message: 'src/shared and src/renderer are pure TypeScript: no Node built-ins.',
};
const electron = { name: 'electron', message: 'Only src/main and src/preload may import electron.' };
const mainOrService = {
  group: ['**/main/**', '**/service/**', '**/preload/**'],
  message: 'This layer may not import from main, preload or service.',
};
/** The chain libraries stay in main and the service: the window renders readings main computed (no decoder). */
const chainLibraries = {
  group: ['viem', 'viem/*', '@solana/*', '@scure/btc-signer', '@scure/btc-signer/*'],
  message: 'The window bundles no chain decoder: main reads activities (src/main/activities/readings.ts) and sends the readings.',
};
/**
 * The window never decides what a policy does to an activity: main evaluates and sends the verdict and who may vote
 * (src/main/approvals/vote-reading.ts). The editor reads expressions through the parser and checker alone.
 */
const policyEvaluation = {
  // The language's index (which re-exports them), the evaluator, the engine and the explainer; its parser, checker and
  // schema stay open to the editor.
  regex: '(^|/)shared/policy(/(index|evaluator|engine|explain))?$',
  message: 'The window evaluates no policy: main sends the verdict and who may vote (src/main/approvals/vote-reading.ts).',
};
/**
 * Nor does it count votes: who proposed an activity, the viewer's vote, how many approve and how many it needs are main's
 * vote reading. The voting module's schemas, types and window length stay open to the window.
 */
const voteCounting = {
  regex: '(^|/)shared/approvals/voting$',
  importNames: ['tallyVotes', 'currentVoteOf', 'countingApprovals', 'hasCountingApproval', 'currentApprovalWindow'],
  message: 'The window counts no votes: main sends who proposed it, your vote and "1 of 2 approved" (src/main/approvals/vote-reading.ts).',
};
const bareNodeModules = ['fs', 'path', 'os', 'crypto', 'child_process', 'http', 'https', 'net', 'url', 'util', 'stream', 'buffer', 'events'].map(
  (name) => ({ name, message: 'No Node built-ins here.' }),
);

/**
 * The layers and the directions imports may point between them (docs/architecture.md#import-directions), checked by
 * eslint-plugin-boundaries. Elements are folders; a file belongs to the deepest one that holds it. Every relative
 * import must resolve to a known element (no-unknown-dependencies), so an import the resolver cannot follow (a `.js`
 * suffix on a TypeScript module) cannot slip past the check.
 */
export const layers = [
  { type: 'decoders', pattern: 'src/shared/{chains,clear-signing}' },
  { type: 'shared', pattern: 'src/shared' },
  { type: 'node', pattern: 'src/node' },
  { type: 'service-activities', pattern: 'src/service/activities' },
  { type: 'service-families', pattern: 'src/service/families' },
  { type: 'service', pattern: 'src/service' },
  { type: 'main', pattern: 'src/main' },
  { type: 'preload', pattern: 'src/preload' },
  { type: 'renderer', pattern: 'src/renderer' },
  { type: 'resources', pattern: 'resources' },
];
const serviceTypes = ['service-activities', 'service-families', 'service'];
/**
 * What each layer may import. The pipeline (service-activities) imports no family: families hand it hooks. The chain
 * decoders (src/shared/chains, src/shared/clear-signing) are shared code the window may not import.
 */
export const mayImport = {
  decoders: ['shared', 'decoders'],
  shared: ['shared', 'decoders'],
  node: ['shared', 'decoders', 'node'],
  'service-activities': ['shared', 'decoders', 'node', 'service-activities', 'service'],
  'service-families': ['shared', 'decoders', 'node', ...serviceTypes],
  service: ['shared', 'decoders', 'node', ...serviceTypes],
  main: ['shared', 'decoders', 'node', 'main'],
  preload: ['shared'],
  renderer: ['shared', 'renderer', 'resources'],
};
/** Main reaches the service only through its entry, to embed it (the Sandbox). */
const serviceEntry = { element: { type: 'service', fileInternalPath: 'index.ts' } };

/**
 * Exported for test/lint/boundaries.test.ts, which runs it on fixtures that break each rule and checks that
 * docs/architecture.md states the same elements and directions.
 */
export const layerBoundaries = {
  files: ['src/**/*.{ts,tsx}'],
  plugins: { boundaries },
  settings: {
    'boundaries/elements': layers,
    'import/resolver': { node: { extensions: ['.ts', '.tsx', '.js'] } },
  },
  rules: {
    'boundaries/no-unknown-dependencies': 'error',
    'boundaries/dependencies': [
      'error',
      {
        default: 'disallow',
        policies: Object.entries(mayImport).map(([from, to]) => ({
          from: { element: { type: from } },
          allow: { to: [{ element: { types: { anyOf: to } } }, ...(from === 'main' ? [serviceEntry] : [])] },
        })),
      },
    ],
  },
};

/**
 * No import circles in src: a module reached again by its own imports is loaded half-initialised, and the folders on
 * the circle can no longer be read or changed one at a time. Type-only imports are left out (they vanish when
 * compiled); a folder that needs another's function takes it as a parameter instead. Exported for the lint test.
 */
export const importCycles = {
  files: ['src/**/*.{ts,tsx}'],
  plugins: { 'import-x': importX },
  settings: {
    // The rule reads each imported module itself: TypeScript files, resolved as the boundaries rule resolves them.
    'import-x/extensions': ['.ts', '.tsx', '.js'],
    'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })],
  },
  // A circle through a library would have to come back into src, and no library imports src: following imports into
  // node_modules (parsing each library module they reach) can find none.
  rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
};

/**
 * The window's imports: no Node, no Electron, no main or service, no chain library, no policy evaluator, no vote
 * counting. Exported for the lint test.
 */
export const rendererImports = {
  files: ['src/renderer/**/*.{ts,tsx}'],
  rules: {
    'no-restricted-imports': [
      'error',
      { paths: [electron, ...bareNodeModules], patterns: [nodeBuiltins, mainOrService, chainLibraries, policyEvaluation, voteCounting] },
    ],
  },
};

/**
 * The window's React: the rules of hooks with the React Compiler's checks (state set in an effect, refs read while
 * rendering, impure renders), and accessible markup. Recommended sets as published; exported for the lint test.
 */
export const rendererReact = [
  { ...reactHooks.configs.flat.recommended, files: ['src/renderer/**/*.{ts,tsx}'] },
  {
    ...jsxA11y.configs.recommended,
    files: ['src/renderer/**/*.tsx'],
    rules: {
      ...jsxA11y.configs.recommended.rules,
      // A box of raw text that scrolls is a named region the keyboard must reach (WCAG 2.1.1), as tabpanels are.
      'jsx-a11y-x/no-noninteractive-tabindex': ['error', { tags: [], roles: ['tabpanel', 'region'] }],
    },
  },
];

export default tseslint.config(
  {
    // Build and test output, and the generated ERC-7730 registry (one 1.3 MB string written by `clear-signing refresh`).
    // electron-vite bundles its config into a file beside it for the length of a build, and `npm test` builds while
    // this lint runs: listed and gone before it is read, that file would fail the lint.
    ignores: [
      'electron.vite.config.ts.*.mjs',
      '.tmp/**',
      'out/**',
      '**/dist/**',
      'node_modules/**',
      'test-results/**',
      'playwright-report/**',
      'coverage/**',
      'src/main/clear-signing/erc7730-registry.generated.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  regexp.configs['flat/recommended'],
  {
    // Patterns run on untrusted input: backtracking blow-ups freeze the event loop (and the whole app with it).
    rules: {
      'regexp/no-super-linear-backtracking': 'error',
      'regexp/no-super-linear-move': 'error',
      'regexp/no-misleading-capturing-group': 'error',
      // Spelling preferences only ([0-9] vs \d, [A-Za-z] vs the i flag): explicit classes read fine in hex and ids.
      'regexp/prefer-d': 'off',
      'regexp/prefer-w': 'off',
      'regexp/use-ignore-case': 'off',
    },
  },
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.browser },
      // Type-aware rules read each file's types from the tsconfig that includes it; the files outside it (this
      // config, the icon script) get a default project.
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'resources/*.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
      // IPC handler tables and test fakes implement Promise-returning interfaces; `async` without `await` is what
      // makes a throw there a rejection, as callers expect, rather than a synchronous exception.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['src/shared/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electron, ...bareNodeModules], patterns: [nodeBuiltins, mainOrService] }],
    },
  },
  rendererImports,
  ...rendererReact,
  {
    // An expression that cannot be evaluated is an expected outcome, once per policy per request: the evaluator
    // throws a plain EvaluationFailure, which captures no stack, and callers make it an error only when they want one.
    files: ['src/shared/policy/evaluator.ts'],
    rules: { '@typescript-eslint/only-throw-error': ['error', { allow: [{ from: 'file', name: 'EvaluationFailure' }] }] },
  },
  {
    files: ['src/service/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [electron], patterns: [{ group: ['**/main/**', '**/renderer/**', '**/preload/**'], message: 'The service stands alone.' }] },
      ],
    },
  },
  layerBoundaries,
  importCycles,
  {
    files: ['src/service/cli.ts', 'src/main/cli/**/*.ts', 'test/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    // Tests read JSON response bodies (typed any) member by member and assert on them; the assertions are the type
    // check there, so typing every body first would add hundreds of casts and catch nothing.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
