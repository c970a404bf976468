/**
 * The Sandbox as a plain Node program (`quorumkey-sandbox`, docs/sandbox.md#one-command): the service entry bundled
 * into one ES module with its dependencies left as imports, so an install with `--omit=dev` runs it without tsx or a
 * build. `npm pack` builds it (the `prepack` script).
 */
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    ssr: resolve(import.meta.dirname, 'src/service/cli.ts'),
    outDir: 'dist-sandbox',
    emptyOutDir: true,
    target: 'node24',
    minify: false,
    rollupOptions: { output: { entryFileNames: 'quorumkey-sandbox.js', banner: '#!/usr/bin/env node' } },
  },
});
