/**
 * The plugin that carries tiny-secp256k1's WebAssembly into the bundling builds (scripts/bundled-wasm.ts), run hook by
 * hook on the installed library's own loader: the read it rewrites is still there, the URL it writes is relative to the
 * chunk the loader lands in, the file it emits is the library's, and a loader that reads otherwise fails the build.
 * The packed Sandbox signing (test/service/package.test.ts) is the whole of it, built for real.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledTinySecp256k1Wasm } from '../../scripts/bundled-wasm';

const libraryDirectory = join(dirname(createRequire(import.meta.url).resolve('tiny-secp256k1')), '..');
const loaderId = join(libraryDirectory, 'wasm_loader.js');

type Hook = (this: unknown, ...args: unknown[]) => unknown;

/** The plugin's hooks as plain functions, with the context each needs. */
function hooks() {
  const plugin = bundledTinySecp256k1Wasm() as unknown as Record<'transform' | 'renderChunk' | 'generateBundle', Hook>;
  const emitted: unknown[] = [];
  const context = {
    error(message: string): never {
      throw new Error(message);
    },
    emitFile(file: unknown) {
      emitted.push(file);
      return 'reference';
    },
  };
  return {
    emitted,
    transform: (code: string, id: string) => plugin.transform.call(context, code, id) as { code: string } | null,
    renderChunk: (code: string, fileName: string) => plugin.renderChunk.call(context, code, { fileName }) as { code: string } | null,
    generateBundle: () => plugin.generateBundle.call(context),
  };
}

describe("the bundling builds' tiny-secp256k1 WebAssembly", () => {
  it('points the installed loader at the file beside the bundle, from the chunk the loader lands in', () => {
    const { transform, renderChunk } = hooks();
    const transformed = transform(readFileSync(loaderId, 'utf8'), loaderId);
    expect(transformed?.code).not.toContain('path("secp256k1.wasm")');
    expect(renderChunk(transformed!.code, 'signing-worker.js')?.code).toContain('readFileSync(new URL("./secp256k1.wasm", import.meta.url))');
    expect(renderChunk(transformed!.code, 'chunks/service-abc.js')?.code).toContain('readFileSync(new URL("../secp256k1.wasm", import.meta.url))');
  });

  it("writes the library's own file, once, at the top of the build", () => {
    const { transform, generateBundle, emitted } = hooks();
    transform(readFileSync(loaderId, 'utf8'), loaderId);
    generateBundle();
    expect(emitted).toEqual([{ type: 'asset', fileName: 'secp256k1.wasm', source: readFileSync(join(libraryDirectory, 'secp256k1.wasm')) }]);
  });

  it('leaves every other module, chunk and build alone', () => {
    const { transform, renderChunk, generateBundle, emitted } = hooks();
    expect(transform('export const a = 1;', join(libraryDirectory, 'index.js'))).toBeNull();
    expect(renderChunk('export const a = 1;', 'index.js')).toBeNull();
    generateBundle();
    expect(emitted).toEqual([]);
  });

  it('fails the build when a new version of the loader reads its WebAssembly otherwise', () => {
    const { transform } = hooks();
    expect(() => transform('const binary = await fetch(new URL("secp256k1.wasm", import.meta.url));', loaderId)).toThrow(
      /tiny-secp256k1's loader .* no longer reads its WebAssembly as readFileSync\(path\("secp256k1\.wasm"\)\)/,
    );
  });
});
