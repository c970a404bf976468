/** The `privateKeys.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { curve } from '../../api/enums';
import { activityOutcome, addressFormats, addressView, channel, epochMs, noInput, privateKeyName } from '../schemas';

const privateKeyView = z.strictObject({
  privateKeyId: z.string(),
  privateKeyName: z.string(),
  curve,
  publicKey: z.string(),
  addresses: z.array(addressView),
  tags: z.array(z.string()),
  createdAtMs: epochMs,
  exported: z.boolean(),
  imported: z.boolean(),
});

export const privateKeysChannels = {
  list: channel(noInput, z.array(privateKeyView)),
  create: channel(
    z.strictObject({ name: privateKeyName, curve, addressFormats }),
    activityOutcome(z.strictObject({ privateKeyId: z.string(), addresses: z.array(addressView) })),
  ),
} as const;
