/**
 * verifyBootProof (docs/formats.md#boot-proofs) over the Sandbox's real attestation, and over tamperings of it: each
 * refused as ATTESTATION_INVALID with a message naming what broke. Certificates an impostor would bring are made by
 * @peculiar/x509 with WebCrypto keys, and the document re-signed with them, so each check is reached on its own.
 */
import { CBORTag, decodeCBOR, encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { sandboxAttestation } from '../../../src/service/enclave/attestation';
import { ATTESTATION_LIMITS, coseSign1SignedBytes, verifyBootProof, type BootProof } from '../../../src/shared/crypto/attestation';
import { base64Decode, base64Encode, bytesToHex, concatBytes, utf8Encode } from '../../../src/shared/crypto/encoding';
import { expectQkError } from '../../support/assertions';

x509.cryptoProvider.set(globalThis.crypto);

const ISSUED_AT_MS = Date.UTC(2026, 10, 27, 8, 15, 30, 250);
const HOUR_MS = 60 * 60 * 1000;
const ROOT_SUBJECT = 'CN=QuorumKey Sandbox attestation root, O=QuorumKey';
const LEAF_SUBJECT = 'CN=quorumkey-sandbox, O=QuorumKey';

/** A 130-byte QOS-style key: two uncompressed P-256 points. */
function ephemeralKey(): Uint8Array {
  return concatBytes(p256.getPublicKey(p256.utils.randomSecretKey(), false), p256.getPublicKey(p256.utils.randomSecretKey(), false));
}

const secret = crypto.getRandomValues(new Uint8Array(32));
const key = ephemeralKey();
const manifest = utf8Encode(JSON.stringify({ namespace: 'quorumkey-local-service', ephemeralPublicKey: bytesToHex(key) }));

function sandboxBootProof(serviceSecret = secret): BootProof {
  const { document } = sandboxAttestation({ serviceSecret, issuedAtMs: ISSUED_AT_MS, manifest, ephemeralPublicKey: key });
  return {
    ephemeralPublicKeyHex: bytesToHex(key),
    awsAttestationDocB64: base64Encode(document),
    qosManifestB64: base64Encode(manifest),
    qosManifestEnvelopeB64: '',
    deploymentLabel: 'local',
    enclaveApp: 'signer',
    owner: 'quorumkey-local-service',
    createdAt: { seconds: String(Math.floor(ISSUED_AT_MS / 1000)), nanos: String((ISSUED_AT_MS % 1000) * 1e6) },
  };
}

const genuine = sandboxBootProof();

/** The genuine document's COSE_Sign1 members, and its payload decoded. */
function opened(boot: BootProof = genuine) {
  const [protectedHeader, unprotectedHeader, payload, signature] = decodeCBOR(base64Decode(boot.awsAttestationDocB64, 'document')) as [
    Uint8Array,
    Map<number, CBORType>,
    Uint8Array,
    Uint8Array,
  ];
  return { protectedHeader, unprotectedHeader, payload, signature, members: decodeCBOR(payload) as Map<string, CBORType> };
}

const genuineMembers = opened().members;
const sandboxRoot = new Uint8Array((genuineMembers.get('cabundle') as Uint8Array[])[0]!);
const sandboxLeaf = new Uint8Array(genuineMembers.get('certificate') as Uint8Array);

function withDocument(document: CBORType): BootProof {
  return { ...genuine, awsAttestationDocB64: base64Encode(encodeCBOR(document)) };
}

/** The genuine document with its payload edited, signed again by `signer` or left with the genuine signature. */
async function withPayload(edit: (members: Map<string, CBORType>) => void, signer?: CryptoKey): Promise<BootProof> {
  const { protectedHeader, unprotectedHeader, signature } = opened();
  const members = new Map(genuineMembers);
  edit(members);
  const payload = encodeCBOR(members);
  const newSignature =
    signer === undefined
      ? signature
      : new Uint8Array(
          await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-384' }, signer, new Uint8Array(coseSign1SignedBytes(protectedHeader, payload))),
        );
  return withDocument([protectedHeader, unprotectedHeader, payload, newSignature]);
}

interface Issuer {
  name: string;
  keys: CryptoKeyPair;
}

function keyPair(namedCurve: 'P-256' | 'P-384' = 'P-384'): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: 'ECDSA', namedCurve }, true, ['sign', 'verify']);
}

