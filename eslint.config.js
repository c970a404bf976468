// Lint rules that make the architecture's boundaries real (docs/architecture.md#import-directions).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeBuiltins = {
  group: ['node:*'],
  message: 'src/shared and src/renderer are pure TypeScript: no Node built-ins.',
};
const electron = { name: 'electron', message: 'Only src/main and src/preload may import electron.' };
const mainOrService = {
  group: ['**/main/**', '**/service/**', '**/preload/**'],
  message: 'This layer may not import from main, preload or service.',
};
const bareNodeModules = [
  'fs', 'path', 'os', 'crypto', 'child_process', 'http', 'https', 'net', 'url', 'util', 'stream', 'buffer', 'events',
].map((name) => ({ name, message: 'No Node built-ins here.' }));

export default tseslint.config(
  { ignores: ['.tmp/**', 'out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error', 'warn'] }],
    },
  },
  {
    files: ['src/shared/**/*.{ts,tsx}', 'src/renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', { paths: [electron, ...bareNodeModules], patterns: [nodeBuiltins, mainOrService] }],
    },
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
  {
    files: ['src/service/cli.ts', 'src/main/cli/**/*.ts', 'test/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
