/**
 * The packaged app's Electron fuses (electron-builder.yml `electronFuses`): nothing from outside may turn the
 * binary into a plain Node runtime, pass it Node options or inspector flags, or load code other than the checked asar.
 * The `yaml` package is not a dependency, so the block is read with a deliberately strict parser: a top-level
 * `electronFuses:` mapping of `name: true|false` lines, nothing else in it, no name twice.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CONFIG = join(import.meta.dirname, '../../electron-builder.yml');

const REQUIRED_FUSES = {
  runAsNode: false,
  enableNodeOptionsEnvironmentVariable: false,
  enableNodeCliInspectArguments: false,
  onlyLoadAppFromAsar: true,
  enableEmbeddedAsarIntegrityValidation: true,
};

/** The `electronFuses` mapping of an electron-builder YAML file; throws on anything this check does not understand. */
function readFuses(yaml: string): Record<string, boolean> {
  const lines = yaml.split('\n');
  const starts = lines.flatMap((line, index) => (/^electronFuses\s*:\s*(?:#.*)?$/.test(line) ? [index] : []));
  if (starts.length !== 1) throw new Error(`expected one top-level "electronFuses:" key, found ${starts.length}`);
  const fuses: Record<string, boolean> = {};
  for (const line of lines.slice(starts[0]! + 1)) {
    if (/^\s*(?:#.*)?$/.test(line)) continue;
    if (!/^\s/.test(line)) break;
    const entry = /^ {2}([A-Za-z]+):\s*(true|false)\s*(#.*)?$/.exec(line);
    if (entry === null) throw new Error(`electronFuses holds a line this check does not accept: ${JSON.stringify(line)}`);
    const [, name, value] = entry;
    if (name! in fuses) throw new Error(`electronFuses sets ${name} twice`);
    fuses[name!] = value === 'true';
  }
  return fuses;
}

describe('electron-builder.yml', () => {
  it('sets the Electron fuses', () => {
    expect(readFuses(readFileSync(CONFIG, 'utf8'))).toEqual(expect.objectContaining(REQUIRED_FUSES));
  });

  it('reads only a well-formed fuse block', () => {
    expect(readFuses('appId: x\nelectronFuses:\n  runAsNode: false\n  # why\n  onlyLoadAppFromAsar: true\nlinux: {}\n')).toEqual({
      runAsNode: false,
      onlyLoadAppFromAsar: true,
    });
    expect(() => readFuses('appId: x\n')).toThrow(/one top-level "electronFuses:"/);
    expect(() => readFuses('electronFuses:\n  runAsNode: no\n')).toThrow(/does not accept/);
    expect(() => readFuses('electronFuses:\n  runAsNode: false\n  runAsNode: true\n')).toThrow(/twice/);
    expect(() => readFuses('electronFuses:\n    runAsNode: false\n')).toThrow(/does not accept/);
  });
});
