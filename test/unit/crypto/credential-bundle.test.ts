import { describe, expect, it } from 'vitest';
import { openCredentialBundle, sealCredentialBundle } from '../../../src/shared/crypto/credential-bundle';
import { bytesToHex, hexToBytes } from '../../../src/shared/crypto/encoding';
import { generateEncryptionKeyPair } from '../../../src/shared/crypto/keys';
import { rejectionCode } from '../../support/assertions';

/** Published vector from tkhq/sdk packages/crypto tests (decryptCredentialBundle): a bundle produced by Turnkey. */
const TURNKEY_BUNDLE = 'w99a5xV6A75TfoAUkZn869fVyDYvgVsKrawMALZXmrauZd8hEv66EkPU1Z42CUaHESQjcA5bqd8dynTGBMLWB9ewtXWPEVbZvocB4Tw2K1vQVp7uwjf';
const TURNKEY_TARGET_PRIVATE_KEY = '20fa65df11f24833790ae283fc9a0c215eecbbc589549767977994dc69d05a56';
const TURNKEY_PLAINTEXT = '67ee05fc3bdf4161bc70701c221d8d77180294cefcfcea64ba83c4d4c732fcb9';

describe('credential bundles', () => {
  it('open the published Turnkey vector', async () => {
    expect(bytesToHex(await openCredentialBundle(TURNKEY_BUNDLE, TURNKEY_TARGET_PRIVATE_KEY))).toBe(TURNKEY_PLAINTEXT);
  });

  it('round-trip', async () => {
    const target = generateEncryptionKeyPair();
    const apiKey = hexToBytes('11'.repeat(32), 'key');
    const bundle = await sealCredentialBundle(apiKey, target.publicKey);
    expect(await openCredentialBundle(bundle, target.privateKey)).toEqual(apiKey);
  });

  it('reject tampering, the wrong key and garbage with typed errors', async () => {
    const flipped = TURNKEY_BUNDLE.slice(0, 40) + (TURNKEY_BUNDLE[40] === 'a' ? 'b' : 'a') + TURNKEY_BUNDLE.slice(41);
    expect(await rejectionCode(openCredentialBundle(flipped, TURNKEY_TARGET_PRIVATE_KEY))).toBe('BUNDLE_MALFORMED');
    expect(await rejectionCode(openCredentialBundle(TURNKEY_BUNDLE, generateEncryptionKeyPair().privateKey))).toBe('DECRYPTION_FAILED');
    expect(await rejectionCode(openCredentialBundle('0OIl', TURNKEY_TARGET_PRIVATE_KEY))).toBe('BUNDLE_MALFORMED');
  });
});
