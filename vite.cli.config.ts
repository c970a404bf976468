/**
 * The operator's command line as a built program (`npm run build:cli`, the `quorumkey` bin): `out/cli/quorumkey.js`,
 * one ES module with the libraries bundled in, so a start parses JavaScript once instead of compiling TypeScript. The
 * entry reads the arguments before it imports a command's code (a chunk in `out/cli/chunks`), so `--help` loads
 * almost nothing. The OS keychain's native module stays external, loaded from node_modules by the commands that use
 * the keychain. The worker threads' entries are built beside it, where src/node/worker-entry.ts looks for them.
 * `sources.json` lists every file bundled, for `npm run cli` to rebuild when one is newer than the build.
 */
import { chmod } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { bundledTinySecp256k1Wasm } from './scripts/bundled-wasm.ts';

const root = import.meta.dirname;
const CLI_ENTRY = 'quorumkey';
const CLI_SOURCES_FILE = 'sources.json';

/** Writes `sources.json` (the files bundled, relative to the repository) and makes the bin executable. */
function cliArtifacts(): Plugin {
  return {
    name: 'quorumkey-cli-artifacts',
    generateBundle() {
      // npm writes installed files with a fixed old mtime, so a dependency change shows in the lockfile instead.
      const bundled = [...this.getModuleIds()].map((id) => relative(root, id.split('?')[0]!)).filter((path) => path.startsWith('src/'));
      const sources = [...bundled, 'package-lock.json', 'vite.cli.config.ts'].sort();
      this.emitFile({ type: 'asset', fileName: CLI_SOURCES_FILE, source: `${JSON.stringify(sources, null, 1)}\n` });
    },
    async writeBundle({ dir }) {
      if (dir !== undefined) await chmod(join(dir, `${CLI_ENTRY}.js`), 0o755);
    },
  };
}

export default defineConfig({
  // Bundle every library except the native ones (the keychain's, pkcs11js): their binaries are found in node_modules.
  ssr: { noExternal: true },
  plugins: [cliArtifacts(), bundledTinySecp256k1Wasm()],
  build: {
    ssr: true,
    // The tests build their own copy elsewhere (test/support/cli-build-setup.ts), so a run never sees another's build.
    outDir: resolve(root, 'out/cli'),
    emptyOutDir: true,
    target: 'node24',
    minify: false,
    reportCompressedSize: false,
    rollupOptions: {
      external: [/^@napi-rs\/keyring(?:\/|$)/, /^pkcs11js(?:\/|$)/],
      input: {
        [CLI_ENTRY]: resolve(root, 'src/main/cli/index.ts'),
        // The Sandbox the CLI starts in-process signs on these threads (src/service/enclave/signing-pool.ts).
        'signing-worker': resolve(root, 'src/service/enclave/signing-worker.ts'),
        // Its costly policy decisions are made on this one (src/service/authorize/policy-pool.ts).
        'policy-worker': resolve(root, 'src/service/authorize/policy-worker.ts'),
        // A large journal is verified, and a policy draft rehearsed, off the command's thread.
        'journal-verify-worker': resolve(root, 'src/main/journal/verify-worker.ts'),
        'policy-draft-worker': resolve(root, 'src/main/policies/draft-worker.ts'),
        // `sign` simulates the transaction it prints on this one (src/main/simulation/off-thread.ts).
        'simulation-worker': resolve(root, 'src/main/simulation/simulation-worker.ts'),
      },
      output: {
        entryFileNames: '[name].js',
        chunkFileNames: 'chunks/[name]-[hash].js',
        banner: (chunk) => (chunk.isEntry && chunk.name === CLI_ENTRY ? '#!/usr/bin/env node' : ''),
      },
    },
  },
});
