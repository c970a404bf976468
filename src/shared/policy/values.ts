/** A point in time inside a policy, compared to the nanosecond. */
export class PolicyTimestamp {
  constructor(readonly epochNanoseconds: bigint) {}

  static fromDate(date: Date): PolicyTimestamp {
    return new PolicyTimestamp(BigInt(date.getTime()) * 1_000_000n);
  }
}

/** A struct or map: a plain object whose absent or undefined fields are missing (a MissingField error if read). */
export interface PolicyStruct {
  readonly [field: string]: PolicyValue | undefined;
}

/** Every value the policy language handles. Integers are bigints: Turnkey's are i128/u256. */
export type PolicyValue = boolean | bigint | string | PolicyTimestamp | readonly PolicyValue[] | PolicyStruct;

export type PolicyValueKind = 'bool' | 'int' | 'string' | 'timestamp' | 'list' | 'struct';

/** Array.isArray on a readonly list type narrows to any[]; this keeps the element type. */
export function isPolicyList(value: PolicyValue): value is readonly PolicyValue[] {
  return Array.isArray(value);
}

/** The kind of a value, or undefined for host data that is not a policy value (a JS number, null, a function). */
export function policyValueKind(value: unknown): PolicyValueKind | undefined {
  switch (typeof value) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'string':
      return 'string';
    case 'object':
      if (value === null) return undefined;
      if (value instanceof PolicyTimestamp) return 'timestamp';
      return Array.isArray(value) ? 'list' : 'struct';
    default:
      return undefined;
  }
}

// The context structs of docs/service.md#policy-keywords. Optional fields are absent when the service has no value for
// them (a passkey-less credential has no credential_id); reading them is a MissingField error, as in Turnkey.

export type PolicyUser = {
  readonly id: string;
  readonly tags: readonly string[];
  readonly email?: string;
  readonly alias?: string;
};

export type PolicyCredential = {
  readonly id: string;
  readonly user_id: string;
  readonly type: string;
  readonly credential_id?: string;
  readonly public_key: string;
};

export type PolicyActivity = {
  readonly type: string;
  readonly kind: string;
  /** Absent for activities outside Turnkey's resource table (approve/reject, root quorum). */
  readonly resource?: string;
  readonly action?: string;
  readonly params: PolicyStruct;
};

export type PolicyWallet = {
  readonly id: string;
  readonly imported: boolean;
  readonly exported: boolean;
  readonly label: string;
};

export type PolicyWalletAccount = { readonly address: string };

export type PolicyPrivateKey = {
  readonly id: string;
  readonly tags: readonly string[];
  readonly imported: boolean;
  readonly exported: boolean;
  readonly label: string;
};

/** What a `time` expression sees: `time.now`, the service's clock at evaluation, injected by the caller. */
export type PolicyTime = { readonly now: PolicyTimestamp };

/**
 * What an expression can see. Each root is present only when it applies to the request: `wallet` only when the
 * activity targets a wallet, `approvers`/`credentials` only for consensus. Reading an absent root is an error.
 */
export type PolicyContext = {
  readonly activity?: PolicyActivity;
  readonly approvers?: readonly PolicyUser[];
  readonly credentials?: readonly PolicyCredential[];
  readonly wallet?: PolicyWallet;
  readonly wallets?: readonly PolicyWallet[];
  readonly wallet_account?: PolicyWalletAccount;
  readonly private_key?: PolicyPrivateKey;
  readonly user?: PolicyUser;
  readonly eth?: PolicyStruct;
  readonly solana?: PolicyStruct;
  readonly tron?: PolicyStruct;
  readonly bitcoin?: PolicyStruct;
  readonly tempo?: PolicyStruct;
  readonly secret?: PolicyStruct;
  readonly time?: PolicyTime;
};

/** The context a `time` expression is evaluated in: `time.now` at `nowMs` (milliseconds since the epoch). */
export function timeContextAt(nowMs: number): PolicyContext {
  return { time: { now: PolicyTimestamp.fromDate(new Date(nowMs)) } };
}
