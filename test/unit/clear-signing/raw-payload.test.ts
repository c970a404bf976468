import { sha256 } from '@noble/hashes/sha2.js';
import { Keypair, SystemProgram, Transaction } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { bytesToHex, utf8Encode } from '../../../src/shared/crypto/encoding.js';
import {
  describeSigningActivity,
  describeSigningRequest,
  signingOperationOf,
  type RawPayloadsDetails,
} from '../../../src/shared/clear-signing/index.js';
import { expectQkError } from '../../support/assertions';

const SIGNER = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const raw = (description: { details: unknown }) => description.details as RawPayloadsDetails;

describe('clear signing: raw payloads', () => {
  it('shows a hex payload that is UTF-8 text as the text, with the hash and what is signed', () => {
    const text = 'Sign in to QuorumKey\nNonce: 42 ✓';
    const description = describeSigningRequest({
      operation: 'sign_raw_payload',
      parameters: {
        signWith: SIGNER,
        payload: bytesToHex(utf8Encode(text)),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_SHA256',
      },
    });
    const details = raw(description);
    expect(description.title).toBe('Sign a raw payload');
    expect(description.summary).toBe('Sign the text "Sign in to QuorumKey\nNonce: 42 ✓"');
    expect(description.network).toEqual({ family: 'unknown', name: 'not named by the payload' });
    expect(details.encodingText).toBe('hexadecimal bytes');
    expect(details.hashFunctionText).toBe('SHA-256');
    expect(details.payloads[0]).toEqual({
      index: 0,
      payload: bytesToHex(utf8Encode(text)),
      hex: bytesToHex(utf8Encode(text)),
      text,
      signedBytesHex: bytesToHex(sha256(utf8Encode(text))),
    });
    expect(description.warnings).toEqual([]);
  });

  it('shows a UTF-8 payload as itself and binary hex without text', () => {
    const text = describeSigningRequest({
      operation: 'sign_raw_payload',
      parameters: { signWith: SIGNER, payload: 'hello', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' },
    });
    expect(raw(text).payloads[0]).toMatchObject({
      text: 'hello',
      hex: '68656c6c6f',
      signedBytesHex: '1c8aff950685c2ed4bc3174f3472287b56d9517b9c948127319a09a7a36deac8',
    });
    const binary = describeSigningRequest({
      operation: 'sign_raw_payload',
      parameters: { signWith: SIGNER, payload: '0x00ff10', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_KECCAK256' },
    });
    expect(raw(binary).payloads[0]!.text).toBeUndefined();
    expect(binary.summary).toBe('Sign 3 bytes');
    expect(binary.warnings).toEqual([]);
  });

  it('flags a bare 32-byte digest as blind signing, for NO_OP and for Ed25519', () => {
    const digest = bytesToHex(sha256(utf8Encode('what was this?')));
    const ecdsa = describeSigningRequest({
      operation: 'sign_raw_payload',
      parameters: { signWith: SIGNER, payload: `0x${digest}`, encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' },
    });
    expect(raw(ecdsa).hashFunctionText).toBe('none: the payload is the digest');
    expect(raw(ecdsa).payloads[0]!.signedBytesHex).toBe(digest);
    expect(ecdsa.warnings).toEqual([
      {
        kind: 'BLIND_SIGNING',
        message: 'The payload is a bare 32-byte digest: nothing shows what it commits to. Approve only if you know where this digest came from.',
        subject: digest,
      },
    ]);

    const ed25519 = describeSigningRequest({
      operation: 'sign_raw_payloads',
      parameters: {
        signWith: 'pk-ed',
        payloads: ['00'.repeat(4), digest],
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE',
      },
    });
    expect(ed25519.title).toBe('Sign 2 raw payloads');
    expect(ed25519.summary).toBe('Sign 2 payloads');
    expect(ed25519.warnings.map((warning) => [warning.kind, warning.message.slice(0, 10)])).toEqual([['BLIND_SIGNING', 'Payload 2 ']]);
  });

  it('reads a Solana message signed as an Ed25519 raw payload', () => {
    const payer = Keypair.fromSeed(new Uint8Array(32).fill(9));
    const to = Keypair.fromSeed(new Uint8Array(32).fill(10)).publicKey;
    const message = new Transaction({ feePayer: payer.publicKey, recentBlockhash: 'EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k' })
      .add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: to, lamports: 25_000_000 }))
      .serializeMessage();
    const description = describeSigningRequest({
      operation: 'sign_raw_payload',
      parameters: {
        signWith: payer.publicKey.toBase58(),
        payload: bytesToHex(message),
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
        hashFunction: 'HASH_FUNCTION_NOT_APPLICABLE',
      },
    });
    const payload = raw(description).payloads[0]!;
    expect(description.network.name).toBe('Solana');
    expect(payload.signedBytesHex).toBe(bytesToHex(message));
    expect(payload.solanaMessage?.instructions[0]?.summary).toBe(`Transfer 0.025 SOL from ${payer.publicKey.toBase58()} to ${to.toBase58()}`);
    expect(description.summary).toBe('Sign a Solana message: 1 instruction');
    expect(description.warnings).toEqual([]);
  });

  it("refuses what the service would refuse, with the service's words", () => {
    expectQkError(
      () =>
        describeSigningRequest({
          operation: 'sign_raw_payload',
          parameters: { signWith: SIGNER, payload: '0x1234', encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_NO_OP' },
        }),
      'REQUEST_INVALID',
      /parameters\.payload: with HASH_FUNCTION_NO_OP the payload is the digest itself and must be 32 bytes; it is 2/,
    );
    expectQkError(
      () =>
        describeSigningRequest({
          operation: 'sign_raw_payloads',
          parameters: { signWith: SIGNER, payloads: [], encoding: 'PAYLOAD_ENCODING_HEXADECIMAL', hashFunction: 'HASH_FUNCTION_SHA256' },
        }),
      'REQUEST_INVALID',
      /send at least one payload/,
    );
  });
});

describe('clear signing: recorded activities', () => {
  it('maps activity types to signing operations', () => {
    expect(signingOperationOf('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2')).toBe('sign_raw_payload');
    expect(signingOperationOf('ACTIVITY_TYPE_SIGN_RAW_PAYLOADS')).toBe('sign_raw_payloads');
    expect(signingOperationOf('ACTIVITY_TYPE_SIGN_TRANSACTION_V2')).toBe('sign_transaction');
    expect(signingOperationOf('ACTIVITY_TYPE_CREATE_USERS_V3')).toBeUndefined();
  });

  it('reads a recorded sign_raw_payload and names the private key that signs', () => {
    const description = describeSigningActivity(
      {
        type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
        intent: {
          signRawPayloadIntentV2: {
            signWith: 'pk-1',
            payload: 'hello',
            encoding: 'PAYLOAD_ENCODING_TEXT_UTF8',
            hashFunction: 'HASH_FUNCTION_SHA256',
          },
        },
      },
      { privateKeys: [{ privateKeyId: 'pk-1', privateKeyName: 'Ops key', addresses: [] }] },
    );
    expect(description.operation).toBe('sign_raw_payload');
    expect(description.signer).toEqual({
      signWith: 'pk-1',
      kind: 'private key',
      privateKeyId: 'pk-1',
      privateKeyName: 'Ops key',
      keyAddresses: [],
      text: 'Ops key',
    });
  });

  it('refuses a non-signing activity, a missing intent and a malformed one, naming the field', () => {
    expectQkError(
      () => describeSigningActivity({ type: 'ACTIVITY_TYPE_CREATE_USERS_V3', intent: {} }),
      'REQUEST_INVALID',
      /ACTIVITY_TYPE_CREATE_USERS_V3 is not a signing activity/,
    );
    expectQkError(
      () => describeSigningActivity({ type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2', intent: {} }),
      'REQUEST_INVALID',
      /has no signTransactionIntentV2 in its intent/,
    );
    expectQkError(
      () =>
        describeSigningActivity({
          type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
          intent: { signTransactionIntentV2: { signWith: SIGNER, unsignedTransaction: '00', type: 'TRANSACTION_TYPE_DOGE' } },
        }),
      'REQUEST_INVALID',
      /signTransactionIntentV2 is invalid: type: /,
    );
    expectQkError(
      () =>
        describeSigningActivity({
          type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
          intent: { signTransactionIntentV2: { signWith: SIGNER, unsignedTransaction: '0xzz', type: 'TRANSACTION_TYPE_ETHEREUM' } },
        }),
      'ENCODING_INVALID',
      /parameters\.unsignedTransaction is not valid hex/,
    );
  });

  it('shows a Tron transaction raw, with a warning that it cannot be read', () => {
    const description = describeSigningRequest({
      operation: 'sign_transaction',
      parameters: { signWith: 'T-key', unsignedTransaction: '0a02', type: 'TRANSACTION_TYPE_TRON' },
    });
    expect(description.details).toEqual({ kind: 'unsupported-transaction', transactionType: 'TRANSACTION_TYPE_TRON', unsignedTransaction: '0a02' });
    expect(description.warnings.map((warning) => warning.kind)).toEqual(['UNDECODED']);
  });
});
