/**
 * Signs the inputs of a PSBT that a secp256k1 key owns, as Turnkey's SIGN_TRANSACTION does for
 * TRANSACTION_TYPE_BITCOIN.
 *
 * Exports: `signBitcoinPsbt(psbt, privateKey, options?)` → `{ psbt, signedInputs }`, and
 * `bitcoinInputsOwnedBy(psbt, publicKey, options?)` → the inputs it would sign, known from the public key alone.
 * - Owned inputs: P2WPKH, P2SH-P2WPKH, P2WSH of the key's 1-of-1 multisig (the wallet's P2WSH addresses), P2PKH
 *   (with the previous transaction in the PSBT) and P2TR key path: the key's BIP-86 output (internal key tweaked
 *   with no script tree), or any Taproot output whose internal key the PSBT names as ours. Redeem script, witness
 *   script and internal key are added when the PSBT leaves them out.
 * - With `options.address`, only inputs spending that address are signed (Turnkey signs with Schnorr when
 *   `signWith` is a Taproot address, ECDSA otherwise); the address must belong to the key.
 * - A PSBT with no input the key can sign is refused; nothing is signed.
 * - An owned input that asks for another sighash than SIGHASH_ALL (SIGHASH_DEFAULT for Taproot) is refused: NONE,
 *   SINGLE and ANYONECANPAY leave outputs or inputs open for others to change after signing.
 *
 * The result is the PSBT with the signatures added (partial signatures, or the Taproot key-path signature), not
 * finalized: Turnkey returns the signed PSBT in hex and its clients finalize and extract the transaction themselves,
 * which also leaves room for co-signers.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Address, OutScript, SigHash, p2ms, p2pkh, p2sh, p2tr, p2wpkh, p2wsh } from '@scure/btc-signer';
import { bitcoinNetwork, readPsbt, type BitcoinNetworkName } from '../../shared/chains/bitcoin';
import { QkError } from '../../shared/errors';

export type BitcoinSigningResult = {
  readonly psbt: Uint8Array;
  /** Indices of the inputs this key signed, ascending. */
  readonly signedInputs: readonly number[];
};

export type BitcoinSigningOptions = {
  /** Sign only inputs spending this address (a wallet account's or private key's address). */
  readonly address?: string;
  /** The network `address` is written for; mainnet when omitted. */
  readonly network?: BitcoinNetworkName;
};

/** A script the key can spend, with the PSBT fields the signer needs for it, added when the PSBT leaves them out. */
type OwnedScript = {
  readonly kind: string;
  readonly script: Uint8Array;
  readonly fill: { redeemScript?: Uint8Array; witnessScript?: Uint8Array; tapInternalKey?: Uint8Array };
};

export function signBitcoinPsbt(psbt: Uint8Array, privateKey: Uint8Array, options: BitcoinSigningOptions = {}): BitcoinSigningResult {
  const transaction = readPsbt(psbt);
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const owned = ownedInputs(transaction, publicKey, options);
  for (const { index, match } of owned) {
    const input = transaction.getInput(index);
    const missing = Object.fromEntries(Object.entries(match.fill).filter(([field]) => input[field as keyof typeof match.fill] === undefined));
    if (Object.keys(missing).length > 0) transaction.updateInput(index, missing);
    try {
      transaction.signIdx(privateKey, index);
    } catch (error) {
      throw new QkError('REQUEST_INVALID', `PSBT input ${index} cannot be signed: ${error instanceof Error ? error.message : String(error)}`, {
        input: index,
      });
    }
  }
  return { psbt: transaction.toPSBT(), signedInputs: owned.map(({ index }) => index) };
}

/**
 * The indices of the inputs signBitcoinPsbt would sign for the key with this compressed public key, with the same
 * refusals (no such input, an address of another key, a bad PSBT), so a request can be checked before any key is
 * opened.
 */
export function bitcoinInputsOwnedBy(psbt: Uint8Array, publicKey: Uint8Array, options: BitcoinSigningOptions = {}): number[] {
  return ownedInputs(readPsbt(psbt), publicKey, options).map(({ index }) => index);
}

