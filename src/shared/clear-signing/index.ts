/**
 * Clear signing: the one reader that turns a signing request (sign_raw_payload, sign_raw_payloads, sign_transaction)
 * into a description the approval card, the Sign screen and the CLI render. Payloads are decoded by the same
 * functions the service's policies use (src/shared/chains), so the screen and the policy engine read the same thing.
 * Bad input is a QkError naming the field, as the service would answer it.
 */
import { activityOperations } from '../api/activities';
import { SIGNING_OPERATIONS, signingOperationOf } from '../api/signing-operations';
import { parseRequest } from '../api/validate';
import { hexToBytes } from '../crypto/encoding';
import { PAYLOAD_ENCODING_WORDS, TRANSACTION_TYPE_WORDS } from '../describe/signing-words';
import { QkError } from '../errors';
import { readBitcoinPsbt } from './bitcoin';
import { typedDataDescriptor, type DescriptorSection } from './erc7730/reading';
import { readEthereumTransaction, typedDataSummary } from './ethereum';
import { Lookup } from './lookup';
import { lookAlikeMessage, lookAlikesIn } from './look-alike';
import { bitcoinNetworkDescription, bitcoinNetworkOf, SOLANA_NETWORK } from './networks';
import { readRawPayloads } from './raw-payload';
import { readSolanaTransaction } from './solana';
import type { ClearSigningContext, Network, SigningActivity, SigningDescription, SigningDetails, SigningOperation } from './types';
import { Warnings } from './warnings';

export * from './types';
export { flatFacts, signingFacts } from './facts';

type OperationParameters<O extends SigningOperation> = ReturnType<(typeof activityOperations)[O]['parameters']['parse']>;

/** A signing request before or after submission: the operation and its parameters as the swagger names them. */
export type SigningRequest =
  | { operation: 'sign_raw_payload'; parameters: OperationParameters<'sign_raw_payload'> }
  | { operation: 'sign_raw_payloads'; parameters: OperationParameters<'sign_raw_payloads'> }
  | { operation: 'sign_transaction'; parameters: OperationParameters<'sign_transaction'> };

export { signingOperationOf };

/** Reads a recorded signing activity (`{type, intent: {signTransactionIntentV2: …}}`). */
export function describeSigningActivity(activity: SigningActivity, context: ClearSigningContext = {}): SigningDescription {
  const operation = signingOperationOf(activity.type);
  if (operation === undefined) {
    throw new QkError(
      'REQUEST_INVALID',
      `${activity.type} is not a signing activity; clear signing reads ${SIGNING_OPERATIONS.map((name) => activityOperations[name].activityType).join(', ')}`,
    );
  }
  const { intentKey } = activityOperations[operation];
  const intent = activity.intent[intentKey];
  if (intent === undefined) throw new QkError('REQUEST_INVALID', `the ${activity.type} activity has no ${intentKey} in its intent`);
  const parameters = parseRequest(activityOperations[operation].parameters, intent, intentKey);
  return describeSigningRequest({ operation, parameters } as SigningRequest, context);
}

/** Reads a signing request, e.g. one the Sign screen is about to submit. */
export function describeSigningRequest(request: SigningRequest, context: ClearSigningContext = {}): SigningDescription {
  const lookup = new Lookup(context);
  const warnings = new Warnings();
  const signer = lookup.signer(request.parameters.signWith);
  const reading = read(request, lookup, warnings, signer);
  for (const contract of lookup.readWithoutNetwork) {
    warnings.add(
      'NETWORK_NOT_STATED',
      `The interface “${contract.label}” for ${contract.address} was uploaded without naming its network, so it is read on every chain: the same address on ${reading.network.name} may be another contract. Re-upload it for its network.`,
      contract.address,
    );
  }
  for (const lookAlike of lookAlikesIn(reading.details, context)) {
    warnings.add('LOOK_ALIKE_ADDRESS', lookAlikeMessage(lookAlike), lookAlike.address, lookAlike);
  }
  return { operation: request.operation, signer, warnings: warnings.list, ...reading };
}

