import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  main: {
    build: {
      // The service entry is built beside main: the app runs the Sandbox from it in a utility process. Its signing and
      // policy workers load their own entries, found beside the service's code (src/service/enclave/signing-pool.ts).
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          service: resolve(__dirname, 'src/service/cli.ts'),
          'signing-worker': resolve(__dirname, 'src/service/enclave/signing-worker.ts'),
          'policy-worker': resolve(__dirname, 'src/service/authorize/policy-worker.ts'),
          // Main verifies a large journal on a worker thread from this entry (src/main/journal/verify-off-thread.ts).
          'journal-verify-worker': resolve(__dirname, 'src/main/journal/verify-worker.ts'),
          // Main rehearses a policy draft and dry-runs one on a worker thread from this entry (src/main/policies/off-thread.ts).
          'policy-draft-worker': resolve(__dirname, 'src/main/policies/draft-worker.ts'),
          // Main simulates a transaction on a worker thread from this entry (src/main/simulation/off-thread.ts).
          'simulation-worker': resolve(__dirname, 'src/main/simulation/simulation-worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // Sandboxed preloads must be CommonJS and self-contained: their require() only knows 'electron'.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      // electron-vite leaves the window's script unminified; minified, it parses faster and stays within its budget
      // (test/config/renderer-bundle.test.ts).
      minify: true,
      // One script is meant (a desktop app loads it from disk); its budget is gzipped size, which a test checks.
      chunkSizeWarningLimit: 1024,
      rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
    plugins: [react()],
  },
});
