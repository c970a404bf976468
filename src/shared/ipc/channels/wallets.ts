/** The `wallets.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { addressFormat, curve, pathFormat } from '../../api/enums';
import { activityOutcome, channel, epochMs, id, noInput, walletAccountParamsList, walletName, walletView } from '../schemas';

const walletAccountView = z.strictObject({
  walletAccountId: z.string(),
  walletId: z.string(),
  curve,
  pathFormat,
  path: z.string(),
  addressFormat,
  address: z.string(),
  publicKey: z.string().optional(),
  name: z.string().optional(),
  createdAtMs: epochMs,
});

export const walletsChannels = {
  list: channel(noInput, z.array(walletView)),
  accounts: channel(z.strictObject({ walletId: id }), z.array(walletAccountView)),
  create: channel(
    z.strictObject({
      name: walletName,
      mnemonicLength: z.union([z.literal(12), z.literal(15), z.literal(18), z.literal(21), z.literal(24)]).optional(),
      accounts: walletAccountParamsList,
    }),
    activityOutcome(z.strictObject({ walletId: z.string(), addresses: z.array(z.string()) })),
  ),
  createAccounts: channel(
    z.strictObject({ walletId: id, accounts: walletAccountParamsList }),
    activityOutcome(z.strictObject({ addresses: z.array(z.string()) })),
  ),
} as const;
