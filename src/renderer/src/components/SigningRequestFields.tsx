/**
 * What to sign, as the Sign screen and the policy editor's dry run take it: a transaction or a message, the account
 * that signs it (chosen from the organization's, by name), and the transaction's chain or the message's encoding and
 * hash function; pasted, or opened from a file.
 */
import { useState, type ReactNode } from 'react';
import { choicesOf, HASH_FUNCTION_WORDS, PAYLOAD_ENCODING_WORDS, TRANSACTION_TYPE_WORDS } from '../../../shared/describe/signing-words';
import type { QkError } from '../../../shared/errors';
import type { ChannelInput } from '../../../shared/ipc/contract';
import { useChannel, useChannelEach } from '../queries';
import { QueryStatus } from './QueryStatus';
import { SelectField, type SelectOption } from './SelectField';

export type SigningRequest = ChannelInput<'signing.preview'>['request'];
type TransactionType = Extract<SigningRequest, { operation: 'sign_transaction' }>['type'];
type Encoding = Extract<SigningRequest, { operation: 'sign_raw_payload' }>['encoding'];
type HashFunction = Extract<SigningRequest, { operation: 'sign_raw_payload' }>['hashFunction'];

interface SignerOption {
  value: string;
  label: string;
  /** Ed25519 keys sign messages without hashing; the others sign a digest. */
  ed25519: boolean;
}

/** The choices in the words every surface shares (the CLI takes the same values by its flag words). */
const TRANSACTION_TYPES: readonly SelectOption<TransactionType>[] = choicesOf(TRANSACTION_TYPE_WORDS);
const ENCODINGS: readonly SelectOption<Encoding>[] = choicesOf(PAYLOAD_ENCODING_WORDS);
const HASH_FUNCTIONS: readonly SelectOption<HashFunction>[] = choicesOf(HASH_FUNCTION_WORDS);

/**
 * The hash function a payload must take, where the person has no choice: an Ed25519 key hashes as part of signing,
 * and structured payloads (EIP-712, EIP-7702) hash themselves. Undefined where the person chooses.
 */
