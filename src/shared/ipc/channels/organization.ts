/** The `organization.*` channels of the IPC contract (docs/architecture.md#the-ipc-contract). */
import { z } from 'zod';
import { addressFormat } from '../../api/enums';
import { activityOutcome, channel, declaredTokenSchema, noInput, policyView, userIds, walletView } from '../schemas';

/** The organization as it stands: names for ids, and the "before" of every change an activity asks for. */
const organizationLookup = z.strictObject({
  organizationId: z.string(),
  organizationName: z.string(),
  users: z.array(
    z.strictObject({
      userId: z.string(),
      userName: z.string(),
      userEmail: z.string().optional(),
      /** Tag ids; `tags` names them. */
      userTags: z.array(z.string()),
      /** `credentialType` is the credential's type (`CREDENTIAL_TYPE_API_KEY_P256`…), which consensus expressions read. */
      apiKeys: z.array(z.strictObject({ apiKeyId: z.string(), apiKeyName: z.string(), publicKey: z.string(), credentialType: z.string() })),
      authenticators: z.array(
        z.strictObject({ authenticatorId: z.string(), authenticatorName: z.string(), publicKey: z.string(), credentialType: z.string() }),
      ),
      oauthProviders: z.array(z.strictObject({ providerId: z.string(), providerName: z.string() })),
    }),
  ),
  tags: z.array(z.strictObject({ tagId: z.string(), tagName: z.string() })),
  /** Absent when the service does not report its root quorum. */
  rootQuorum: z.strictObject({ userIds: z.array(z.string()), threshold: z.number().int() }).optional(),
  /** When the users the policies ask for are enough for the root quorum: main's sentence that the policies protect nothing against them. */
  rootQuorumOverlap: z.string().max(2000).optional(),
  /** `activeNow`: whether the policy's time window holds now, by main's clock (one that cannot be evaluated does not). */
  policies: z.array(policyView.extend({ activeNow: z.boolean() })),
  wallets: z.array(walletView),
  walletAccounts: z.array(z.strictObject({ walletId: z.string(), address: z.string(), path: z.string(), addressFormat })),
  privateKeys: z.array(
    z.strictObject({ privateKeyId: z.string(), privateKeyName: z.string(), exported: z.boolean(), addresses: z.array(z.string()) }),
  ),
  /** This desktop's stored export keys (names and public keys): an export sealed to one of them opens here. */
  localExportKeys: z.array(z.strictObject({ name: z.string(), publicKey: z.string() })),
  /** Uploaded contract interfaces (the ABI or IDL as its JSON text), so signing requests read with their labels. */
  contracts: z.array(z.strictObject({ address: z.string(), type: z.enum(['ETHEREUM', 'SOLANA']), label: z.string(), definition: z.string() })),
  /** Tokens operators declared on this desktop, so a signing request's amounts read in the same units everywhere. */
  declaredTokens: z.array(declaredTokenSchema),
});

export const organizationChannels = {
  lookup: channel(noInput, organizationLookup),
  /** Proposes a new root quorum; it waits for the current quorum's votes like any other activity. */
  updateRootQuorum: channel(z.strictObject({ userIds, threshold: z.number().int().min(1).max(100) }), activityOutcome(z.strictObject({}))),
} as const;