/** `descriptor`: the registry's reading, read with the request since a call only it read is summed up in its words. */
type Reading = { title: string; summary: string; network: Network; details: SigningDetails; descriptor?: DescriptorSection };

const NO_NETWORK: Network = { family: 'unknown', name: 'not named by the payload' };

function read(request: SigningRequest, lookup: Lookup, warnings: Warnings, signer: SigningDescription['signer']): Reading {
  if (request.operation !== 'sign_transaction') {
    const { parameters } = request;
    const payloads =
      request.operation === 'sign_raw_payload'
        ? [{ payload: request.parameters.payload, what: 'parameters.payload' }]
        : request.parameters.payloads.map((payload, index) => ({ payload, what: `parameters.payloads[${index}]` }));
    if (payloads.length === 0) throw new QkError('REQUEST_INVALID', 'parameters.payloads: send at least one payload to sign');
    const raw = readRawPayloads(payloads, parameters.encoding, parameters.hashFunction, signer, lookup, warnings);
    const { descriptors } = lookup.context;
    const descriptor = descriptors === undefined ? undefined : typedDataDescriptor(raw.details, signer.signWith, lookup, descriptors);
    const [typedData] = raw.details.payloads.map((payload) => payload.typedData);
    const registrySummary =
      descriptor?.rendered === undefined || typedData === undefined || typedData.safeTransaction !== undefined
        ? undefined
        : typedDataSummary(typedData.primaryType, descriptor.rendered, typedData.network);
    const { reading } = PAYLOAD_ENCODING_WORDS[parameters.encoding];
    const noun =
      parameters.encoding === 'PAYLOAD_ENCODING_EIP712'
        ? reading
        : parameters.encoding === 'PAYLOAD_ENCODING_EIP7702_AUTHORIZATION'
          ? `an ${reading}`
          : 'a raw payload';
    return {
      title: payloads.length === 1 ? `Sign ${noun}` : `Sign ${payloads.length} raw payloads`,
      summary: registrySummary ?? raw.summary,
      network: raw.network ?? NO_NETWORK,
      details: raw.details,
      ...(descriptor === undefined ? {} : { descriptor }),
    };
  }
  const { type, unsignedTransaction } = request.parameters;
  switch (type) {
    case 'TRANSACTION_TYPE_ETHEREUM': {
      const reading = readEthereumTransaction(unsignedTransaction, signer, lookup, warnings);
      return { title: 'Sign an Ethereum transaction', ...reading };
    }
    case 'TRANSACTION_TYPE_SOLANA': {
      const reading = readSolanaTransaction(hexToBytes(unsignedTransaction, 'parameters.unsignedTransaction'), lookup, warnings);
      return { title: 'Sign a Solana transaction', network: SOLANA_NETWORK, ...reading };
    }
    case 'TRANSACTION_TYPE_BITCOIN': {
      const networkName = bitcoinNetworkOf(signer);
      const bytes = hexToBytes(unsignedTransaction, 'parameters.unsignedTransaction');
      const reading = readBitcoinPsbt(bytes, networkName, signer, lookup, warnings);
      return { title: 'Sign a Bitcoin transaction', network: bitcoinNetworkDescription(networkName), ...reading };
    }
    case 'TRANSACTION_TYPE_TRON':
    case 'TRANSACTION_TYPE_TEMPO': {
      const { chain } = TRANSACTION_TYPE_WORDS[type];
      warnings.add(
        'UNDECODED',
        `QuorumKey cannot read ${chain} transactions yet: only the raw transaction is shown. Check it another way before you approve.`,
      );
      return {
        title: `Sign a ${chain} transaction`,
        summary: `Sign a ${chain} transaction QuorumKey cannot read`,
        network: { family: type === 'TRANSACTION_TYPE_TRON' ? 'tron' : 'tempo', name: chain },
        details: { kind: 'unsupported-transaction', transactionType: type, unsignedTransaction },
      };
    }
  }
}
