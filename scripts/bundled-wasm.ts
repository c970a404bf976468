/**
 * A Vite plugin for the builds that bundle every library (the Sandbox's package, the CLI, the tests' built entries):
 * tiny-secp256k1, which the signing workers sign secp256k1 with (src/service/enclave/signing.ts), reads its
 * WebAssembly from the file beside its own module. Bundled, its module is no longer there, so the plugin writes the
 * file at the top of the build's folder and points the read at it, relative to whichever chunk the code lands in.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type { Plugin } from 'vite';

const LOADER = /[\\/]tiny-secp256k1[\\/]lib[\\/]wasm_loader\.js$/;
const WASM_FILE = 'secp256k1.wasm';
const READ = `readFileSync(path("${WASM_FILE}"))`;
/** Stands for the file's URL until the chunk that reads it, and so the path from it, is known. */
const PLACEHOLDER = '__QUORUMKEY_TINY_SECP256K1_WASM_URL__';

export function bundledTinySecp256k1Wasm(): Plugin {
  let wasm: Buffer | undefined;
  return {
    name: 'quorumkey-bundled-tiny-secp256k1-wasm',
    apply: 'build',
    transform(code, id) {
      if (!LOADER.test(id)) return null;
      // A new version that loads its WebAssembly otherwise must fail the build, not the first signature.
      if (!code.includes(READ)) this.error(`tiny-secp256k1's loader (${id}) no longer reads its WebAssembly as ${READ}`);
      wasm = readFileSync(join(dirname(id), WASM_FILE));
      return { code: code.replace(READ, `readFileSync(${PLACEHOLDER})`), map: null };
    },
    renderChunk(code, chunk) {
      if (!code.includes(PLACEHOLDER)) return null;
      const fromChunk = posix.relative(posix.dirname(chunk.fileName), WASM_FILE);
      const url = `new URL(${JSON.stringify(fromChunk.startsWith('.') ? fromChunk : `./${fromChunk}`)}, import.meta.url)`;
      return { code: code.replaceAll(PLACEHOLDER, url), map: null };
    },
    generateBundle() {
      if (wasm !== undefined) this.emitFile({ type: 'asset', fileName: WASM_FILE, source: wasm });
    },
  };
}
