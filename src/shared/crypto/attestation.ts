/**
 * Boot proofs (docs/formats.md#boot-proofs): an AWS Nitro attestation document (COSE_Sign1, ES384) whose certificate
 * chain vouches for an enclave, whose `user_data` is the SHA-256 of the QOS manifest and whose `public_key` is the
 * enclave's 130-byte ephemeral key, the key that signs app proofs. `verifyBootProof` checks the document against
 * itself and the boot proof; which roots to trust is the caller's decision (compare `rootFingerprint`).
 */
import { CBORTag, decodeCBOR, encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { p384 } from '@noble/curves/nist.js';
import { sha256, sha384 } from '@noble/hashes/sha2.js';
import { ECParameters, id_ecdsaWithSHA384, id_ecPublicKey, id_secp384r1 } from '@peculiar/asn1-ecc';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate, type Name } from '@peculiar/asn1-x509';
import { QkError } from '../errors';
import { base64Decode, bytesToHex, concatBytes, utf8Encode } from './encoding';

/** SHA-256 of the DER of the AWS Nitro Enclaves root certificate (lowercase hex). */
export const AWS_NITRO_ROOT_SHA256 = '641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b';

/** Turnkey's v1BootProof as the API returns it. */
export interface BootProof {
  ephemeralPublicKeyHex: string;
  awsAttestationDocB64: string;
  qosManifestB64: string;
  qosManifestEnvelopeB64: string;
  deploymentLabel: string;
  enclaveApp: string;
  owner: string;
  createdAt: { seconds: string; nanos: string };
  qosManifestVersion?: string;
}

/** What a boot proof establishes once verified. */
export interface AttestedKey {
  /** SHA-256 (lowercase hex) of the DER of the chain's root certificate (cabundle[0]): who vouches. */
  rootFingerprint: string;
  /** The root certificate's subject, e.g. "CN=aws.nitro-enclaves, OU=AWS, O=Amazon, C=US". */
  rootSubject: string;
  /** The 130-byte ephemeral key, lowercase hex (= attestation doc public_key = ephemeralPublicKeyHex). */
  ephemeralPublicKeyHex: string;
  /** SHA-256 of the manifest (= user_data), lowercase hex. */
  manifestSha256: string;
  /** The attestation document's timestamp (ms) and module_id. */
  timestampMs: number;
  moduleId: string;
}

/** COSE (RFC 9052): the protected header's `alg` label, ES384's id and the CBOR tag a COSE_Sign1 may carry. */
export const COSE_ALG_LABEL = 1;
export const COSE_ES384 = -35;
const COSE_SIGN1_TAG = 18;
/** ES384 signatures are raw r‖s, 48 bytes each. */
const ES384_SIGNATURE_LENGTH = 96;

/**
 * Bounds on what a boot proof may make the verifier parse. A Nitro document is about 4.5 KB: four certificates of
 * about 650 bytes and 16 to 32 PCRs.
 */
export const ATTESTATION_LIMITS = {
  documentBytes: 32 * 1024,
  certificateBytes: 4 * 1024,
  cabundleLength: 8,
  manifestBytes: 1024 * 1024,
} as const;

/** Nitro has 32 PCR slots; with digest SHA384 each holds 48 bytes. */
export const PCR_COUNT = 32;
export const PCR_LENGTH = 48;
const QOS_EPHEMERAL_KEY_LENGTH = 130;
const SHA256_LENGTH = 32;

/** The PCR QOS extends with its live manifest and ephemeral key, and the domain of that commitment. */
export const QOS_LIVE_MANIFEST_PCR = 17;
const QOS_LIVE_MANIFEST_DOMAIN = 'qos-live-manifest-pcr-commitment-v1';

function invalid(message: string): never {
  throw new QkError('ATTESTATION_INVALID', message);
}

/** COSE's Sig_structure for a COSE_Sign1 without external data: the bytes an ES384 signature covers. */
export function coseSign1SignedBytes(protectedHeader: Uint8Array, payload: Uint8Array): Uint8Array {
  return encodeCBOR(['Signature1', protectedHeader, new Uint8Array(0), payload]);
}

/**
 * QOS's PCR17 after it extends the zeroed register with its commitment to the live manifest and ephemeral key:
 * SHA-384(48 zero bytes ‖ SHA-384(`{"domain":…,"ephemeralPublicKey":"<hex>","manifestHash":"<hex>"}`)).
 */
