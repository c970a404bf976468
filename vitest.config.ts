import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: parallel files are fine, but keep the pool small so crypto-heavy suites don't starve.
    maxWorkers: 2,
  },
});
