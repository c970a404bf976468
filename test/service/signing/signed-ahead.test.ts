/**
 * Raw payloads are signed before their activity's transaction takes the write lock (ActivityHandler.signAhead) when
 * committed data says the submission executes at once. These hold that the answer is the one the transaction would
 * have made: the same signatures, a policy or a key changed meanwhile decides as it would have without them, and what
 * the policies would not allow is not signed ahead.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Enclave, SignedAhead, type SigningKeySource } from '../../../src/service/enclave';
import { newTestEnclave } from '../../support/enclave';
import { type Reply, startTestService, type TestKey, type TestService } from '../../support/service';

const SIGN_RAW_PAYLOAD = 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2';

let t: TestService;
let signer: { userId: string; key: TestKey };
let outsider: { userId: string; key: TestKey };
let address: string;
let allowPolicyId: string;

async function root(name: string, type: string, parameters: unknown): Promise<Reply['body']> {
  t.clock.advance(1);
  const reply = await t.submit(name, type, parameters);
  expect(reply.body.activity?.status, JSON.stringify(reply.body)).toBe('ACTIVITY_STATUS_COMPLETED');
  return reply.body.activity.result;
}

/** sign_raw_payload of `digest` as `user` (the root user when undefined). */
function signAs(user: { key: TestKey } | undefined, digest: string, signWith = address) {
  t.clock.advance(1);
  return t.submit(
    'sign_raw_payload',
    SIGN_RAW_PAYLOAD,
    { signWith, payload: digest, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' },
    user === undefined ? {} : { key: user.key },
  );
}

async function createKey(name: string): Promise<string> {
  const result = await root('create_private_keys', 'ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', {
    privateKeys: [{ privateKeyName: name, curve: 'CURVE_SECP256K1', addressFormats: ['ADDRESS_FORMAT_ETHEREUM'], privateKeyTags: [] }],
  });
  return result.createPrivateKeysResultV2.privateKeys[0].addresses[0].address;
}

/** Makes the next signatures ahead as the enclave does, then runs `meanwhile` before their transaction begins. */
function betweenSignaturesAndTransaction(meanwhile: () => Promise<unknown>): void {
  vi.spyOn(Enclave.prototype, 'signRawPayloadsAhead').mockImplementationOnce(async function (this: Enclave, source, signables) {
    const made = new SignedAhead(source, signables, await this.signRawPayloads(source, signables));
    await meanwhile();
    return made;
  });
}

beforeAll(async () => {
  t = await startTestService();
  signer = await t.addUser({ name: 'signer' });
  outsider = await t.addUser({ name: 'outsider' });
  address = await createKey('signed ahead');
  const created = await root('create_policy', 'ACTIVITY_TYPE_CREATE_POLICY_V3', {
    policyName: 'the signer signs raw payloads',
    effect: 'EFFECT_ALLOW',
    condition: `activity.type == '${SIGN_RAW_PAYLOAD}'`,
    consensus: `approvers.any(user, user.id == '${signer.userId}')`,
    notes: '',
  });
  allowPolicyId = created.createPolicyResult.policyId;
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(() => t.close());

describe('signatures made ahead of the transaction', () => {
  it('answer what the transaction signs itself', async () => {
    const ahead = vi.spyOn(Enclave.prototype, 'signRawPayloadsAhead');
    const digest = 'a1'.repeat(32);
    const signedAhead = await signAs(signer, digest);
    expect(signedAhead.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(ahead).toHaveBeenCalledTimes(1);

    // Nothing made ahead: the transaction signs, and deterministic signatures agree to the byte.
    ahead.mockRejectedValue(new Error('no signature ahead'));
    const signedInTransaction = await signAs(signer, digest);
    expect(signedInTransaction.body.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(signedInTransaction.body.activity.id).not.toBe(signedAhead.body.activity.id);
    expect(signedInTransaction.body.activity.result.signRawPayloadResult).toEqual(signedAhead.body.activity.result.signRawPayloadResult);
  });

  it('are not made for what waits for votes', async () => {
    const ahead = vi.spyOn(Enclave.prototype, 'signRawPayloadsAhead');
    const reply = await signAs(outsider, 'b2'.repeat(32));
    expect(reply.body.activity.status).toBe('ACTIVITY_STATUS_CONSENSUS_NEEDED');
    expect(ahead).not.toHaveBeenCalled();
  });

  it('are not used once the policy that allowed them is gone', async () => {
    betweenSignaturesAndTransaction(() => root('delete_policy', 'ACTIVITY_TYPE_DELETE_POLICY', { policyId: allowPolicyId }));
    const reply = await signAs(signer, 'c3'.repeat(32));
    expect(reply.status, JSON.stringify(reply.body)).toBe(403);
    expect(reply.body.details[0].turnkeyErrorCode).toBe('REQUEST_NOT_AUTHORIZED');
  });

  it('are not used once their key is deleted', async () => {
    const doomed = await createKey('deleted meanwhile');
    betweenSignaturesAndTransaction(async () => {
      const keys = await t.query('list_private_keys', { organizationId: t.info.organizationId });
      const privateKeyId = keys.body.privateKeys.find(
        (key: { addresses: { address: string }[] }) => key.addresses[0]!.address === doomed,
      ).privateKeyId;
      await root('delete_private_keys', 'ACTIVITY_TYPE_DELETE_PRIVATE_KEYS', { privateKeyIds: [privateKeyId], deleteWithoutExport: true });
    });
    const reply = await signAs(undefined, 'd4'.repeat(32), doomed);
    expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(reply.body.message).toMatch(doomed);
  });
});

describe('SignedAhead', () => {
  let enclave: Enclave | undefined;
  afterEach(async () => {
    await enclave?.close();
    enclave = undefined;
  });

  it('gives its signatures only for the row and signables they were made with', async () => {
    enclave = newTestEnclave();
    const sealed = enclave.createPrivateKey({ privateKeyId: 'key-1', curve: 'CURVE_SECP256K1', addressFormats: [] });
    const source: SigningKeySource = { kind: 'privateKey', privateKeyId: 'key-1', curve: 'CURVE_SECP256K1', ...sealed };
    const digest = new Uint8Array(32).fill(7);
    const ahead = await enclave.signRawPayloadsAhead(source, [digest]);

    expect(ahead.signaturesFor(source, [digest.slice()])).toEqual(await enclave.signRawPayloads(source, [digest]));
    expect(ahead.signaturesFor(source, [new Uint8Array(32).fill(8)])).toBeUndefined();
    expect(ahead.signaturesFor(source, [digest, digest])).toBeUndefined();
    // The same id holding other sealed bytes (a snapshot restored over it) is another key.
    const replaced = enclave.createPrivateKey({ privateKeyId: 'key-1', curve: 'CURVE_SECP256K1', addressFormats: [] });
    expect(ahead.signaturesFor({ ...source, ...replaced }, [digest])).toBeUndefined();
    expect(ahead.signaturesFor({ ...source, privateKeyId: 'key-2' }, [digest])).toBeUndefined();
    const account: SigningKeySource = { kind: 'walletAccount', walletId: 'key-1', path: "m/44'/60'/0'/0/0", curve: 'CURVE_SECP256K1', ...sealed };
    expect(ahead.signaturesFor(account, [digest])).toBeUndefined();
  });
});