export function qosLiveManifestCommitmentPcr(manifestSha256: Uint8Array, ephemeralPublicKey: Uint8Array): Uint8Array {
  if (manifestSha256.length !== SHA256_LENGTH)
    throw new QkError('INTERNAL', `a manifest hash is ${SHA256_LENGTH} bytes, got ${manifestSha256.length}`);
  if (ephemeralPublicKey.length !== QOS_EPHEMERAL_KEY_LENGTH) {
    throw new QkError('INTERNAL', `a QOS ephemeral key is ${QOS_EPHEMERAL_KEY_LENGTH} bytes, got ${ephemeralPublicKey.length}`);
  }
  const commitment = sha384(
    utf8Encode(
      `{"domain":"${QOS_LIVE_MANIFEST_DOMAIN}","ephemeralPublicKey":"${bytesToHex(ephemeralPublicKey)}","manifestHash":"${bytesToHex(manifestSha256)}"}`,
    ),
  );
  return sha384(concatBytes(new Uint8Array(PCR_LENGTH), commitment));
}

/** Short names of the attribute types certificates name their subjects with (RFC 4514 and its usual additions). */
const ATTRIBUTE_NAMES: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'E',
};

/** A distinguished name as RFC 4514 writes it: the last RDN first. */
function nameText(name: Name): string {
  return [...name]
    .reverse()
    .map((rdn) =>
      rdn
        .map((attribute) => `${ATTRIBUTE_NAMES[attribute.type] ?? attribute.type}=${attribute.value.toString().replace(/[,+"\\<>;]/g, '\\$&')}`)
        .join('+'),
    )
    .join(', ');
}

/** The length of the DER element at the start of `der` (tag, length and content), or undefined when malformed. */
function derElementLength(der: Uint8Array): number | undefined {
  if (der.length < 2) return undefined;
  const first = der[1]!;
  if (first < 0x80) return 2 + first;
  const lengthBytes = first & 0x7f;
  if (lengthBytes === 0 || lengthBytes > 3 || der.length < 2 + lengthBytes) return undefined;
  let length = 0;
  for (const byte of der.subarray(2, 2 + lengthBytes)) length = length * 256 + byte;
  return 2 + lengthBytes + length;
}

interface ParsedCertificate {
  /** Where it was found, for messages: "cabundle[1]", "the leaf certificate". */
  label: string;
  subject: string;
  der: Uint8Array;
  signedBytes: Uint8Array;
  /** DER ECDSA-Sig-Value. */
  signature: Uint8Array;
  /** Uncompressed P-384 point. */
  publicKey: Uint8Array;
}

function parseCertificate(der: Uint8Array, label: string): ParsedCertificate {
  if (der.length > ATTESTATION_LIMITS.certificateBytes) {
    invalid(`${label} is ${der.length} bytes, more than the ${ATTESTATION_LIMITS.certificateBytes} a certificate may have`);
  }
  if (der[0] !== 0x30 || derElementLength(der) !== der.length) invalid(`${label} is not one DER certificate`);
  let certificate: Certificate;
  try {
    certificate = AsnConvert.parse(der, Certificate);
  } catch (error) {
    invalid(`${label} is not an X.509 certificate: ${(error as Error).message}`);
  }
  const { tbsCertificate } = certificate;
  const subject = nameText(tbsCertificate.subject);
  const named = `${label} (${subject})`;
  for (const algorithm of [certificate.signatureAlgorithm, tbsCertificate.signature]) {
    if (algorithm.algorithm !== id_ecdsaWithSHA384) invalid(`${named} is signed with ${algorithm.algorithm}, not ECDSA P-384 with SHA-384`);
  }
  const keyInfo = tbsCertificate.subjectPublicKeyInfo;
  const { parameters } = keyInfo.algorithm;
  let curve: string | undefined;
  try {
    curve = parameters instanceof ArrayBuffer ? AsnConvert.parse(parameters, ECParameters).namedCurve : undefined;
  } catch {
    curve = undefined;
  }
  if (keyInfo.algorithm.algorithm !== id_ecPublicKey || curve !== id_secp384r1) invalid(`${named} does not hold a P-384 public key`);
  const publicKey = new Uint8Array(keyInfo.subjectPublicKey);
  try {
    p384.Point.fromBytes(publicKey).assertValidity();
  } catch {
    invalid(`${named} holds a public key that is not a point of P-384`);
  }
  if (certificate.tbsCertificateRaw === undefined) invalid(`${named} has no readable to-be-signed part`);
  return {
    label,
    subject,
    der,
    signedBytes: new Uint8Array(certificate.tbsCertificateRaw),
    signature: new Uint8Array(certificate.signatureValue),
    publicKey,
  };
}

