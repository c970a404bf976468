/** Reading the signing request an activity's intent holds: checked against the operation's own schema. */
import { describe, expect, it } from 'vitest';
import { signingRequestOf } from '../../src/main/signing/signing-request';
import { thrownCode } from '../support/assertions';

const SIGN_WITH = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('signingRequestOf', () => {
  it('reads a transaction to sign, dropping fields this version does not know', () => {
    const activity = {
      type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
      intent: { signTransactionIntentV2: { signWith: SIGN_WITH, unsignedTransaction: '02c9', type: 'TRANSACTION_TYPE_ETHEREUM', newerField: 1 } },
    };
    expect(signingRequestOf(activity)).toEqual({
      operation: 'sign_transaction',
      signWith: SIGN_WITH,
      unsignedTransaction: '02c9',
      type: 'TRANSACTION_TYPE_ETHEREUM',
    });
  });

  it('is undefined for an activity that signs nothing', () => {
    expect(signingRequestOf({ type: 'ACTIVITY_TYPE_CREATE_WALLET', intent: { createWalletIntent: { walletName: 'w' } } })).toBeUndefined();
  });

  it('refuses an intent that is not a signing request of its type, naming what is wrong', () => {
    const activity = {
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      intent: { signRawPayloadIntentV2: { signWith: SIGN_WITH, payload: 'hi', encoding: 'PAYLOAD_ENCODING_TEXT_UTF8' } },
    };
    expect(thrownCode(() => signingRequestOf(activity))).toBe('RESPONSE_INVALID');
    expect(() => signingRequestOf(activity)).toThrow(/hashFunction/);
  });
});
