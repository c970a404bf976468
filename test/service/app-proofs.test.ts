/**
 * App proofs for every activity (docs/formats.md#app-proofs): with generateAppProofs the completed activity carries an
 * APP_PROOF_TYPE_POLICY_OUTCOME proof of its decision, plus one APP_PROOF_TYPE_ADDRESS_DERIVATION proof per derived
 * address; each verifies with Turnkey's verifier and ours, and binds the activity id, type and result digest. The boot
 * proof of their key carries the Sandbox's attestation (docs/formats.md#the-sandboxs-attestation).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeCBOR, type CBORType } from '@levischuck/tiny-cbor';
import { sha256 } from '@noble/hashes/sha2.js';
import * as x509 from '@peculiar/x509';
import { computeQosLiveManifestCommitmentPcr, verify, verifyAppProofSignature, verifyCoseSign1Sig } from '@turnkey/crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyAppProof, type AppProof } from '../../src/shared/crypto/app-proof';
import { qosLiveManifestCommitmentPcr, verifyBootProof } from '../../src/shared/crypto/attestation';
import { base64Decode, bytesToHex, utf8Encode } from '../../src/shared/crypto/encoding';
import { bootProofOf, submitProven } from '../support/app-proofs';
import { newKey, startTestService, type TestService } from '../support/service';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(async () => {
  await t.close();
});

const sha256Hex = (text: string) => bytesToHex(sha256(utf8Encode(text)));

/** The organization data digest recomputed from what a client reads: quorum and policies. */
async function organizationDataDigestSeenByClient(organizationId = t.info.organizationId, key = t.rootKey): Promise<string> {
  const { quorum } = (await t.query('get_organization_configs', { organizationId }, { key })).body.configs;
  const { policies } = (await t.query('list_policies', { organizationId }, { key })).body;
  return sha256Hex(
    JSON.stringify({
      organizationId,
      rootQuorum: { threshold: quorum.threshold, userIds: quorum.userIds },
      policies: policies.map((policy: Record<string, string>) => ({
        policyId: policy.policyId,
        effect: policy.effect,
        condition: policy.condition,
        consensus: policy.consensus,
      })),
    }),
  );
}

const policyParams = (name: string) => ({
  policyName: name,
  effect: 'EFFECT_ALLOW',
  condition: "activity.resource == 'WALLET'",
  consensus: 'true',
  notes: '',
});

