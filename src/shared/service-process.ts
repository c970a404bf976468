/**
 * The messages between main and the Sandbox service running in its own process (an Electron utility process in
 * the app, a Node child process in tests and the browser preview). Both ends check every message they receive.
 */
import { z } from 'zod';

const apiKeyCurveSchema = z.enum(['p256', 'secp256k1', 'ed25519']);

/** What main tells the service process. */
export const toServiceMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('start'),
    /** The database file. */
    db: z.string().min(1),
    /** The port to listen on; 0 picks a free one. */
    port: z.number().int().min(0).max(65_535),
    rootPublicKeys: z.array(z.strictObject({ publicKey: z.string().regex(/^[0-9a-fA-F]+$/), curve: apiKeyCurveSchema })),
    /** Milliseconds to add to the process's own clock, so tests and the e2e harness can move time. */
    clockOffsetMs: z.number().int(),
  }),
  z.strictObject({ type: z.literal('clock'), clockOffsetMs: z.number().int() }),
  /** The answer to `service-secret-request`: the bytes themselves, never in argv or the environment. */
  z.strictObject({
    type: z.literal('service-secret'),
    secret: z.custom<Uint8Array>((value) => value instanceof Uint8Array, { error: 'expected bytes' }),
    createdAtMs: z.number().int(),
  }),
  z.strictObject({ type: z.literal('service-secret-failed'), code: z.string(), message: z.string() }),
  /** Finish in-flight requests, close the database, answer `stopped` and exit. */
  z.strictObject({ type: z.literal('stop') }),
]);
export type ToServiceMessage = z.infer<typeof toServiceMessageSchema>;

export const serviceInfoSchema = z.strictObject({
  baseUrl: z.string(),
  authProxyUrl: z.string(),
  organizationId: z.string(),
  rootUserId: z.string(),
  authProxyConfigId: z.string(),
  enclaveSignerPublicKey: z.string(),
  sessionSignerPublicKey: z.string(),
  otpTokenSignerPublicKey: z.string(),
  attestationRootFingerprint: z.string(),
});

/** What the service process tells main. */
export const fromServiceMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('started'), info: serviceInfoSchema }),
  z.strictObject({ type: z.literal('start-failed'), code: z.string(), message: z.string() }),
  /** Asks main for the service secret (kept in the OS keychain), saying whether the database holds sealed data. */
  z.strictObject({ type: z.literal('service-secret-request'), databaseHoldsSealedData: z.boolean() }),
  z.strictObject({ type: z.literal('log'), line: z.string() }),
  z.strictObject({ type: z.literal('stopped') }),
]);
export type FromServiceMessage = z.infer<typeof fromServiceMessageSchema>;

/** The command-line flag that makes the service entry wait for main's `start` message instead of reading flags. */
export const PARENT_IPC_FLAG = '--parent-ipc';
