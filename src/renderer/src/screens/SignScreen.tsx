import { useState, type FormEvent } from 'react';
import type { QkError } from '../../../shared/errors';
import type { ChannelInput, ChannelOutput } from '../../../shared/ipc/contract';
import type { SigningCardView, SigningResultView } from '../../../shared/ipc/signing';
import { ErrorNotice } from '../components/ErrorNotice';
import { Progress } from '../components/Progress';
import { QueryStatus } from '../components/QueryStatus';
import { SelectField, type SelectOption } from '../components/SelectField';
import { SigningCard } from '../components/SigningCard';
import { useAction } from '../hooks';
import { useChannel, useChannelEach } from '../queries';

type SigningRequest = ChannelInput<'signing.preview'>['request'];
type TransactionType = Extract<SigningRequest, { operation: 'sign_transaction' }>['type'];
type Encoding = Extract<SigningRequest, { operation: 'sign_raw_payload' }>['encoding'];
type HashFunction = Extract<SigningRequest, { operation: 'sign_raw_payload' }>['hashFunction'];
type Activity = ChannelOutput<'activities.get'>;

interface SignerOption {
  value: string;
  label: string;
  /** Ed25519 keys sign messages without hashing; the others sign a digest. */
  ed25519: boolean;
}

const TRANSACTION_TYPES: readonly SelectOption<TransactionType>[] = [
  { value: 'TRANSACTION_TYPE_ETHEREUM', label: 'Ethereum (serialized unsigned transaction, hex)' },
  { value: 'TRANSACTION_TYPE_SOLANA', label: 'Solana (unsigned transaction or message, hex)' },
  { value: 'TRANSACTION_TYPE_BITCOIN', label: 'Bitcoin (PSBT, hex)' },
];
const ENCODINGS: readonly SelectOption<Encoding>[] = [
  { value: 'PAYLOAD_ENCODING_TEXT_UTF8', label: 'Text (UTF-8)' },
  { value: 'PAYLOAD_ENCODING_HEXADECIMAL', label: 'Hexadecimal bytes' },
  { value: 'PAYLOAD_ENCODING_EIP712', label: 'EIP-712 typed data (JSON)' },
  { value: 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION', label: 'EIP-7702 authorization (JSON)' },
];
const HASH_FUNCTIONS: readonly SelectOption<HashFunction>[] = [
  { value: 'HASH_FUNCTION_KECCAK256', label: 'Keccak-256' },
  { value: 'HASH_FUNCTION_SHA256', label: 'SHA-256' },
  { value: 'HASH_FUNCTION_NO_OP', label: 'None: the payload is a 32-byte digest (or EIP-712/7702)' },
  { value: 'HASH_FUNCTION_NOT_APPLICABLE', label: 'Not applicable (Ed25519 keys)' },
];

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

/**
 * Sign a transaction or a message with one of the organization's accounts: see the same decoded card approvers see,
 * submit it (it goes through policies and votes like any activity), follow it, and copy or save what was signed.
 * Offline, stamp it into a file to post later from a connected machine.
 */
export function SignScreen() {
  const signers = useSigners();
  const action = useAction();
  const [kind, setKind] = useState<'transaction' | 'message'>('transaction');
  const [signWith, setSignWith] = useState('');
  const [transactionType, setTransactionType] = useState<TransactionType>('TRANSACTION_TYPE_ETHEREUM');
  const [unsignedTransaction, setUnsignedTransaction] = useState('');
  const [encoding, setEncoding] = useState<Encoding>('PAYLOAD_ENCODING_TEXT_UTF8');
  const [chosenHashFunction, setHashFunction] = useState<HashFunction>('HASH_FUNCTION_KECCAK256');
  const [payload, setPayload] = useState('');
  const [preview, setPreview] = useState<{ request: SigningRequest; card: SigningCardView }>();
  const [submitted, setSubmitted] = useState<Submitted>();
  const [stamped, setStamped] = useState<string>();
  const [stampFile, setStampFile] = useState('');

  const signer = signers.options.find((option) => option.value === signWith);
  const requiredHash = requiredHashFunction(signer?.ed25519 === true, encoding);
  const hashFunction = requiredHash ?? chosenHashFunction;

  const request: SigningRequest =
    kind === 'transaction'
      ? { operation: 'sign_transaction', signWith, unsignedTransaction: unsignedTransaction.trim(), type: transactionType }
      : { operation: 'sign_raw_payload', signWith, payload, encoding, hashFunction };
  const ready = signWith !== '' && (kind === 'transaction' ? unsignedTransaction.trim() !== '' : payload !== '');

  const clearResults = () => {
    setPreview(undefined);
    setSubmitted(undefined);
    setStamped(undefined);
  };

  const showPreview = async (event: FormEvent) => {
    event.preventDefault();
    clearResults();
    const card = await action.run('Reading what this signs…', (api) => api.signing.preview({ request }));
    if (card !== undefined) setPreview({ request, card });
  };

  const submit = async () => {
    if (preview === undefined) return;
    const outcome = await action.run('Submitting…', (api) => api.signing.submit({ request: preview.request }));
    if (outcome === undefined) return;
    const resent = outcome.resentFromMs === undefined ? {} : { resentFromMs: outcome.resentFromMs };
    setSubmitted(outcome.state === 'completed' ? { activity: outcome.activity, result: outcome.result, ...resent } : { activity: outcome.activity, ...resent });
  };

  const stamp = async (event: FormEvent) => {
    event.preventDefault();
    if (preview === undefined) return;
    const file = stampFile;
    const done = await action.run(`Stamping into ${file}…`, (api) => api.signing.stampToFile({ request: preview.request, file }));
    if (done !== undefined) setStamped(done.file);
  };

  const openFile = async (file: File | undefined) => {
    if (file === undefined) return;
    const text = (await file.text()).trim();
    if (kind === 'transaction') setUnsignedTransaction(text);
    else setPayload(text);
  };

  return (
    <section className="screen" aria-labelledby="sign-title">
      <h1 id="sign-title">Sign</h1>
      <p className="lead">Paste or open an unsigned transaction or a message, check what it does, then submit it for signing.</p>
      <Progress label={action.busy} />
      {action.error !== undefined && <ErrorNotice error={action.error} onDismiss={action.clearError} />}

      <section className="panel" aria-labelledby="sign-request-title">
        <h2 id="sign-request-title">What to sign</h2>
        <QueryStatus query={signers} loading="Loading the accounts…" />
        <form className="stack-form" aria-label="Signing request" onSubmit={(event) => void showPreview(event)}>
          <div role="group" aria-label="What kind" className="segmented">
            <button type="button" aria-pressed={kind === 'transaction'} onClick={() => (setKind('transaction'), clearResults())}>
              Transaction
            </button>
            <button type="button" aria-pressed={kind === 'message'} onClick={() => (setKind('message'), clearResults())}>
              Message
            </button>
          </div>
          <label>
            Account
            <select value={signWith} onChange={(event) => (setSignWith(event.target.value), clearResults())} required>
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
              <SelectField label="Chain" value={transactionType} options={TRANSACTION_TYPES} onChange={(value) => (setTransactionType(value), clearResults())} />
              <label>
                Unsigned transaction
                <textarea value={unsignedTransaction} onChange={(event) => (setUnsignedTransaction(event.target.value), clearResults())} rows={5} spellCheck={false} required />
              </label>
            </>
          ) : (
            <>
              <SelectField label="Encoding" value={encoding} options={ENCODINGS} onChange={(value) => (setEncoding(value), clearResults())} />
              <SelectField label="Hash function" value={hashFunction} options={hashFunctionOptions(requiredHash)} onChange={(value) => (setHashFunction(value), clearResults())} />
              <label>
                Message
                <textarea value={payload} onChange={(event) => (setPayload(event.target.value), clearResults())} rows={6} spellCheck={false} required />
              </label>
            </>
          )}
          <label>
            Or open a file
            <input type="file" onChange={(event) => void openFile(event.target.files?.[0])} />
          </label>
          <div className="button-row start">
            <button type="submit" className="primary" disabled={!ready || action.busy !== undefined}>
              Check what it signs
            </button>
          </div>
        </form>
      </section>

      {preview !== undefined && (
        <section className="panel" aria-labelledby="sign-preview-title">
          <h2 id="sign-preview-title">Before you submit</h2>
          <SigningCard card={preview.card} />
          {submitted === undefined && (
            <div className="button-row start">
              <button type="button" className="primary" disabled={action.busy !== undefined} onClick={() => void submit()}>
                Submit for signing
              </button>
            </div>
          )}
          <form className="inline-form" aria-label="Stamp for offline posting" onSubmit={(event) => void stamp(event)}>
            <label>
              Offline: file name to stamp into
              <input value={stampFile} onChange={(event) => setStampFile(event.target.value)} required spellCheck={false} placeholder="sign-1.json" pattern="[A-Za-z0-9][A-Za-z0-9._\-]*\.json" />
            </label>
            <button type="submit" disabled={action.busy !== undefined}>
              Stamp to file
            </button>
          </form>
          {stamped !== undefined && (
            <p className="notice notice-info" role="status">
              Stamped into <code>{stamped}</code>. Copy it into a connected machine’s stamped-requests folder and post it from its Approvals screen.
            </p>
          )}
        </section>
      )}

      {submitted !== undefined && <Following key={submitted.activity.id} initial={submitted} />}
    </section>
  );
}

