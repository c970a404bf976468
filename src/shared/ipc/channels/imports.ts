/** The `imports.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { curve } from '../../api/enums';
import {
  activityView,
  addressFormats,
  addressView,
  channel,
  privateKeyFormat,
  privateKeyHex,
  privateKeyName,
  walletAccountParamsList,
  walletName,
} from '../schemas';

const importOutcome = <R extends z.ZodType>(result: R) =>
  z.discriminatedUnion('state', [
    z.strictObject({ state: z.literal('imported'), result, activity: activityView }),
    z.strictObject({
      state: z.enum(['consensus-needed', 'pending', 'rejected']),
      activity: activityView,
      /** Which of the two activities waits: init_import (the target) or import (the encrypted secret). */
      step: z.enum(['init', 'import']),
    }),
  ]);

export const importsChannels = {
  /** The mnemonic is encrypted in main to the enclave's one-time import key; only ciphertext reaches the service. */
  wallet: channel(
    z.strictObject({
      name: walletName,
      mnemonic: z.string().min(1).max(1024),
      passphrase: z.string().max(1024).optional(),
      accounts: walletAccountParamsList,
    }),
    importOutcome(z.strictObject({ walletId: z.string(), addresses: z.array(z.string()) })),
  ),
  privateKey: channel(
    z.strictObject({ name: privateKeyName, privateKey: privateKeyHex, format: privateKeyFormat, curve, addressFormats }),
    importOutcome(z.strictObject({ privateKeyId: z.string(), addresses: z.array(addressView) })),
  ),
} as const;