/** An impostor's certificate for `name` and `keys`, signed by `issuer` (itself when absent). */
async function impostorCertificate(name: string, keys: CryptoKeyPair, issuer: Issuer = { name, keys }, hash = 'SHA-384'): Promise<Uint8Array> {
  const certificate = await x509.X509CertificateGenerator.create({
    subject: name,
    issuer: issuer.name,
    publicKey: keys.publicKey,
    signingKey: issuer.keys.privateKey,
    signingAlgorithm: { name: 'ECDSA', hash },
    notBefore: new Date(ISSUED_AT_MS),
    notAfter: new Date(ISSUED_AT_MS + 3 * HOUR_MS),
  });
  return new Uint8Array(certificate.rawData);
}

/** A chain an impostor controls: its own root, optionally an intermediate, and a leaf; the document signed by the leaf. */
async function impostorChain(options: { rootSignedBy?: CryptoKeyPair; intermediateSignedBy?: CryptoKeyPair }) {
  const root: Issuer = { name: 'CN=impostor root', keys: await keyPair() };
  const rootDer = await impostorCertificate(root.name, root.keys, { name: root.name, keys: options.rootSignedBy ?? root.keys });
  const intermediate: Issuer = { name: 'CN=impostor intermediate', keys: await keyPair() };
  const intermediateDer = await impostorCertificate(intermediate.name, intermediate.keys, {
    name: root.name,
    keys: options.intermediateSignedBy ?? root.keys,
  });
  const leafKeys = await keyPair();
  const leafDer = await impostorCertificate('CN=impostor leaf', leafKeys, intermediate);
  return withPayload((members) => {
    members.set('cabundle', [rootDer, intermediateDer]);
    members.set('certificate', leafDer);
  }, leafKeys.privateKey);
}

const expectInvalid = (boot: BootProof, message: RegExp) => expectQkError(() => verifyBootProof(boot), 'ATTESTATION_INVALID', message);

