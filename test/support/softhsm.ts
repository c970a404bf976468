/**
 * A SoftHSM2 token in a temporary directory, for the PKCS#11 tests: its own configuration file (SOFTHSM2_CONF, set in
 * this process and so inherited by the CLI processes it starts) and one initialized token. The tests skip, saying so,
 * only where softhsm2 is not installed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const SOFTHSM_MODULE = '/usr/lib/softhsm/libsofthsm2.so';

function commandExists(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const softhsmPresent = existsSync(SOFTHSM_MODULE) && commandExists('softhsm2-util');
if (!softhsmPresent) {
  console.warn(`PKCS#11 tests skipped: softhsm2 is not installed (${SOFTHSM_MODULE}, softhsm2-util); apt-get install softhsm2`);
}

/** Makes an empty token labelled `label` with user PIN `pin`; the returned function removes its directory. */
export async function initSoftHsmToken(label: string, pin: string): Promise<() => Promise<void>> {
  const directory = await mkdtemp(join(tmpdir(), 'qk-softhsm-'));
  const config = join(directory, 'softhsm2.conf');
  await writeFile(config, `directories.tokendir = ${directory}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  // SoftHSM2 reads its configuration when the module is initialized: this token directory is all it sees.
  process.env.SOFTHSM2_CONF = config;
  execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', '13579111'], { stdio: 'ignore' });
  return () => rm(directory, { recursive: true, force: true });
}