describe('policy-outcome proofs', () => {
  it('a proven create_policy carries one POLICY_OUTCOME proof binding the decision and the activity', async () => {
    await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', policyParams('existing'));
    const dataDigest = await organizationDataDigestSeenByClient();
    const { reply, body } = await submitProven(t, 'create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', policyParams('proven'));
    const activity = reply.body.activity;
    expect(activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(activity.appProofs).toHaveLength(1);
    const [proof] = activity.appProofs as AppProof[];
    expect(() => verifyAppProofSignature(proof!)).not.toThrow();
    expect(verifyAppProof(proof!)).toEqual({
      type: 'APP_PROOF_TYPE_POLICY_OUTCOME',
      timestampMs: String(t.clock.now()),
      activityId: activity.id,
      activityType: 'ACTIVITY_TYPE_CREATE_POLICY_V3',
      resultDigest: sha256Hex(JSON.stringify(activity.result.createPolicyResult)),
      policyOutcomeProof: {
        organizationId: t.info.organizationId,
        outcome: 'OUTCOME_ALLOW',
        decisionContextDigest: sha256Hex(body),
        // The organization before this policy was added: the data the decision was made on.
        organizationDataDigest: dataDigest,
        userRequestApprovals: [
          {
            userId: t.info.rootUserId,
            credentialId: expect.any(String),
            publicKey: t.rootKey.publicKey,
            scheme: 'SIGNATURE_SCHEME_TK_API_P256',
            signature: activity.votes[0].signature,
            requestDigest: sha256Hex(body),
          },
        ],
      },
    });
    expect(`sha256:${sha256Hex(body)}`).toBe(activity.fingerprint);
    expect((await t.query('list_app_proofs', { activityId: activity.id })).body.appProofs).toEqual(activity.appProofs);
    expect(await organizationDataDigestSeenByClient()).not.toBe(dataDigest);
  });

  it('tampering any byte of the payload or the signature fails verification', async () => {
    const { reply } = await submitProven(t, 'create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', policyParams('tamper'));
    const [proof] = reply.body.activity.appProofs as AppProof[];
    const flipped = (text: string, index: number) => text.slice(0, index) + String.fromCharCode(text.charCodeAt(index) ^ 1) + text.slice(index + 1);
    // The signature's digit is swapped for another hex digit, so it still parses and only verification can catch it.
    const flippedHex = (hex: string, index: number) =>
      hex.slice(0, index) + (Number.parseInt(hex[index]!, 16) ^ 1).toString(16) + hex.slice(index + 1);
    // Every byte would take seconds of P-256 verifications on a shared machine; 48 spread positions cover every member.
    const stride = Math.ceil(proof!.proofPayload.length / 48);
    for (let index = 0; index < proof!.proofPayload.length; index += stride) {
      expect(() => verifyAppProof({ ...proof!, proofPayload: flipped(proof!.proofPayload, index) }), `payload byte ${index}`).toThrow();
    }
    expect(() => verifyAppProofSignature({ ...proof!, proofPayload: flipped(proof!.proofPayload, 0) })).toThrow();
    expect(() => verifyAppProof({ ...proof!, signature: flippedHex(proof!.signature, 10) })).toThrow(/does not verify/);
  });

  it('in a sub-organization the proof also digests the parent organization’s data', async () => {
    const ownerKey = newKey();
    const created = await t.submit('create_sub_organization', 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8', {
      subOrganizationName: 'child',
      rootUsers: [
        {
          userName: 'owner',
          apiKeys: [{ apiKeyName: 'owner key', publicKey: ownerKey.publicKey, curveType: 'API_KEY_CURVE_P256' }],
          authenticators: [],
          oauthProviders: [],
        },
      ],
      rootQuorumThreshold: 1,
    });
    const { subOrganizationId } = created.body.activity.result.createSubOrganizationResultV8;
    const childDigest = await organizationDataDigestSeenByClient(subOrganizationId, ownerKey);
    const parentDigest = await organizationDataDigestSeenByClient();
    const { reply } = await submitProven(t, 'create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', policyParams('child policy'), {
      key: ownerKey,
      organizationId: subOrganizationId,
    });
    const [proof] = reply.body.activity.appProofs as AppProof[];
    expect((verifyAppProof(proof!) as { policyOutcomeProof: unknown }).policyOutcomeProof).toMatchObject({
      organizationId: subOrganizationId,
      organizationDataDigest: childDigest,
      parentOrganizationDataDigest: parentDigest,
    });
    expect(childDigest).not.toBe(parentDigest);
  });

  it('without generateAppProofs an activity has none', async () => {
    const plain = await t.submit('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', policyParams('plain'));
    expect(plain.body.activity.appProofs).toBeUndefined();
    expect((await t.query('list_app_proofs', { activityId: plain.body.activity.id })).body.appProofs).toEqual([]);
  });

  it('an activity completed by a later approval is proven then, with every approval that counted', async () => {
    const bob = await t.addUser({ name: 'bob' });
    await t.setRootQuorum(2, [t.info.rootUserId, bob.userId]);
    const { reply, body } = await submitProven(t, 'create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', policyParams('two of two'));
    const pending = reply.body.activity;
    expect(pending.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(pending.appProofs).toBeUndefined();

    t.clock.advance(1_000);
    const approveBody = JSON.stringify({
      type: 'ACTIVITY_TYPE_APPROVE_ACTIVITY',
      timestampMs: String(t.clock.now()),
      organizationId: t.info.organizationId,
      parameters: { fingerprint: pending.fingerprint },
    });
    const approved = (await t.post('/public/v1/submit/approve_activity', approveBody, { key: bob.key })).body.activity;
    expect(approved.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const [proof] = approved.appProofs as AppProof[];
    expect(() => verifyAppProofSignature(proof!)).not.toThrow();
    const payload = verifyAppProof(proof!) as {
      timestampMs: string;
      policyOutcomeProof: { decisionContextDigest: string; userRequestApprovals: unknown[] };
    };
    expect(payload.timestampMs).toBe(String(t.clock.now()));
    expect(payload.policyOutcomeProof.decisionContextDigest).toBe(sha256Hex(body));
    expect(payload.policyOutcomeProof.userRequestApprovals).toMatchObject([
      { userId: t.info.rootUserId, requestDigest: sha256Hex(body) },
      { userId: bob.userId, publicKey: bob.key.publicKey, requestDigest: sha256Hex(approveBody) },
    ]);
  });
});

describe('address-derivation proofs come from the same hook', () => {
  it('create_wallet: the policy outcome, then one proof per derived address', async () => {
    const accounts = [0, 1].map((index) => ({
      curve: 'CURVE_SECP256K1',
      pathFormat: 'PATH_FORMAT_BIP32',
      path: `m/44'/60'/0'/0/${index}`,
      addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
    }));
    const { reply } = await submitProven(t, 'create_wallet', 'ACTIVITY_TYPE_CREATE_WALLET', { walletName: 'proven', accounts });
    const activity = reply.body.activity;
    const result = activity.result.createWalletResult;
    const payloads = (activity.appProofs as AppProof[]).map((proof) => {
      expect(() => verifyAppProofSignature(proof)).not.toThrow();
      return verifyAppProof(proof) as Record<string, unknown>;
    });
    expect(payloads.map((payload) => payload.type)).toEqual([
      'APP_PROOF_TYPE_POLICY_OUTCOME',
      'APP_PROOF_TYPE_ADDRESS_DERIVATION',
      'APP_PROOF_TYPE_ADDRESS_DERIVATION',
    ]);
    const resultDigest = sha256Hex(JSON.stringify(result));
    for (const payload of payloads)
      expect(payload).toMatchObject({ activityId: activity.id, activityType: 'ACTIVITY_TYPE_CREATE_WALLET', resultDigest });
    expect(payloads.slice(1).map((payload) => payload.addressDerivationProof)).toEqual(
      result.addresses.map((address: string) => ({ organizationId: t.info.organizationId, walletId: result.walletId, address })),
    );
  });
});

async function provenPolicyProof(): Promise<AppProof> {
  const { reply } = await submitProven(t, 'create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', policyParams('attested'));
  return (reply.body.activity.appProofs as AppProof[])[0]!;
}

describe('boot proofs', () => {
  it('verify: the attestation chains to the root the service names, and Turnkey’s verifier agrees where it can', async () => {
    const proof = await provenPolicyProof();
    const boot = await bootProofOf(t, proof.publicKey);
    const manifest = base64Decode(boot.qosManifestB64, 'manifest');
    const attested = verifyBootProof(boot);
    expect(attested).toEqual({
      rootFingerprint: t.info.attestationRootFingerprint,
      rootSubject: 'CN=QuorumKey Sandbox attestation root, O=QuorumKey',
      ephemeralPublicKeyHex: proof.publicKey,
      manifestSha256: bytesToHex(sha256(manifest)),
      timestampMs: Number(boot.createdAt.seconds) * 1000 + Number(boot.createdAt.nanos) / 1e6,
      moduleId: 'quorumkey-sandbox',
    });
    expect(JSON.parse(new TextDecoder().decode(manifest))).toMatchObject({ ephemeralPublicKey: proof.publicKey });

    const coseSign1 = decodeCBOR(base64Decode(boot.awsAttestationDocB64, 'document')) as CBORType[];
    const document = decodeCBOR(coseSign1[2] as Uint8Array) as Map<string, CBORType>;
    const leafDer = new Uint8Array(document.get('certificate') as Uint8Array);
    const rootDer = new Uint8Array((document.get('cabundle') as Uint8Array[])[0]!);
    // Turnkey's COSE check, with the leaf the document carries.
    await expect(verifyCoseSign1Sig(coseSign1, leafDer)).resolves.toBeUndefined();
    // @peculiar/x509 builds and checks the chain leaf → root.
    x509.cryptoProvider.set(globalThis.crypto);
    const root = new x509.X509Certificate(rootDer);
    const leaf = new x509.X509Certificate(leafDer);
    // @peculiar/x509 writes names in certificate order; ours reads as RFC 4514 does, last RDN first.
    expect(root.subject.split(', ').reverse().join(', ')).toBe(attested.rootSubject);
    const chain = await new x509.X509ChainBuilder({ certificates: [root] }).build(leaf);
    expect(chain.map((certificate) => certificate.subject)).toEqual([leaf.subject, root.subject]);
    expect(await root.verify({ publicKey: root.publicKey, signatureOnly: true })).toBe(true);
    expect(await leaf.verify({ publicKey: root.publicKey, signatureOnly: true })).toBe(true);
    expect(bytesToHex(new Uint8Array(await root.getThumbprint('SHA-256')))).toBe(t.info.attestationRootFingerprint);
    // PCR17: QOS's live-manifest commitment, as Turnkey's verifyWithQosPolicy computes it; every other PCR is zero.
    const pcrs = document.get('pcrs') as Map<number, Uint8Array>;
    const publicKey = document.get('public_key') as Uint8Array;
    const userData = document.get('user_data') as Uint8Array;
    expect(bytesToHex(pcrs.get(17)!)).toBe(bytesToHex(computeQosLiveManifestCommitmentPcr(userData, publicKey)));
    expect(bytesToHex(pcrs.get(17)!)).toBe(bytesToHex(qosLiveManifestCommitmentPcr(userData, publicKey)));
    expect([...pcrs.keys()]).toEqual([...Array(32).keys()]);
    expect([...pcrs].filter(([index]) => index !== 17).every(([, value]) => value.every((byte) => byte === 0))).toBe(true);
    // A Sandbox is not an AWS Nitro enclave: the official verifier, which pins AWS's root, refuses its chain.
    await expect(verify(proof, boot)).rejects.toThrow(/^Certificate chain verification failed/);
  });

  it('the same service secret keeps its root across a restart and a reset; another secret has another root', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'quorumkey-attestation-'));
    try {
      const db = join(directory, 'sandbox.db');
      const rootKey = newKey();
      const start = async (file: string) => {
        const service = await startTestService({ db: file, rootPublicKey: rootKey });
        try {
          const boot = await bootProofOf(
            service,
            (await service.query('get_latest_boot_proof', { appName: 'signer' })).body.bootProof.ephemeralPublicKeyHex,
          );
          return { fingerprint: service.info.attestationRootFingerprint, boot, attested: verifyBootProof(boot) };
        } finally {
          await service.close();
        }
      };
      const first = await start(db);
      expect(first.attested.rootFingerprint).toBe(first.fingerprint);
      const restarted = await start(db);
      expect(restarted.fingerprint).toBe(first.fingerprint);
      expect(restarted.boot).toEqual(first.boot);
      // A reset deletes the database, not the secret beside it: a new enclave signing key, so a new manifest, same root.
      for (const file of [db, `${db}-wal`, `${db}-shm`]) rmSync(file, { force: true });
      const reset = await start(db);
      expect(reset.fingerprint).toBe(first.fingerprint);
      expect(reset.attested.rootFingerprint).toBe(first.fingerprint);
      expect(reset.attested.manifestSha256).not.toBe(first.attested.manifestSha256);
      const other = await start(join(directory, 'other.db'));
      expect(other.fingerprint).not.toBe(first.fingerprint);
      expect(other.attested.rootFingerprint).toBe(other.fingerprint);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