/** Each input the key can sign with the script it spends; refuses a PSBT with none. */
function ownedInputs(
  transaction: ReturnType<typeof readPsbt>,
  publicKey: Uint8Array,
  options: BitcoinSigningOptions,
): { index: number; match: OwnedScript }[] {
  const xOnly = publicKey.subarray(1);
  // Scripts do not depend on the network; only the address text of `options.address` does.
  const witnessKeyHash = p2wpkh(publicKey);
  // The wallet's P2WSH addresses commit to a 1-of-1 multisig of the key.
  const singleKeyMultisig = p2ms(1, [publicKey]);
  let owned: readonly OwnedScript[] = [
    { kind: 'P2WPKH', script: witnessKeyHash.script, fill: {} },
    { kind: 'P2SH-P2WPKH', script: p2sh(witnessKeyHash).script, fill: { redeemScript: witnessKeyHash.script } },
    { kind: 'P2WSH', script: p2wsh(singleKeyMultisig).script, fill: { witnessScript: singleKeyMultisig.script } },
    { kind: 'P2PKH', script: p2pkh(publicKey).script, fill: {} },
    // BIP-86: the key tweaked with no script tree.
    { kind: 'P2TR', script: p2tr(xOnly).script, fill: { tapInternalKey: xOnly } },
  ];
  if (options.address !== undefined) owned = onlyAddress(owned, options.address, options.network ?? 'mainnet');

  const found: { index: number; match: OwnedScript }[] = [];
  for (let index = 0; index < transaction.inputsLength; index++) {
    const input = transaction.getInput(index);
    const spentScript = spentScriptOf(input);
    if (spentScript === undefined) continue;
    const match = ownedScript(owned, input, spentScript, options.address === undefined ? xOnly : undefined);
    if (match === undefined) continue;
    checkSighash(index, input.sighashType, match.kind === 'P2TR');
    if (match.kind === 'P2PKH' && input.nonWitnessUtxo === undefined) {
      // Without the previous transaction a legacy input's amount is unproven: a fee attack btc-signer refuses to sign.
      throw new QkError(
        'REQUEST_INVALID',
        `PSBT input ${index} spends a P2PKH output; include the whole previous transaction (nonWitnessUtxo), not only witnessUtxo`,
        {
          input: index,
        },
      );
    }
    found.push({ index, match });
  }
  if (found.length === 0) {
    throw new QkError(
      'REQUEST_INVALID',
      options.address === undefined
        ? `the PSBT has no input this key can sign: none spends its ${owned.map(({ kind }) => kind).join(', ')} ` +
            'output with the spent output in the PSBT'
        : `the PSBT has no input spending ${options.address}`,
    );
  }
  return found;
}

type PsbtInput = ReturnType<ReturnType<typeof readPsbt>['getInput']>;

/** The one sighash an input may ask for: the default of its kind, as btc-signer signs by default (no field = that). */
function checkSighash(index: number, sighashType: number | undefined, taproot: boolean): void {
  const signed = taproot ? SigHash.DEFAULT : SigHash.ALL;
  if (sighashType === undefined || sighashType === signed) return;
  const asked = Object.entries(SigHash).find(([, value]) => value === sighashType)?.[0] ?? `0x${sighashType.toString(16)}`;
  throw new QkError(
    'REQUEST_INVALID',
    `PSBT input ${index} asks for sighash ${asked}; only ${taproot ? 'DEFAULT' : 'ALL'} is signed${taproot ? ' for a Taproot input' : ''}, ` +
      'since NONE, SINGLE and ANYONECANPAY let others change the transaction after it is signed',
    { input: index, sighashType },
  );
}

/**
 * Which of the key's scripts an input spends. `internalKey` also claims a Taproot output with a script tree whose
 * internal key is ours (key-path spend), which only an unrestricted request may sign.
 */
function ownedScript(
  owned: readonly OwnedScript[],
  input: PsbtInput,
  spentScript: Uint8Array,
  internalKey: Uint8Array | undefined,
): OwnedScript | undefined {
  const match = owned.find(({ script }) => equal(script, spentScript));
  if (match !== undefined) return match;
  if (internalKey !== undefined && isTaproot(spentScript) && equalOptional(input.tapInternalKey, internalKey)) {
    return { kind: 'P2TR', script: spentScript, fill: {} };
  }
  return undefined;
}

function onlyAddress(owned: readonly OwnedScript[], address: string, networkName: BitcoinNetworkName): readonly OwnedScript[] {
  let script: Uint8Array;
  try {
    script = OutScript.encode(Address(bitcoinNetwork(networkName)).decode(address));
  } catch (error) {
    throw new QkError(
      'ADDRESS_FORMAT_INVALID',
      `${address} is not a Bitcoin ${networkName} address: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const chosen = owned.filter((candidate) => equal(candidate.script, script));
  if (chosen.length === 0) {
    throw new QkError('KEY_INVALID', `${address} does not belong to the signing key`);
  }
  return chosen;
}

function spentScriptOf(input: PsbtInput): Uint8Array | undefined {
  if (input.nonWitnessUtxo !== undefined && input.index !== undefined) {
    // btc-signer types the decoded output's script loosely; check it is the bytes it should be.
    const script: unknown = input.nonWitnessUtxo.outputs[input.index]?.script;
    return script instanceof Uint8Array ? script : undefined;
  }
  return input.witnessUtxo?.script;
}

function isTaproot(script: Uint8Array): boolean {
  try {
    return OutScript.decode(script).type === 'tr';
  } catch {
    return false;
  }
}

function equal(left: Uint8Array, right: Uint8Array): boolean {
  return left.length === right.length && left.every((byte, index) => byte === right[index]);
}

function equalOptional(left: Uint8Array | undefined, right: Uint8Array): boolean {
  return left !== undefined && equal(left, right);
}
