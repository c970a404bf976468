/**
 * spark_prepare_lightning_receive (docs/service.md#activity-types, docs/formats.md#spark-lightning-packages): for a
 * Spark wallet account of the organization, a fresh Lightning preimage is Feldman-shared to the operators
 * (enclave/spark.ts); the result carries the payment hash and each operator's ECIES package, never the preimage.
 */
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import { prepareLightningReceive, validateLightningReceive, type OperatorRecipient } from '../enclave/spark';
import type { Repositories } from '../store';

const SPARK_ADDRESS_FORMATS = new Set(['ADDRESS_FORMAT_SPARK_MAINNET', 'ADDRESS_FORMAT_SPARK_REGTEST']);

function requireSparkAccount(store: Repositories, organizationId: string, signWith: string): void {
  const account = store.walletAccounts.findByAddress(organizationId, signWith);
  if (account === undefined) {
    throw new QkError('NOT_FOUND', `parameters.signWith ${signWith} is not a wallet account address of organization ${organizationId}`, { signWith });
  }
  if (!SPARK_ADDRESS_FORMATS.has(account.addressFormat)) {
    throw new QkError(
      'REQUEST_INVALID',
      `parameters.signWith ${signWith} is an ${account.addressFormat} account; a Lightning receive needs a Spark account (ADDRESS_FORMAT_SPARK_MAINNET or ADDRESS_FORMAT_SPARK_REGTEST)`,
      { signWith, addressFormat: account.addressFormat },
    );
  }
}

function lightningReceiveInput(lightningReceive: { threshold: number | string; operatorRecipients: OperatorRecipient[] }) {
  return { threshold: Number(lightningReceive.threshold), operatorRecipients: lightningReceive.operatorRecipients };
}

export const sparkFamily: Family = {
  activities: {
    spark_prepare_lightning_receive: {
      // Bad input is a 400 before anything is recorded; execution repeats the checks because an approval can
      // complete the activity later, when the account may be gone.
      validate(store, organizationId, params) {
        requireSparkAccount(store, organizationId, params.signWith);
        validateLightningReceive(lightningReceiveInput(params.lightningReceive));
      },
      execute(ctx, params) {
        requireSparkAccount(ctx.store, ctx.organizationId, params.signWith);
        const prepared = prepareLightningReceive(lightningReceiveInput(params.lightningReceive));
        prepared.preimage.fill(0);
        return { operatorPackages: prepared.operatorPackages, paymentHash: prepared.paymentHash };
      },
    },
  },
};
