/**
 * The file an approved export is saved to for the offline desktop: the signed bundle exactly as the service answered
 * it, plus what the offline Decrypt screen needs to choose for the operator (whose organization, which key it is
 * sealed to, what was exported). None of it is secret: the bundle is sealed to the target key and signed by the
 * enclave, and the Decrypt screen still verifies it against the organization and signer it trusts.
 */
import { z } from 'zod';

export const EXPORT_FILE_KIND = 'quorumkey-export';

export const exportedKinds = ['wallet', 'private-key', 'wallet-account'] as const;
export type ExportedKind = (typeof exportedKinds)[number];

export const exportFileSchema = z.strictObject({
  kind: z.literal(EXPORT_FILE_KIND),
  version: z.literal(1),
  activityId: z.string().min(1).max(128),
  organizationId: z.string().min(1).max(64),
  exported: z.enum(exportedKinds),
  /** The public key the bundle is sealed to (uncompressed P-256, hex). */
  targetPublicKey: z.string().min(1).max(256),
  /** The service's export bundle, as text. */
  exportBundle: z.string().min(1).max(16_384),
});
export type ExportFile = z.infer<typeof exportFileSchema>;

/** The export file in `text`, or undefined when `text` is something else (a bare bundle, say). */
export function parseExportFile(text: string): ExportFile | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = exportFileSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** What an export activity type exports, or undefined for any other type. */
export function exportedKindOf(activityType: string): ExportedKind | undefined {
  if (activityType === 'ACTIVITY_TYPE_EXPORT_WALLET') return 'wallet';
  if (activityType === 'ACTIVITY_TYPE_EXPORT_PRIVATE_KEY') return 'private-key';
  if (activityType === 'ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT') return 'wallet-account';
  return undefined;
}
