/** Activities with app proofs from a test service, and the boot proof of the key that signed them, as a client reads them. */
import { expect } from 'vitest';
import type { AppProof } from '../../src/shared/crypto/app-proof';
import type { BootProof } from '../../src/shared/crypto/attestation';
import type { ApiPublicKey, TestKey, TestService } from './service';

/** Submits with generateAppProofs, stamped with `key` (the root key by default); the reply and the exact body stamped. */
export async function submitProven(
  t: TestService,
  name: string,
  type: string,
  parameters: unknown,
  { key, organizationId = t.info.organizationId }: { key?: TestKey; organizationId?: string } = {},
) {
  const body = JSON.stringify({ type, timestampMs: String(t.clock.now()), organizationId, parameters, generateAppProofs: true });
  return { reply: await t.post(`/public/v1/submit/${name}`, body, key === undefined ? {} : { key }), body };
}

/** The service's boot proof of `ephemeralKey`. */
export async function bootProofOf(t: TestService<ApiPublicKey>, ephemeralKey: string): Promise<BootProof> {
  const reply = await t.query('get_boot_proof', { ephemeralKey });
  expect(reply.status).toBe(200);
  return reply.body.bootProof as BootProof;
}

/** A completed create_policy named `name` that asked for app proofs, with its proofs and the boot proof of their key. */
export async function provenPolicy(t: TestService, name: string) {
  const policy = { policyName: name, effect: 'EFFECT_ALLOW', condition: 'false', consensus: 'true', notes: '' };
  const { reply } = await submitProven(t, 'create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', policy);
  expect(reply.status).toBe(200);
  const activity = reply.body.activity as { id: string; appProofs: AppProof[] };
  return {
    answer: reply.body as unknown,
    activity,
    appProofs: activity.appProofs,
    bootProof: await bootProofOf(t, activity.appProofs[0]!.publicKey),
  };
}
