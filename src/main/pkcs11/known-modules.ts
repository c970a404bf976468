/**
 * The PKCS#11 modules the app offers: the usual install paths of SoftHSM2, OpenSC and Yubico's ykcs11 that exist on
 * this machine, and any module a profile already uses (set from the CLI). Loading a module runs its code in main, so
 * the window may choose among these and never name a library of its own.
 */
import { existsSync } from 'node:fs';
import { QkError } from '../../shared/errors';

export interface Pkcs11ModuleChoice {
  path: string;
  name: string;
}

const WELL_KNOWN: readonly Pkcs11ModuleChoice[] = [
  { name: 'SoftHSM2', path: '/usr/lib/softhsm/libsofthsm2.so' },
  { name: 'SoftHSM2', path: '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so' },
  { name: 'SoftHSM2', path: '/usr/lib64/pkcs11/libsofthsm2.so' },
  { name: 'SoftHSM2', path: '/opt/homebrew/lib/softhsm/libsofthsm2.so' },
  { name: 'OpenSC', path: '/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so' },
  { name: 'OpenSC', path: '/usr/lib/aarch64-linux-gnu/opensc-pkcs11.so' },
  { name: 'OpenSC', path: '/usr/lib64/opensc-pkcs11.so' },
  { name: 'OpenSC', path: '/Library/OpenSC/lib/opensc-pkcs11.so' },
  { name: 'YubiKey (ykcs11)', path: '/usr/lib/x86_64-linux-gnu/libykcs11.so.2' },
  { name: 'YubiKey (ykcs11)', path: '/usr/lib/aarch64-linux-gnu/libykcs11.so.2' },
  { name: 'YubiKey (ykcs11)', path: '/usr/lib64/libykcs11.so.2' },
  { name: 'YubiKey (ykcs11)', path: '/opt/homebrew/lib/libykcs11.dylib' },
  { name: 'YubiKey (ykcs11)', path: '/usr/local/lib/libykcs11.dylib' },
];

/** The modules present here, then those profiles use that are not among them. */
export function offeredModules(profileModules: readonly string[], exists: (path: string) => boolean = existsSync): Pkcs11ModuleChoice[] {
  const offered = WELL_KNOWN.filter((choice) => exists(choice.path));
  for (const path of new Set(profileModules)) {
    if (!offered.some((choice) => choice.path === path)) offered.push({ path, name: 'used by a profile' });
  }
  return offered;
}

/** Refuses a module main does not offer, before anything loads it. */
export function assertOffered(module: string, offered: readonly Pkcs11ModuleChoice[]): void {
  if (offered.some((choice) => choice.path === module)) return;
  throw new QkError(
    'REQUEST_INVALID',
    `the PKCS#11 module ${JSON.stringify(module)} is not one this app offers (${
      offered.length === 0 ? 'none is installed: install SoftHSM2, OpenSC or ykcs11' : offered.map((choice) => choice.path).join(', ')
    }); a module elsewhere is set from the CLI (profiles add --pkcs11-module)`,
    { field: 'module' },
  );
}