describe('the Sandbox attestation', () => {
  it('verifies, and says who vouches for which key and manifest', () => {
    expect(verifyBootProof(genuine)).toEqual({
      rootFingerprint: bytesToHex(sha256(sandboxRoot)),
      rootSubject: ROOT_SUBJECT,
      ephemeralPublicKeyHex: bytesToHex(key),
      manifestSha256: bytesToHex(sha256(manifest)),
      timestampMs: ISSUED_AT_MS,
      moduleId: 'quorumkey-sandbox',
    });
  });

  it('is Nitro-shaped: untagged COSE_Sign1 with ES384 protected, the payload members in Nitro’s order, no nonce', () => {
    const { protectedHeader, unprotectedHeader, signature, members } = opened();
    expect(decodeCBOR(protectedHeader)).toEqual(new Map([[1, -35]]));
    expect(unprotectedHeader.size).toBe(0);
    expect(signature).toHaveLength(96);
    expect([...members.keys()]).toEqual(['module_id', 'digest', 'timestamp', 'pcrs', 'certificate', 'cabundle', 'public_key', 'user_data', 'nonce']);
    expect(members.get('nonce')).toBeNull();
    expect(members.get('cabundle')).toHaveLength(1);
  });

  it('is the same document for the same secret, time, manifest and key; another secret has another root', () => {
    expect(sandboxBootProof()).toEqual(genuine);
    const other = verifyBootProof(sandboxBootProof(crypto.getRandomValues(new Uint8Array(32))));
    expect(other.rootFingerprint).not.toBe(verifyBootProof(genuine).rootFingerprint);
    expect(other.rootSubject).toBe(ROOT_SUBJECT);
  });

  it('has a CA root valid 30 years and a leaf valid 3 hours, both from the issue time, as @peculiar/x509 reads them', async () => {
    const root = new x509.X509Certificate(sandboxRoot);
    const leaf = new x509.X509Certificate(sandboxLeaf);
    const issuedAtSeconds = Math.floor(ISSUED_AT_MS / 1000) * 1000;
    expect(root.notBefore.getTime()).toBe(issuedAtSeconds);
    expect(root.notAfter.getUTCFullYear()).toBe(new Date(ISSUED_AT_MS).getUTCFullYear() + 30);
    expect(leaf.notBefore.getTime()).toBe(issuedAtSeconds);
    expect(leaf.notAfter.getTime()).toBe(issuedAtSeconds + 3 * HOUR_MS);
    expect(leaf.issuer).toBe(root.subject);
    expect(root.getExtension(x509.BasicConstraintsExtension)?.ca).toBe(true);
    expect(leaf.getExtension(x509.BasicConstraintsExtension)?.ca).toBe(false);
    expect(leaf.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId).toBe(root.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
    expect(await root.verify({ publicKey: root.publicKey, signatureOnly: true })).toBe(true);
  });

  it('is accepted tagged as COSE_Sign1 (18) too, and not under another tag', () => {
    const { protectedHeader, unprotectedHeader, payload, signature } = opened();
    const members = [protectedHeader, unprotectedHeader, payload, signature];
    expect(verifyBootProof(withDocument(new CBORTag(18, members))).rootSubject).toBe(ROOT_SUBJECT);
    expectInvalid(withDocument(new CBORTag(98, members)), /tagged 98, not COSE_Sign1 \(18\)/);
  });

  it('does not decide trust: a self-consistent impostor chain verifies, naming its own root for the caller to refuse', async () => {
    const attested = verifyBootProof(await impostorChain({}));
    expect(attested.rootSubject).toBe('CN=impostor root');
    expect(attested.rootFingerprint).not.toBe(verifyBootProof(genuine).rootFingerprint);
  });
});

describe('refused boot proofs', () => {
  it('encoding: not base64, empty, oversized, not CBOR, not a COSE_Sign1', () => {
    expectInvalid({ ...genuine, awsAttestationDocB64: 'not*base64' }, /awsAttestationDocB64 is not valid base64/);
    expectInvalid({ ...genuine, awsAttestationDocB64: '' }, /has no awsAttestationDocB64/);
    const oversized = 'A'.repeat((ATTESTATION_LIMITS.documentBytes / 3 + 1) * 4);
    expectInvalid({ ...genuine, awsAttestationDocB64: oversized }, /awsAttestationDocB64 is longer than the 32768 bytes/);
    const truncated = base64Decode(genuine.awsAttestationDocB64, 'document').subarray(0, 200);
    expectInvalid({ ...genuine, awsAttestationDocB64: base64Encode(truncated) }, /the attestation document is not CBOR/);
    expectInvalid(withDocument([1, 2, 3]), /not a COSE_Sign1: expected an array of 4/);
    const { unprotectedHeader, payload, signature } = opened();
    expectInvalid(withDocument(['header', unprotectedHeader, payload, signature]), /protected header is not a byte string/);
  });

  it('base64 that is unpadded, URL-safe or wrapped', () => {
    expect(base64Decode('+/8=', 'x')).toEqual(new Uint8Array([0xfb, 0xff]));
    for (const text of ['+/8', '-_8=', '+/8=\n'])
      expectQkError(() => base64Decode(text, 'the field'), 'ENCODING_INVALID', /the field is not valid base64/);
    const document = genuine.awsAttestationDocB64;
    expectInvalid(
      { ...genuine, awsAttestationDocB64: `${document.slice(0, 76)}\n${document.slice(76)}` },
      /awsAttestationDocB64 is not valid base64/,
    );
  });

  it('another algorithm than ES384', () => {
    const { unprotectedHeader, payload, signature } = opened();
    expectInvalid(withDocument([encodeCBOR(new Map([[1, -7]])), unprotectedHeader, payload, signature]), /alg is -7, not ES384 \(-35\)/);
    expectInvalid(withDocument([encodeCBOR(new Map()), unprotectedHeader, payload, signature]), /alg is missing, not ES384/);
  });

  it.each<[string, (members: Map<string, CBORType>) => void, RegExp]>([
    ['no module_id', (members) => members.delete('module_id'), /has no module_id/],
    ['digest SHA256', (members) => members.set('digest', 'SHA256'), /digest is "SHA256", not "SHA384"/],
    ['a digest too large for a number', (members) => members.set('digest', 2n ** 64n - 1n), /digest is 18446744073709551615, not "SHA384"/],
    ['a negative timestamp', (members) => members.set('timestamp', -1), /has no timestamp/],
    ['no pcrs', (members) => members.delete('pcrs'), /pcrs is not a map of 1 to 32 PCRs/],
    ['a short PCR', (members) => members.set('pcrs', new Map([[3, new Uint8Array(32)]])), /PCR3 is not 48 bytes/],
    ['PCR 32', (members) => members.set('pcrs', new Map([[32, new Uint8Array(48)]])), /names PCR 32; PCRs are numbered 0 to 31/],
    ['no certificate', (members) => members.delete('certificate'), /has no certificate/],
    ['no cabundle', (members) => members.delete('cabundle'), /has no cabundle/],
    ['an empty cabundle', (members) => members.set('cabundle', []), /has no cabundle/],
    [
      '9 certificates in cabundle',
      (members) => members.set('cabundle', Array<Uint8Array>(9).fill(sandboxRoot)),
      /cabundle holds 9 certificates, more than 8/,
    ],
    ['a cabundle entry that is text', (members) => members.set('cabundle', ['root']), /cabundle\[0\] is not a byte string/],
    ['a 65-byte public_key', (members) => members.set('public_key', key.subarray(65)), /public_key is 65 bytes, not 130/],
    ['no user_data', (members) => members.delete('user_data'), /has no user_data/],
    ['an oversized leaf', (members) => members.set('certificate', new Uint8Array(5000)), /leaf certificate is 5000 bytes, more than the 4096/],
    [
      'a leaf that is not DER',
      (members) => members.set('certificate', new Uint8Array([0x30, 0x03, 1, 2])),
      /leaf certificate is not one DER certificate/,
    ],
  ])('a payload with %s', async (_, edit, message) => {
    expectInvalid(await withPayload(edit), message);
  });

  it('a payload edited after signing, or a flipped signature byte', async () => {
    const signatureError = new RegExp(`ES384 signature does not verify under the key of the leaf certificate \\(${LEAF_SUBJECT}\\)`);
    expectInvalid(await withPayload((members) => members.set('module_id', 'i-0123456789abcdef0-enc0123456789abcdef')), signatureError);
    const { protectedHeader, unprotectedHeader, payload, signature } = opened();
    const flipped = Uint8Array.from(signature, (byte, index) => (index === 40 ? byte ^ 1 : byte));
    expectInvalid(withDocument([protectedHeader, unprotectedHeader, payload, flipped]), signatureError);
    expectInvalid(withDocument([protectedHeader, unprotectedHeader, payload, signature.subarray(0, 95)]), signatureError);
  });

  it('a leaf swapped for another certificate', async () => {
    // Without re-signing, the document's signature no longer verifies under the swapped-in key.
    expectInvalid(
      await withPayload((members) => members.set('certificate', sandboxRoot)),
      /ES384 signature does not verify under the key of the leaf certificate \(CN=QuorumKey Sandbox attestation root/,
    );
    // Re-signed by the impostor's key, it is the chain that refuses it.
    const impostor = await keyPair();
    const impostorLeaf = await impostorCertificate('CN=impostor leaf', impostor);
    expectInvalid(
      await withPayload((members) => members.set('certificate', impostorLeaf), impostor.privateKey),
      new RegExp(`the leaf certificate \\(CN=impostor leaf\\) is not signed by cabundle\\[0\\] \\(${ROOT_SUBJECT}\\)`),
    );
  });

  it('a chain broken in the middle: an intermediate signed by another key than the root’s', async () => {
    expectInvalid(
      await impostorChain({ intermediateSignedBy: await keyPair() }),
      /cabundle\[1\] \(CN=impostor intermediate\) is not signed by cabundle\[0\] \(CN=impostor root\)/,
    );
  });

  it('a root that is not self-signed', async () => {
    expectInvalid(
      await impostorChain({ rootSignedBy: await keyPair() }),
      /the root certificate cabundle\[0\] \(CN=impostor root\) is not self-signed/,
    );
  });

  it('a leaf with a P-256 key, or signed with SHA-256', async () => {
    const issuer: Issuer = { name: 'CN=impostor root', keys: await keyPair() };
    const p256Leaf = await impostorCertificate('CN=p256 leaf', await keyPair('P-256'), issuer);
    expectInvalid(
      await withPayload((members) => members.set('certificate', p256Leaf)),
      /the leaf certificate \(CN=p256 leaf\) does not hold a P-384 public key/,
    );
    const sha256Leaf = await impostorCertificate('CN=sha256 leaf', await keyPair(), issuer, 'SHA-256');
    expectInvalid(
      await withPayload((members) => members.set('certificate', sha256Leaf)),
      /the leaf certificate \(CN=sha256 leaf\) is signed with 1\.2\.840\.10045\.4\.3\.2, not ECDSA P-384 with SHA-384/,
    );
  });

  it('a manifest that is not the one user_data hashes', () => {
    const edited = utf8Encode(JSON.stringify({ namespace: 'quorumkey-local-service', ephemeralPublicKey: 'someone else' }));
    expectInvalid(
      { ...genuine, qosManifestB64: base64Encode(edited) },
      new RegExp(`user_data ${bytesToHex(sha256(manifest))} is not the SHA-256 of the boot proof's manifest \\(${bytesToHex(sha256(edited))}\\)`),
    );
    expectInvalid({ ...genuine, qosManifestB64: '' }, /has no qosManifestB64/);
  });

  it('an ephemeralPublicKeyHex that is not the attested public_key (case aside)', () => {
    expect(verifyBootProof({ ...genuine, ephemeralPublicKeyHex: genuine.ephemeralPublicKeyHex.toUpperCase() }).ephemeralPublicKeyHex).toBe(
      bytesToHex(key),
    );
    expectInvalid(
      { ...genuine, ephemeralPublicKeyHex: bytesToHex(ephemeralKey()) },
      new RegExp(`public_key ${bytesToHex(key)} is not the boot proof's ephemeralPublicKeyHex`),
    );
  });
});