/** A submitted request; `resentFromMs` when it retried one first sent then without an answer. */
interface Submitted {
  activity: Activity;
  result?: SigningResultView;
  resentFromMs?: number;
}

/**
 * Follows a submitted request until it is signed, rejected or failed; then offers the result to copy or save. Main
 * reports each vote and the decision, which makes the read stale, so nothing here polls.
 */
function Following({ initial }: { initial: Submitted }) {
  const followed = useChannel('signing.result', { activityId: initial.activity.id });
  const [copied, setCopied] = useState(false);
  const { activity, result } = followed.data ?? initial;
  const waiting = result === undefined && (activity.status === 'ACTIVITY_STATUS_CONSENSUS_NEEDED' || activity.status === 'ACTIVITY_STATUS_PENDING' || activity.status === 'ACTIVITY_STATUS_CREATED');

  const text = result === undefined ? undefined : resultText(result);
  const save = () => {
    if (text === undefined) return;
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    link.download = `signed-${activity.id}.txt`;
    link.click();
    URL.revokeObjectURL(link.href);
  };

  return (
    <section className="panel" aria-labelledby="sign-status-title">
      <h2 id="sign-status-title">Submitted</h2>
      {followed.error !== null && <ErrorNotice error={followed.error} />}
      {initial.resentFromMs !== undefined && (
        <p className="notice notice-info" role="status">
          Already submitted at {new Date(initial.resentFromMs).toLocaleTimeString()}, when no answer came back. The same request was sent again
          unchanged, so this is that request’s activity, not a second one.
        </p>
      )}
      {waiting && (
        <div className="notice notice-warning" role="status">
          <p className="notice-title">Waiting for votes ({activity.approvals} so far).</p>
          <p>
            Ask the approvers to approve the activity with this fingerprint: <code className="fingerprint">{activity.fingerprint}</code>
          </p>
        </div>
      )}
      {activity.status === 'ACTIVITY_STATUS_REJECTED' && <p className="notice notice-error">The request was rejected.</p>}
      {activity.status === 'ACTIVITY_STATUS_FAILED' && (
        <p className="notice notice-error">The request failed: {activity.failure?.message ?? 'the service gave no reason'}.</p>
      )}
      {text !== undefined && (
        <>
          <p className="notice notice-info" role="status">
            Signed.
          </p>
          <pre className="payload-text" aria-label="Signed result">
            {text}
          </pre>
          <div className="button-row start">
            <button type="button" onClick={() => void navigator.clipboard.writeText(text).then(() => setCopied(true))}>
              {copied ? 'Copied' : 'Copy'}
            </button>
            <button type="button" onClick={save}>
              Save to a file…
            </button>
          </div>
        </>
      )}
    </section>
  );
}

function resultText(result: SigningResultView): string {
  if (result.kind === 'signed-transaction') return result.signedTransaction;
  return result.signatures.map(({ r, s, v }) => `r=${r}\ns=${s}\nv=${v}`).join('\n\n');
}

/**
 * Every wallet account and private key address, named, to choose the signer from; read through the same queries as
 * the Wallets screen, so both show the same accounts. The status is the first read that failed or is still loading.
 */
function useSigners(): { options: SignerOption[]; error: QkError | null; isPending: boolean } {
  const wallets = useChannel('wallets.list');
  const privateKeys = useChannel('privateKeys.list');
  const accounts = useChannelEach('wallets.accounts', (wallets.data ?? []).map((wallet) => ({ walletId: wallet.walletId })));
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
  return format.replace(/^ADDRESS_FORMAT_/, '').toLowerCase().replaceAll('_', ' ');
}
