/**
 * The Sandbox's boot proof attestation (docs/formats.md#the-sandboxs-attestation): a document in AWS Nitro's format,
 * signed by a leaf certificate that a "QuorumKey Sandbox attestation root" issued. Both keys, both certificates and so
 * the root's fingerprint follow from the service secret and its creation time alone, so they survive restarts and a
 * Sandbox reset (which deletes the database, not the secret). It is this service vouching for itself, not hardware.
 */
import { encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { p384 } from '@noble/curves/nist.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { ECParameters, id_ecdsaWithSHA384, id_ecPublicKey, id_secp384r1 } from '@peculiar/asn1-ecc';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  AttributeTypeAndValue,
  AttributeValue,
  AuthorityKeyIdentifier,
  BasicConstraints,
  Certificate,
  Extension,
  Extensions,
  id_ce_authorityKeyIdentifier,
  id_ce_basicConstraints,
  id_ce_keyUsage,
  id_ce_subjectKeyIdentifier,
  KeyIdentifier,
  KeyUsage,
  KeyUsageFlags,
  Name,
  RelativeDistinguishedName,
  SubjectKeyIdentifier,
  SubjectPublicKeyInfo,
  TBSCertificate,
  Validity,
  Version,
} from '@peculiar/asn1-x509';
import {
  COSE_ALG_LABEL,
  COSE_ES384,
  coseSign1SignedBytes,
  PCR_COUNT,
  PCR_LENGTH,
  QOS_LIVE_MANIFEST_PCR,
  qosLiveManifestCommitmentPcr,
} from '../../shared/crypto/attestation';
import { bytesToHex, utf8Encode } from '../../shared/crypto/encoding';
import { zeroize } from '../../shared/crypto/keys';

const ROOT_KEY_INFO = utf8Encode('quorumkey/service/attestation-root-key-v1');
const LEAF_KEY_INFO = utf8Encode('quorumkey/service/attestation-leaf-key-v1');
export const SANDBOX_ROOT_COMMON_NAME = 'QuorumKey Sandbox attestation root';
export const SANDBOX_MODULE_ID = 'quorumkey-sandbox';
const ORGANIZATION = 'QuorumKey';
const YEAR_MS = 365.25 * 24 * 60 * 60 * 1000;
const ROOT_LIFETIME_MS = 30 * YEAR_MS;
/** Nitro's leaf certificates live three hours; the Sandbox's does too, from the secret's creation. */
const LEAF_LIFETIME_MS = 3 * 60 * 60 * 1000;
const OID_COMMON_NAME = '2.5.4.3';
const OID_ORGANIZATION = '2.5.4.10';
/** What P-384's randomSecretKey reduces to a scalar: 1.5 times the 48-byte order, so the bias is negligible. */
const P384_SEED_LENGTH = 72;

interface IssuingKey {
  name: Name;
  privateKey: Uint8Array;
  keyIdentifier: Uint8Array;
}

/** A P-384 key derived from the service secret under `info`. */
function deriveKey(serviceSecret: Uint8Array, info: Uint8Array): { privateKey: Uint8Array; publicKey: Uint8Array } {
  const seed = hkdf(sha256, serviceSecret, undefined, info, P384_SEED_LENGTH);
  try {
    const privateKey = p384.utils.randomSecretKey(seed);
    return { privateKey, publicKey: p384.getPublicKey(privateKey, false) };
  } finally {
    zeroize(seed);
  }
}

function distinguishedName(commonName: string): Name {
  const attribute = (type: string, value: string) =>
    new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) })]);
  return new Name([attribute(OID_ORGANIZATION, ORGANIZATION), attribute(OID_COMMON_NAME, commonName)]);
}

function extension(extnID: string, value: object, critical: boolean): Extension {
  return new Extension({ extnID, critical, extnValue: new OctetString(AsnConvert.serialize(value)) });
}

/** The identifier a certificate gives its key (subject key identifier) and its issuer's (authority key identifier). */
function keyIdentifierOf(publicKey: Uint8Array): Uint8Array {
  return sha256(publicKey).slice(0, 20);
}

/** A positive serial number that names the certificate's key and role. */
function serialNumber(publicKey: Uint8Array, role: string): ArrayBuffer {
  const serial = sha256(new Uint8Array([...utf8Encode(role), ...publicKey])).slice(0, 16);
  serial[0] = (serial[0]! & 0x7f) | 0x40;
  return serial.buffer;
}