function signedBy(certificate: ParsedCertificate, issuer: ParsedCertificate): boolean {
  try {
    return p384.verify(certificate.signature, certificate.signedBytes, issuer.publicKey, { lowS: false, format: 'der' });
  } catch {
    return false;
  }
}

function decodeCbor(bytes: Uint8Array, what: string): CBORType {
  try {
    return decodeCBOR(bytes);
  } catch (error) {
    invalid(`${what} is not CBOR: ${(error as Error).message}`);
  }
}

/** The four members of a COSE_Sign1, untagged or tagged 18. */
function decodeCoseSign1(document: Uint8Array) {
  let decoded = decodeCbor(document, 'the attestation document');
  if (decoded instanceof CBORTag) {
    if (decoded.tag !== COSE_SIGN1_TAG) invalid(`the attestation document is tagged ${decoded.tag}, not COSE_Sign1 (${COSE_SIGN1_TAG})`);
    decoded = decoded.value;
  }
  if (!Array.isArray(decoded) || decoded.length !== 4) invalid('the attestation document is not a COSE_Sign1: expected an array of 4');
  const [protectedHeader, unprotectedHeader, payload, signature] = decoded;
  if (!(protectedHeader instanceof Uint8Array)) invalid('the COSE_Sign1 protected header is not a byte string');
  if (!(unprotectedHeader instanceof Map)) invalid('the COSE_Sign1 unprotected header is not a map');
  if (!(payload instanceof Uint8Array)) invalid('the COSE_Sign1 payload is not a byte string');
  if (!(signature instanceof Uint8Array)) invalid('the COSE_Sign1 signature is not a byte string');
  return { protectedHeader, payload, signature };
}

/** A CBOR value as a message shows it: text quoted, integers as they are, anything else by its kind. */
function shown(value: CBORType): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' || value === null) return String(value);
  if (value instanceof Uint8Array) return 'a byte string';
  if (value instanceof CBORTag) return `a value tagged ${value.tag}`;
  return value instanceof Map ? 'a map' : 'an array';
}

function checkAlgorithm(protectedHeader: Uint8Array): void {
  const header = decodeCbor(protectedHeader, 'the COSE_Sign1 protected header');
  if (!(header instanceof Map)) invalid('the COSE_Sign1 protected header is not a map');
  const alg = header.get(COSE_ALG_LABEL);
  if (alg !== COSE_ES384) invalid(`the COSE_Sign1 protected header's alg is ${shown(alg)}, not ES384 (${COSE_ES384})`);
}

function bytesMember(document: Map<string | number, CBORType>, key: string, length?: number): Uint8Array {
  const value = document.get(key);
  if (value === undefined) invalid(`the attestation document has no ${key}`);
  if (!(value instanceof Uint8Array)) invalid(`the attestation document's ${key} is not a byte string`);
  if (length !== undefined && value.length !== length) invalid(`the attestation document's ${key} is ${value.length} bytes, not ${length}`);
  return value;
}

/** The attestation document's members this verifier reads, each checked for its type and size. */
function readPayload(payload: Uint8Array) {
  const decoded = decodeCbor(payload, 'the COSE_Sign1 payload');
  if (!(decoded instanceof Map)) invalid('the COSE_Sign1 payload is not a map');
  const moduleId = decoded.get('module_id');
  if (typeof moduleId !== 'string' || moduleId === '') invalid('the attestation document has no module_id');
  const digest = decoded.get('digest');
  if (digest !== 'SHA384') invalid(`the attestation document's digest is ${shown(digest)}, not "SHA384"`);
  const timestampMs = decoded.get('timestamp');
  if (typeof timestampMs !== 'number' || !Number.isSafeInteger(timestampMs) || timestampMs < 0) {
    invalid('the attestation document has no timestamp (milliseconds, an unsigned integer)');
  }
  const pcrs = decoded.get('pcrs');
  if (!(pcrs instanceof Map) || pcrs.size === 0 || pcrs.size > PCR_COUNT)
    invalid(`the attestation document's pcrs is not a map of 1 to ${PCR_COUNT} PCRs`);
  for (const [index, value] of pcrs) {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= PCR_COUNT) {
      invalid(`the attestation document's pcrs names PCR ${String(index)}; PCRs are numbered 0 to ${PCR_COUNT - 1}`);
    }
    if (!(value instanceof Uint8Array) || value.length !== PCR_LENGTH) invalid(`the attestation document's PCR${index} is not ${PCR_LENGTH} bytes`);
  }
  const certificate = bytesMember(decoded, 'certificate');
  const cabundle = decoded.get('cabundle');
  if (!Array.isArray(cabundle) || cabundle.length === 0) invalid('the attestation document has no cabundle (its root and intermediate certificates)');
  if (cabundle.length > ATTESTATION_LIMITS.cabundleLength) {
    invalid(`the attestation document's cabundle holds ${cabundle.length} certificates, more than ${ATTESTATION_LIMITS.cabundleLength}`);
  }
  const bundle = cabundle.map((entry, index) => {
    if (!(entry instanceof Uint8Array)) invalid(`the attestation document's cabundle[${index}] is not a byte string`);
    return entry;
  });
  const publicKey = bytesMember(decoded, 'public_key', QOS_EPHEMERAL_KEY_LENGTH);
  const userData = bytesMember(decoded, 'user_data', SHA256_LENGTH);
  return { moduleId, timestampMs, certificate, cabundle: bundle, publicKey, userData };
}

