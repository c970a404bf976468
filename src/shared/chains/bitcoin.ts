/**
 * Bitcoin PSBT decoding, shared by the service's policy engine and the app's approval view.
 *
 * Exports:
 * - `decodeBitcoinPsbt(bytes, network?)` → `{ policy }`: the policy object `bitcoin.tx` (`BitcoinPolicyTransaction`):
 *   version, inputs (outpoint, sequence and, when the PSBT carries the spent output, its value, script and address),
 *   outputs with addresses and values, locktime, and the fee when every input's value is known.
 * - `readPsbt(bytes)`: the PSBT as a @scure/btc-signer `Transaction`, with bad input reported as a QkError.
 * - `bitcoinNetwork(name)` and the `BitcoinNetworkName` / policy struct types.
 *
 * Turnkey's SIGN_TRANSACTION takes a PSBT (BIP-174, hex on the wire) for TRANSACTION_TYPE_BITCOIN.
 */
import { Address, NETWORK, OutScript, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import { bytesToHex } from '../crypto/encoding';
import { QkError } from '../errors';

export type BitcoinNetworkName = 'mainnet' | 'testnet' | 'signet' | 'regtest';
export type BitcoinNetwork = typeof NETWORK;

/** Regtest shares testnet's base58 prefixes and has its own bech32 prefix. */
const REGTEST_NETWORK: BitcoinNetwork = { ...TEST_NETWORK, bech32: 'bcrt' };

export function bitcoinNetwork(name: BitcoinNetworkName): BitcoinNetwork {
  switch (name) {
    case 'mainnet':
      return NETWORK;
    case 'testnet':
    case 'signet':
      return TEST_NETWORK;
    case 'regtest':
      return REGTEST_NETWORK;
  }
}

/** The network an `ADDRESS_FORMAT_BITCOIN_<NETWORK>_…` address format names; undefined for other formats. */
export function bitcoinNetworkOfFormat(addressFormat: string): BitcoinNetworkName | undefined {
  const network = /^ADDRESS_FORMAT_BITCOIN_(MAINNET|TESTNET|SIGNET|REGTEST)_/.exec(addressFormat)?.[1];
  return network?.toLowerCase() as BitcoinNetworkName | undefined;
}

/**
 * The network a key signs Bitcoin for: that of the first Bitcoin address format among `formats` (the named address's
 * alone when signing with an address), mainnet when none is. The service and the approval card both decode a PSBT
 * for this network, so their output addresses agree.
 */
export function bitcoinNetworkOfFormats(formats: readonly string[]): BitcoinNetworkName {
  return formats.map(bitcoinNetworkOfFormat).find((network) => network !== undefined) ?? 'mainnet';
}

// ---- policy structs (bitcoin.tx) ----

export type BitcoinPolicyInput = {
  /** The spent transaction's id, in the byte order explorers show. */
  readonly tx_id: string;
  readonly vout: bigint;
  readonly sequence: bigint;
  // The spent output, when the PSBT carries it (witness UTXO or the whole previous transaction).
  readonly value?: bigint;
  readonly script_pubkey?: string;
  readonly address?: string;
  readonly address_type?: string;
};

export type BitcoinPolicyOutput = {
  readonly value: bigint;
  readonly script_pubkey: string;
  /** Absent for scripts without an address form (OP_RETURN, bare multisig, unknown scripts). */
  readonly address?: string;
  readonly address_type: string;
};

export type BitcoinPolicyTransaction = {
  readonly version: bigint;
  readonly inputs: readonly BitcoinPolicyInput[];
  readonly outputs: readonly BitcoinPolicyOutput[];
  /** Consensus reads a locktime below 500,000,000 as a block height and above it as a Unix time. */
  readonly locktime: { readonly amount: bigint; readonly type: 'BLOCK_HEIGHT' | 'TIMESTAMP' };
  /** Input values minus output values; absent when some input's spent output is not in the PSBT. */
  readonly fee?: bigint;
};

export type DecodedBitcoinPsbt = {
  readonly policy: BitcoinPolicyTransaction;
};

const LOCKTIME_THRESHOLD = 500_000_000;
const OP_RETURN = 0x6a;

/** Scripts the PSBT may carry beyond the standard ones (OP_RETURN data, future witness versions) stay readable. */
const PSBT_OPTIONS = { allowUnknownOutputs: true, allowUnknownInputs: true } as const;

/**
 * Inputs one PSBT may carry (**our choice**: Turnkey documents no bound). Signing an input hashes the whole
 * transaction again, so a PSBT's signing time grows with the square of its inputs: 100 sign in about a second.
 */
export const MAX_PSBT_INPUTS = 100;

const PSBT_MAGIC = [0x70, 0x73, 0x62, 0x74, 0xff];
const PSBT_GLOBAL_UNSIGNED_TX = 0x00;
const PSBT_GLOBAL_INPUT_COUNT = 0x04;

/**
 * The input count a PSBT declares, read from its global map without parsing the rest (the unsigned transaction's
 * count in version 0, PSBT_GLOBAL_INPUT_COUNT in version 2); undefined where the bytes do not say, for readPsbt to
 * explain.
 */
function declaredInputCount(bytes: Uint8Array): number | undefined {
  if (PSBT_MAGIC.some((byte, index) => bytes[index] !== byte)) return undefined;
  let offset = PSBT_MAGIC.length;
  const compactSize = (): number | undefined => {
    const first = bytes[offset];
    if (first === undefined) return undefined;
    const width = first < 0xfd ? 0 : first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    if (offset + 1 + width > bytes.length) return undefined;
    let value = width === 0 ? first : 0;
    for (let index = width; index >= 1; index -= 1) value = value * 256 + bytes[offset + index]!;
    offset += 1 + width;
    return value;
  };
  for (;;) {
    const keyLength = compactSize();
    if (keyLength === undefined || keyLength === 0) return undefined;
    const keyType = bytes[offset];
    offset += keyLength;
    const valueLength = compactSize();
    if (valueLength === undefined || offset + valueLength > bytes.length) return undefined;
    const valueEnd = offset + valueLength;
    if (keyType === PSBT_GLOBAL_UNSIGNED_TX && keyLength === 1) {
      offset += 4; // the transaction's version
      return compactSize();
    }
    if (keyType === PSBT_GLOBAL_INPUT_COUNT && keyLength === 1) return compactSize();
    offset = valueEnd;
  }
}

export function readPsbt(bytes: Uint8Array): Transaction {
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) {
    throw new QkError('ENCODING_INVALID', 'the PSBT is empty');
  }
  const inputs = declaredInputCount(bytes);
  if (inputs !== undefined && inputs > MAX_PSBT_INPUTS) {
    throw new QkError(
      'REQUEST_INVALID',
      `the PSBT has ${inputs} inputs; at most ${MAX_PSBT_INPUTS} are signed in one request: split it into several PSBTs`,
      { inputs, maxInputs: MAX_PSBT_INPUTS },
    );
  }
  try {
    return Transaction.fromPSBT(bytes, PSBT_OPTIONS);
  } catch (error) {
    throw new QkError('ENCODING_INVALID', `not a valid PSBT: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function decodeBitcoinPsbt(bytes: Uint8Array, network: BitcoinNetworkName = 'mainnet'): DecodedBitcoinPsbt {
  const transaction = readPsbt(bytes);
  const params = bitcoinNetwork(network);

  const inputs: BitcoinPolicyInput[] = [];
  let inputTotal: bigint | undefined = 0n;
  for (let index = 0; index < transaction.inputsLength; index++) {
    const input = transaction.getInput(index);
    if (input.txid === undefined || input.index === undefined) {
      throw new QkError('ENCODING_INVALID', `PSBT input ${index} has no outpoint`);
    }
    const spent = spentOutput(input, index);
    inputs.push({
      tx_id: bytesToHex(input.txid),
      vout: BigInt(input.index),
      sequence: BigInt(input.sequence ?? 0xffffffff),
      ...(spent === undefined ? {} : { value: spent.amount, ...describeScript(spent.script, params) }),
    });
    inputTotal = spent === undefined || inputTotal === undefined ? undefined : inputTotal + spent.amount;
  }

  const outputs: BitcoinPolicyOutput[] = [];
  let outputTotal = 0n;
  for (let index = 0; index < transaction.outputsLength; index++) {
    const output = transaction.getOutput(index);
    if (output.script === undefined || output.amount === undefined) {
      throw new QkError('ENCODING_INVALID', `PSBT output ${index} has no script or amount`);
    }
    outputs.push({ value: output.amount, ...describeScript(output.script, params) });
    outputTotal += output.amount;
  }

  const lockTime = transaction.lockTime;
  return {
    policy: {
      version: BigInt(transaction.version),
      inputs,
      outputs,
      locktime: { amount: BigInt(lockTime), type: lockTime < LOCKTIME_THRESHOLD ? 'BLOCK_HEIGHT' : 'TIMESTAMP' },
      ...(inputTotal === undefined ? {} : { fee: inputTotal - outputTotal }),
    },
  };
}

type SpentOutput = { readonly script: Uint8Array; readonly amount: bigint };

/**
 * The output an input spends. The whole previous transaction is preferred over the witness UTXO: its id is bound to
 * the outpoint, so its amounts cannot be forged the way a bare witness UTXO's can.
 */
function spentOutput(input: ReturnType<Transaction['getInput']>, index: number): SpentOutput | undefined {
  if (input.nonWitnessUtxo !== undefined && input.index !== undefined) {
    const output = input.nonWitnessUtxo.outputs[input.index];
    if (output === undefined) {
      throw new QkError(
        'ENCODING_INVALID',
        `PSBT input ${index} spends output ${input.index} of a previous transaction that has ` + `${input.nonWitnessUtxo.outputs.length} outputs`,
      );
    }
    return output;
  }
  return input.witnessUtxo;
}

const addressTypes: Readonly<Record<string, string>> = {
  pk: 'P2PK',
  pkh: 'P2PKH',
  sh: 'P2SH',
  wpkh: 'P2WPKH',
  wsh: 'P2WSH',
  tr: 'P2TR',
  ms: 'MULTISIG',
  p2a: 'P2A',
};

function describeScript(script: Uint8Array, network: BitcoinNetwork): { script_pubkey: string; address?: string; address_type: string } {
  const scriptPubkey = bytesToHex(script);
  const decoded = decodeOutScript(script);
  if (decoded === undefined) return { script_pubkey: scriptPubkey, address_type: 'UNKNOWN' };
  const addressType = addressTypes[decoded.type] ?? (script[0] === OP_RETURN ? 'OP_RETURN' : 'UNKNOWN');
  let address: string | undefined;
  try {
    address = Address(network).encode(decoded);
  } catch {
    // Scripts without an address form keep only their hex.
  }
  return { script_pubkey: scriptPubkey, address_type: addressType, ...(address === undefined ? {} : { address }) };
}

function decodeOutScript(script: Uint8Array) {
  try {
    return OutScript.decode(script);
  } catch {
    return undefined;
  }
}
