/** Signing requests: what the intent states, read by the clear-signing hook where one is given. */
import type { Describer, Describers, Draft, Fields } from '../draft';
import { code, plain, text, texts } from '../pieces';
import { HASH_FUNCTION_WORDS, PAYLOAD_ENCODING_WORDS, TRANSACTION_TYPE_WORDS, wordsFor } from '../signing-words';
import type { Fact, Ref, SigningRequest } from '../types';
import { counted, enumInWords } from '../words';

export function signing(draft: Draft, request: SigningRequest): void {
  const reading = draft.decodeSigning?.(request, { type: draft.type, intent: draft.intent });
  draft.signing =
    reading === undefined ? request : { ...request, decoded: reading.facts, ...(reading.signer === undefined ? {} : { signer: reading.signer }) };
  if (reading !== undefined) {
    draft.title = reading.title;
    draft.summary = reading.summary;
    for (const warning of reading.warnings) draft.warn(warning);
    draft.largeValue = reading.largeValue;
  }
  const holder = draft.names.holderOf(request.signWith.text);
  draft.fact('Signs with', request.signWith, ...(holder === undefined ? [] : [{ ...holder, text: `in ${holder.text}` }]));
}

export function signWith(fields: Fields): Ref {
  return code(text(fields, 'signWith') ?? text(fields, 'from') ?? 'not stated');
}

const signRawPayload: Describer = (fields, draft) => {
  draft.title = 'Sign a payload';
  const request: SigningRequest = {
    signWith: signWith(fields),
    payloads: [text(fields, 'payload') ?? ''],
    facts: payloadFacts(fields),
  };
  draft.summary = `with ${request.signWith.text}`;
  signing(draft, request);
};

const signRawPayloads: Describer = (fields, draft) => {
  const payloads = texts(fields, 'payloads');
  draft.title = `Sign ${counted(payloads.length, 'payload')}`;
  draft.summary = `with ${text(fields, 'signWith') ?? 'not stated'}`;
  signing(draft, { signWith: signWith(fields), payloads, facts: payloadFacts(fields) });
};

function payloadFacts(fields: Fields): Fact[] {
  const facts: Fact[] = [];
  const encoding = text(fields, 'encoding');
  if (encoding !== undefined)
    facts.push({
      label: 'Payload encoding',
      value: [plain(wordsFor(PAYLOAD_ENCODING_WORDS, encoding)?.reading ?? enumInWords(encoding, 'PAYLOAD_ENCODING_'))],
    });
  const hash = text(fields, 'hashFunction');
  if (hash !== undefined)
    facts.push({ label: 'Hashed with', value: [plain(wordsFor(HASH_FUNCTION_WORDS, hash)?.reading ?? enumInWords(hash, 'HASH_FUNCTION_'))] });
  return facts;
}

const signTransaction: Describer = (fields, draft) => {
  const type = text(fields, 'type');
  const chain = type === undefined ? undefined : (wordsFor(TRANSACTION_TYPE_WORDS, type)?.chain ?? enumInWords(type, 'TRANSACTION_TYPE_'));
  draft.title = 'Sign a transaction';
  const request: SigningRequest = {
    signWith: signWith(fields),
    payloads: [text(fields, 'unsignedTransaction') ?? ''],
    facts: chain === undefined ? [] : [{ label: 'Transaction type', value: [plain(chain)] }],
  };
  draft.summary = `${chain === undefined ? '' : `${chain} `}with ${request.signWith.text}`;
  signing(draft, request);
};

const sendTransaction: Describer = (fields, draft) => {
  draft.title = 'Sign and send a transaction';
  const payload = text(fields, 'unsignedTransaction');
  const facts: Fact[] = [];
  for (const [field, label] of [
    ['caip2', 'Network'],
    ['to', 'To'],
    ['value', 'Value'],
    ['data', 'Data'],
    ['nonce', 'Nonce'],
  ] as const) {
    const value = text(fields, field);
    if (value !== undefined && value !== '') facts.push({ label, value: [code(value)] });
  }
  if (fields['sponsor'] === true) facts.push({ label: 'Fees', value: [plain('paid by the gas station')] });
  draft.summary = `from ${signWith(fields).text}`;
  signing(draft, { signWith: signWith(fields), payloads: payload === undefined ? [] : [payload], facts });
};

/** eth_send_raw_transaction: nothing is signed; a transaction signed elsewhere is handed to the network. */
const sendRawTransaction: Describer = (fields, draft) => {
  draft.title = 'Send a signed transaction';
  const network = text(fields, 'caip2') ?? 'not stated';
  draft.summary = `on ${network}`;
  draft.fact('Network', code(network));
  draft.fact('Signed transaction', code(text(fields, 'signedTransaction') ?? 'not stated'));
};

/** eth_undelegate_7702: the account signs an authorization to the zero address, and the transaction carrying it. */
const undelegate: Describer = (fields, draft) => {
  draft.title = "Remove an account's EIP-7702 delegation";
  const facts: Fact[] = [];
  for (const [field, label] of [
    ['caip2', 'Network'],
    ['nonce', 'Nonce'],
  ] as const) {
    const value = text(fields, field);
    if (value !== undefined && value !== '') facts.push({ label, value: [code(value)] });
  }
  draft.summary = `of ${signWith(fields).text}`;
  signing(draft, { signWith: signWith(fields), payloads: [], facts });
};

export const signingDescribers = {
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: signRawPayload,
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: signRawPayloads,
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: signTransaction,
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2: sendTransaction,
  ACTIVITY_TYPE_SOL_SEND_TRANSACTION_V2: sendTransaction,
  ACTIVITY_TYPE_ETH_SEND_RAW_TRANSACTION: sendRawTransaction,
  ACTIVITY_TYPE_ETH_UNDELEGATE_7702: undelegate,
} satisfies Describers;