function requiredHashFunction(ed25519: boolean, encoding: Encoding): HashFunction | undefined {
  if (ed25519) return 'HASH_FUNCTION_NOT_APPLICABLE';
  if (encoding === 'PAYLOAD_ENCODING_EIP712' || encoding === 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION') return 'HASH_FUNCTION_NO_OP';
  return undefined;
}

/** The choices left: only the required one where there is one, else every one but Ed25519's. */
function hashFunctionOptions(required: HashFunction | undefined): SelectOption<HashFunction>[] {
  return HASH_FUNCTIONS.map((option) => ({
    ...option,
    disabled: required === undefined ? option.value === 'HASH_FUNCTION_NOT_APPLICABLE' : option.value !== required,
  }));
}

export interface SigningRequestForm {
  request: SigningRequest;
  /** An account is chosen and something to sign is given. */
  ready: boolean;
  /** The form's fields, to place inside the caller's form. */
  fields: ReactNode;
}

/** The request being composed, with its fields; `onChange` runs on every edit (callers drop what they read of it). */
export function useSigningRequestForm(onChange: () => void): SigningRequestForm {
  const signers = useSigners();
  const [kind, setKind] = useState<'transaction' | 'message'>('transaction');
  const [signWith, setSignWith] = useState('');
  const [transactionType, setTransactionType] = useState<TransactionType>('TRANSACTION_TYPE_ETHEREUM');
  const [unsignedTransaction, setUnsignedTransaction] = useState('');
  const [encoding, setEncoding] = useState<Encoding>('PAYLOAD_ENCODING_TEXT_UTF8');
  const [chosenHashFunction, setHashFunction] = useState<HashFunction>('HASH_FUNCTION_KECCAK256');
  const [payload, setPayload] = useState('');

  const signer = signers.options.find((option) => option.value === signWith);
  const requiredHash = requiredHashFunction(signer?.ed25519 === true, encoding);
  const hashFunction = requiredHash ?? chosenHashFunction;

  const request: SigningRequest =
    kind === 'transaction'
      ? { operation: 'sign_transaction', signWith, unsignedTransaction: unsignedTransaction.trim(), type: transactionType }
      : { operation: 'sign_raw_payload', signWith, payload, encoding, hashFunction };
  const ready = signWith !== '' && (kind === 'transaction' ? unsignedTransaction.trim() !== '' : payload !== '');

  const openFile = async (file: File | undefined) => {
    if (file === undefined) return;
    const text = (await file.text()).trim();
    if (kind === 'transaction') setUnsignedTransaction(text);
    else setPayload(text);
    onChange();
  };

  const fields = (
    <>
      <QueryStatus query={signers} loading="Loading the accounts…" />
      <div role="group" aria-label="What kind" className="segmented">
        <button type="button" aria-pressed={kind === 'transaction'} onClick={() => (setKind('transaction'), onChange())}>
          Transaction
        </button>
        <button type="button" aria-pressed={kind === 'message'} onClick={() => (setKind('message'), onChange())}>
          Message
        </button>
      </div>
      <label>
        Account
        <select value={signWith} onChange={(event) => (setSignWith(event.target.value), onChange())} required>
          <option value="">Choose an account…</option>
          {signers.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      {kind === 'transaction' ? (
        <>
          <SelectField
            label="Chain"
            value={transactionType}
            options={TRANSACTION_TYPES}
            onChange={(value) => (setTransactionType(value), onChange())}
          />
          <label>
            Unsigned transaction
            <textarea
              value={unsignedTransaction}
              onChange={(event) => (setUnsignedTransaction(event.target.value), onChange())}
              rows={5}
              spellCheck={false}
              required
            />
          </label>
        </>
      ) : (
        <>
          <SelectField label="Encoding" value={encoding} options={ENCODINGS} onChange={(value) => (setEncoding(value), onChange())} />
          <SelectField
            label="Hash function"
            value={hashFunction}
            options={hashFunctionOptions(requiredHash)}
            onChange={(value) => (setHashFunction(value), onChange())}
          />
          <label>
            Message
            <textarea value={payload} onChange={(event) => (setPayload(event.target.value), onChange())} rows={6} spellCheck={false} required />
          </label>
        </>
      )}
      <label>
        Or open a file
        <input type="file" onChange={(event) => void openFile(event.target.files?.[0])} />
      </label>
    </>
  );
  return { request, ready, fields };
}

/**
 * Every wallet account and private key address, named, to choose the signer from; read through the same queries as
 * the Wallets screen, so both show the same accounts. The status is the first read that failed or is still loading.
 */
function useSigners(): { options: SignerOption[]; error: QkError | null; isPending: boolean } {
  const wallets = useChannel('wallets.list');
  const privateKeys = useChannel('privateKeys.list');
  const accounts = useChannelEach(
    'wallets.accounts',
    (wallets.data ?? []).map((wallet) => ({ walletId: wallet.walletId })),
  );
  const reads = [wallets, privateKeys, ...accounts];
  const options: SignerOption[] = [
    ...(wallets.data ?? []).flatMap((wallet, index) =>
      (accounts[index]?.data ?? []).map((account) => ({
        value: account.address,
        label: `${wallet.walletName} / ${account.path} (${formatName(account.addressFormat)}) ${account.address}`,
        ed25519: account.curve === 'CURVE_ED25519',
      })),
    ),
    ...(privateKeys.data ?? []).flatMap((key) =>
      key.addresses.map((address) => ({
        value: address.address,
        label: `${key.privateKeyName} (${formatName(address.format)}) ${address.address}`,
        ed25519: key.curve === 'CURVE_ED25519',
      })),
    ),
  ];
  const failed = reads.find((read) => read.error !== null);
  return { options, error: failed?.error ?? null, isPending: reads.some((read) => read.isPending) };
}

function formatName(format: string): string {
  return format
    .replace(/^ADDRESS_FORMAT_/, '')
    .toLowerCase()
    .replaceAll('_', ' ');
}
