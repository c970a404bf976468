/**
 * The Sandbox's own package (`sandbox/`, docs/sandbox.md#one-command): the command line, the programmatic entry and
 * the entries of the signing and policy workers, each an ES module in `sandbox/dist`, with every library bundled in,
 * so the package has no dependencies and runs with plain Node 24. The command line's service code is a chunk of its
 * own, loaded after the flags are read. `index.d.ts` is the programmatic entry's declarations. `npm pack` in
 * `sandbox/` builds it (its `prepack` script).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { defineConfig, type Plugin } from 'vite';
import { bundledTinySecp256k1Wasm } from './scripts/bundled-wasm.ts';

const root = import.meta.dirname;
const manifest = JSON.parse(readFileSync(resolve(root, 'sandbox/package.json'), 'utf8')) as { version: string };
const PROGRAMMATIC_ENTRY = resolve(root, 'src/service/sandbox.ts');

/** Emits `index.d.ts` from the programmatic entry, which declares every type it exports itself. */
function declarations(): Plugin {
  return {
    name: 'quorumkey-sandbox-declarations',
    generateBundle() {
      const { outputText, diagnostics } = ts.transpileDeclaration(readFileSync(PROGRAMMATIC_ENTRY, 'utf8'), {
        fileName: PROGRAMMATIC_ENTRY,
        compilerOptions: { strict: true, exactOptionalPropertyTypes: true },
      });
      if (diagnostics !== undefined && diagnostics.length > 0) {
        const messages = diagnostics.map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
        this.error(`src/service/sandbox.ts cannot be declared on its own: ${messages.join('; ')}`);
      }
      this.emitFile({ type: 'asset', fileName: 'index.d.ts', source: outputText });
    },
  };
}

export default defineConfig({
  define: { __QUORUMKEY_SANDBOX_VERSION__: JSON.stringify(manifest.version) },
  // Bundle every dependency: an install of the package fetches nothing else.
  ssr: { noExternal: true },
  plugins: [declarations(), bundledTinySecp256k1Wasm()],
  build: {
    ssr: true,
    outDir: resolve(root, 'sandbox/dist'),
    emptyOutDir: true,
    target: 'node24',
    minify: false,
    rollupOptions: {
      input: {
        'quorumkey-sandbox': resolve(root, 'src/service/cli.ts'),
        index: PROGRAMMATIC_ENTRY,
        // Found beside the bundle at run time (src/node/worker-entry.ts).
        'signing-worker': resolve(root, 'src/service/enclave/signing-worker.ts'),
        'policy-worker': resolve(root, 'src/service/authorize/policy-worker.ts'),
      },
      output: {
        entryFileNames: '[name].js',
        chunkFileNames: 'chunks/[name]-[hash].js',
        banner: (chunk) => (chunk.isEntry && chunk.name === 'quorumkey-sandbox' ? '#!/usr/bin/env node' : ''),
      },
    },
  },
});