function decodeBootProofField(text: unknown, field: string, maxBytes: number): Uint8Array {
  if (typeof text !== 'string' || text === '') invalid(`the boot proof has no ${field}`);
  if (text.length > Math.ceil(maxBytes / 3) * 4) invalid(`the boot proof's ${field} is longer than the ${maxBytes} bytes it may hold`);
  try {
    return base64Decode(text, `the boot proof's ${field}`);
  } catch (error) {
    invalid((error as Error).message);
  }
}

/** Verifies a boot proof's attestation; throws QkError('ATTESTATION_INVALID', precise message) naming what broke. */
export function verifyBootProof(bootProof: BootProof): AttestedKey {
  const document = decodeBootProofField(bootProof.awsAttestationDocB64, 'awsAttestationDocB64', ATTESTATION_LIMITS.documentBytes);
  const coseSign1 = decodeCoseSign1(document);
  checkAlgorithm(coseSign1.protectedHeader);
  const payload = readPayload(coseSign1.payload);

  const leaf = parseCertificate(payload.certificate, 'the leaf certificate');
  const signatureValid =
    coseSign1.signature.length === ES384_SIGNATURE_LENGTH &&
    p384.verify(coseSign1.signature, coseSign1SignedBytes(coseSign1.protectedHeader, coseSign1.payload), leaf.publicKey, {
      lowS: false,
      format: 'compact',
    });
  if (!signatureValid) invalid(`the attestation document's ES384 signature does not verify under the key of ${leaf.label} (${leaf.subject})`);

  const chain = [...payload.cabundle.map((der, index) => parseCertificate(der, `cabundle[${index}]`)), leaf];
  const root = chain[0]!;
  if (!signedBy(root, root))
    invalid(`the root certificate cabundle[0] (${root.subject}) is not self-signed: its signature does not verify under its own key`);
  for (let index = 1; index < chain.length; index++) {
    const certificate = chain[index]!;
    const issuer = chain[index - 1]!;
    if (!signedBy(certificate, issuer)) invalid(`${certificate.label} (${certificate.subject}) is not signed by ${issuer.label} (${issuer.subject})`);
  }

  const manifest = decodeBootProofField(bootProof.qosManifestB64, 'qosManifestB64', ATTESTATION_LIMITS.manifestBytes);
  const manifestSha256 = bytesToHex(sha256(manifest));
  const userData = bytesToHex(payload.userData);
  if (userData !== manifestSha256) {
    invalid(`the attestation document's user_data ${userData} is not the SHA-256 of the boot proof's manifest (${manifestSha256})`);
  }
  const ephemeralPublicKeyHex = bytesToHex(payload.publicKey);
  const claimedKey: unknown = bootProof.ephemeralPublicKeyHex;
  if (typeof claimedKey !== 'string' || claimedKey.toLowerCase() !== ephemeralPublicKeyHex) {
    invalid(`the attestation document's public_key ${ephemeralPublicKeyHex} is not the boot proof's ephemeralPublicKeyHex ${String(claimedKey)}`);
  }
  return {
    rootFingerprint: bytesToHex(sha256(root.der)),
    rootSubject: root.subject,
    ephemeralPublicKeyHex,
    manifestSha256,
    timestampMs: payload.timestampMs,
    moduleId: payload.moduleId,
  };
}
