/**
 * Bitcoin PSBTs in words: inputs, outputs with addresses and BTC amounts, the fee, and outputs that pay the
 * organization's own addresses marked as change. The PSBT is decoded by the same function `bitcoin.tx` policies read.
 */
import { decodeBitcoinPsbt, type BitcoinNetworkName } from '../chains/bitcoin';
import { btc } from './amounts';
import type { Lookup } from './lookup';
import type { AddressRef, BitcoinOutputDetails, BitcoinTransactionDetails, Signer } from './types';
import type { Warnings } from './warnings';

export function readBitcoinPsbt(
  bytes: Uint8Array,
  network: BitcoinNetworkName,
  signer: Signer,
  lookup: Lookup,
  warnings: Warnings,
): { details: BitcoinTransactionDetails; summary: string } {
  const { policy } = decodeBitcoinPsbt(bytes, network);
  const ownAddresses = new Set([...(lookup.context.ownBitcoinAddresses ?? []), signer.signWith]);
  const isOwn = (value: string) => ownAddresses.has(value) || lookup.ownName('bitcoin', value) !== undefined;
  const address = (value: string): AddressRef => {
    if (!isOwn(value)) return lookup.address('bitcoin', value);
    const name = lookup.ownName('bitcoin', value);
    return { address: value, ...(name === undefined ? {} : { label: name }), role: 'own address' };
  };

  const outputs: BitcoinOutputDetails[] = policy.outputs.map((output, index) => ({
    index,
    ...(output.address === undefined ? {} : { address: address(output.address) }),
    addressType: output.address_type,
    scriptHex: output.script_pubkey,
    amount: btc(output.value),
    change: output.address !== undefined && isOwn(output.address),
  }));
  const sent = outputs.filter((output) => !output.change).reduce((sum, output) => sum + output.amount.raw, 0n);

  for (const output of outputs) {
    if (output.change || output.address === undefined) continue;
    if (lookup.isNewRecipient('bitcoin', output.address.address)) {
      warnings.add('NEW_RECIPIENT', `${output.address.address} has never received anything from this organization before.`, output.address.address);
    }
  }
  const threshold = lookup.context.thresholds?.bitcoinSatoshis;
  if (threshold !== undefined && sent > threshold) {
    warnings.add(
      'VALUE_ABOVE_THRESHOLD',
      `This sends ${btc(sent).text}, above the ${btc(threshold).text} threshold set in Settings.`,
      sent.toString(),
    );
  }

  const payees = outputs.filter((output) => !output.change);
  const summary =
    payees.length === 1 && payees[0]!.address !== undefined
      ? `Send ${payees[0]!.amount.text} to ${payees[0]!.address.address}`
      : `Send ${btc(sent).text} to ${payees.length} outputs`;
  return {
    summary,
    details: {
      kind: 'bitcoin-transaction',
      version: Number(policy.version),
      inputs: policy.inputs.map((input) => ({
        txId: input.tx_id,
        vout: Number(input.vout),
        sequence: Number(input.sequence),
        ...(input.address === undefined ? {} : { address: address(input.address) }),
        ...(input.value === undefined ? {} : { amount: btc(input.value) }),
      })),
      outputs,
      ...(policy.fee === undefined ? {} : { fee: btc(policy.fee) }),
      sent: btc(sent),
      locktime: { amount: Number(policy.locktime.amount), type: policy.locktime.type },
      policy,
    },
  };
}
