/**
 * Signs the inputs of a PSBT that a secp256k1 key owns, as Turnkey's SIGN_TRANSACTION does for
 * TRANSACTION_TYPE_BITCOIN.
 *
 * Export: `signBitcoinPsbt(psbt, privateKey, options?)` → `{ psbt, signedInputs }`.
 * - Owned inputs: P2WPKH, P2SH-P2WPKH (with its redeem script in the PSBT), P2PKH (with the previous transaction
 *   in the PSBT) and P2TR key path. A P2TR output is ours when it is the key's BIP-86 output (internal key tweaked
 *   with no script tree) or when the PSBT names the key as the internal key.
 * - With `options.address`, only inputs spending that address are signed (Turnkey signs with Schnorr when
 *   `signWith` is a Taproot address, ECDSA otherwise); the address must belong to the key.
 * - A PSBT with no input the key can sign is refused; nothing is signed.
 *
 * The result is the PSBT with the signatures added (partial signatures, or the Taproot key-path signature), not
 * finalized: Turnkey returns the signed PSBT in hex and its clients finalize and extract the transaction themselves,
 * which also leaves room for co-signers.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { Address, OutScript, p2pkh, p2sh, p2tr, p2wpkh } from '@scure/btc-signer';
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

type OwnedScripts = { readonly kind: string; readonly script: Uint8Array; readonly redeemScript?: Uint8Array }[];

export function signBitcoinPsbt(
  psbt: Uint8Array,
  privateKey: Uint8Array,
  options: BitcoinSigningOptions = {},
): BitcoinSigningResult {
  const transaction = readPsbt(psbt);
  const publicKey = secp256k1.getPublicKey(privateKey, true);
  const xOnly = publicKey.subarray(1);
  // Scripts do not depend on the network; only the address text of `options.address` does.
  const witnessKeyHash = p2wpkh(publicKey);
  let owned: OwnedScripts = [
    { kind: 'P2WPKH', script: witnessKeyHash.script },
    { kind: 'P2SH-P2WPKH', script: p2sh(witnessKeyHash).script, redeemScript: witnessKeyHash.script },
    { kind: 'P2PKH', script: p2pkh(publicKey).script },
    { kind: 'P2TR', script: p2tr(xOnly).script },
  ];
  if (options.address !== undefined) owned = onlyAddress(owned, options.address, options.network ?? 'mainnet');

  const signedInputs: number[] = [];
  for (let index = 0; index < transaction.inputsLength; index++) {
    const input = transaction.getInput(index);
    const spentScript = spentScriptOf(input);
    if (spentScript === undefined) continue;
    const kind = ownedKind(owned, input, spentScript, options.address === undefined ? xOnly : undefined);
    if (kind === undefined) continue;
    // The key's own BIP-86 output: the PSBT may omit the internal key, which the signer needs to apply the tweak.
    if (kind === 'P2TR' && input.tapInternalKey === undefined) {
      transaction.updateInput(index, { tapInternalKey: xOnly });
    }
    try {
      transaction.signIdx(privateKey, index);
    } catch (error) {
      throw new QkError(
        'REQUEST_INVALID',
        `PSBT input ${index} cannot be signed: ${error instanceof Error ? error.message : String(error)}`,
        { input: index },
      );
    }
    signedInputs.push(index);
  }

  if (signedInputs.length === 0) {
    throw new QkError(
      'REQUEST_INVALID',
      options.address === undefined
        ? 'the PSBT has no input this key can sign (P2WPKH, P2SH-P2WPKH, P2PKH or P2TR key path with its spent output)'
        : `the PSBT has no input spending ${options.address}`,
    );
  }
  return { psbt: transaction.toPSBT(), signedInputs };
}

type PsbtInput = ReturnType<ReturnType<typeof readPsbt>['getInput']>;

/**
 * Which of the key's scripts an input spends. `internalKey` also claims a Taproot output with a script tree whose
 * internal key is ours (key-path spend), which only an unrestricted request may sign.
 */
function ownedKind(
  owned: OwnedScripts,
  input: PsbtInput,
  spentScript: Uint8Array,
  internalKey: Uint8Array | undefined,
): string | undefined {
  const match = owned.find(
    ({ script, redeemScript }) =>
      equal(script, spentScript) && (redeemScript === undefined || equalOptional(input.redeemScript, redeemScript)),
  );
  if (match !== undefined) return match.kind;
  if (internalKey !== undefined && isTaproot(spentScript) && equalOptional(input.tapInternalKey, internalKey)) {
    return 'P2TR';
  }
  return undefined;
}

function onlyAddress(owned: OwnedScripts, address: string, networkName: BitcoinNetworkName): OwnedScripts {
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
    return input.nonWitnessUtxo.outputs[input.index]?.script;
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