/** A DER certificate for `subject` and its key, signed by `issuer` (itself for the root). */
function issueCertificate(options: {
  subject: Name;
  publicKey: Uint8Array;
  issuer: IssuingKey;
  notBeforeMs: number;
  lifetimeMs: number;
  authority: boolean;
}): Uint8Array {
  const ecdsaWithSha384 = new AlgorithmIdentifier({ algorithm: id_ecdsaWithSHA384 });
  const tbsCertificate = new TBSCertificate({
    version: Version.v3,
    serialNumber: serialNumber(options.publicKey, options.authority ? 'root' : 'leaf'),
    signature: ecdsaWithSha384,
    issuer: options.issuer.name,
    validity: new Validity({ notBefore: new Date(options.notBeforeMs), notAfter: new Date(options.notBeforeMs + options.lifetimeMs) }),
    subject: options.subject,
    subjectPublicKeyInfo: new SubjectPublicKeyInfo({
      algorithm: new AlgorithmIdentifier({
        algorithm: id_ecPublicKey,
        parameters: AsnConvert.serialize(new ECParameters({ namedCurve: id_secp384r1 })),
      }),
      subjectPublicKey: options.publicKey.slice().buffer,
    }),
    extensions: new Extensions([
      extension(id_ce_basicConstraints, new BasicConstraints({ cA: options.authority }), true),
      extension(
        id_ce_keyUsage,
        new KeyUsage(options.authority ? KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign : KeyUsageFlags.digitalSignature),
        true,
      ),
      extension(id_ce_subjectKeyIdentifier, new SubjectKeyIdentifier(keyIdentifierOf(options.publicKey)), false),
      extension(id_ce_authorityKeyIdentifier, new AuthorityKeyIdentifier({ keyIdentifier: new KeyIdentifier(options.issuer.keyIdentifier) }), false),
    ]),
  });
  const signedBytes = new Uint8Array(AsnConvert.serialize(tbsCertificate));
  const signature = p384.sign(signedBytes, options.issuer.privateKey, { format: 'der' });
  const certificate = new Certificate({ tbsCertificate, signatureAlgorithm: ecdsaWithSha384, signatureValue: signature.slice().buffer });
  return new Uint8Array(AsnConvert.serialize(certificate));
}

/** The PCRs a Sandbox reports: all zero (no image was measured) but QOS's PCR17 commitment. */
function sandboxPcrs(manifestSha256: Uint8Array, ephemeralPublicKey: Uint8Array): Map<number, CBORType> {
  const pcrs = new Map<number, CBORType>();
  for (let index = 0; index < PCR_COUNT; index++) pcrs.set(index, new Uint8Array(PCR_LENGTH));
  pcrs.set(QOS_LIVE_MANIFEST_PCR, qosLiveManifestCommitmentPcr(manifestSha256, ephemeralPublicKey));
  return pcrs;
}

export interface SandboxAttestation {
  /** SHA-256 of the root certificate's DER, lowercase hex. */
  rootFingerprint: string;
  /** The untagged COSE_Sign1 attestation document. */
  document: Uint8Array;
}

/**
 * Attests `ephemeralPublicKey` (130 bytes) and `manifest` at `issuedAtMs` (the secret's creation: the Sandbox's
 * "boot"), with the root and leaf keys derived from the service secret.
 */
export function sandboxAttestation(options: {
  serviceSecret: Uint8Array;
  issuedAtMs: number;
  manifest: Uint8Array;
  ephemeralPublicKey: Uint8Array;
}): SandboxAttestation {
  const rootKey = deriveKey(options.serviceSecret, ROOT_KEY_INFO);
  const leafKey = deriveKey(options.serviceSecret, LEAF_KEY_INFO);
  try {
    const rootName = distinguishedName(SANDBOX_ROOT_COMMON_NAME);
    const root: IssuingKey = { name: rootName, privateKey: rootKey.privateKey, keyIdentifier: keyIdentifierOf(rootKey.publicKey) };
    const rootCertificate = issueCertificate({
      subject: rootName,
      publicKey: rootKey.publicKey,
      issuer: root,
      notBeforeMs: options.issuedAtMs,
      lifetimeMs: ROOT_LIFETIME_MS,
      authority: true,
    });
    const leafCertificate = issueCertificate({
      subject: distinguishedName(SANDBOX_MODULE_ID),
      publicKey: leafKey.publicKey,
      issuer: root,
      notBeforeMs: options.issuedAtMs,
      lifetimeMs: LEAF_LIFETIME_MS,
      authority: false,
    });
    const manifestSha256 = sha256(options.manifest);
    const payload = encodeCBOR(
      new Map<string, CBORType>([
        ['module_id', SANDBOX_MODULE_ID],
        ['digest', 'SHA384'],
        ['timestamp', options.issuedAtMs],
        ['pcrs', sandboxPcrs(manifestSha256, options.ephemeralPublicKey)],
        ['certificate', leafCertificate],
        ['cabundle', [rootCertificate]],
        ['public_key', options.ephemeralPublicKey],
        ['user_data', manifestSha256],
        ['nonce', null],
      ]),
    );
    const protectedHeader = encodeCBOR(new Map([[COSE_ALG_LABEL, COSE_ES384]]));
    const signature = p384.sign(coseSign1SignedBytes(protectedHeader, payload), leafKey.privateKey, { format: 'compact' });
    return {
      rootFingerprint: bytesToHex(sha256(rootCertificate)),
      document: encodeCBOR([protectedHeader, new Map(), payload, signature]),
    };
  } finally {
    zeroize(rootKey.privateKey);
    zeroize(leafKey.privateKey);
  }
}
