/**
 * Who vouches for an entry's app proofs (docs/formats.md#journal). Each proof must verify, be bound to the entry's
 * activity, and have the boot proof of its ephemeral key in the entry; that boot proof's attestation must verify and
 * name the same key. Verifying tells which root certificate the attestation chains to. Whether that root is trusted
 * is the reader's pin, not the file's: AWS Nitro's root for Turnkey's enclaves, a Sandbox's own root on the desktop
 * that runs it. A journal key can sign anything, but it cannot make proofs chain to a root it does not hold.
 */
import { verifyAppProof } from '../crypto/app-proof';
import { AWS_NITRO_ROOT_SHA256, verifyBootProof, type AttestedKey, type BootProof } from '../crypto/attestation';
import type { JournalEntry } from './format';

/** A root certificate a reader trusts, by the SHA-256 of its DER, with the name it is shown under. */
export interface PinnedRoot {
  fingerprint: string;
  name: string;
}

export const AWS_NITRO_ROOT: PinnedRoot = { fingerprint: AWS_NITRO_ROOT_SHA256, name: 'AWS Nitro Enclaves' };

/** The root an entry's app proofs chain to. */
export interface ProofRoot {
  fingerprint: string;
  subject: string;
}

/** How many verified boot proofs a check remembers: a service has one per enclave boot, so a few suffice. */
const REMEMBERED_BOOT_PROOFS = 64;

/**
 * Verifies boot proofs, remembering the ones that verified: a journal repeats the same boot proof in every entry
 * whose activity the same enclave proved, and each costs several P-384 signature checks.
 */
export class BootProofCheck {
  private readonly verified = new Map<string, AttestedKey>();

  verify(bootProof: BootProof): AttestedKey {
    const key = `${bootProof.ephemeralPublicKeyHex}|${bootProof.qosManifestB64}|${bootProof.awsAttestationDocB64}`;
    const known = this.verified.get(key);
    if (known !== undefined) return known;
    const attested = verifyBootProof(bootProof);
    this.remember(key, attested);
    return attested;
  }

  /** What it remembers, for a check in the same process to adopt (a verification thread's, handed to main's). */
  remembered(): RememberedBootProofs {
    return [...this.verified];
  }

  adopt(remembered: RememberedBootProofs): void {
    for (const [key, attested] of remembered) this.remember(key, attested);
  }

  private remember(key: string, attested: AttestedKey): void {
    if (this.verified.size >= REMEMBERED_BOOT_PROOFS) this.verified.delete(this.verified.keys().next().value ?? '');
    this.verified.set(key, attested);
  }
}

/** Boot proofs a check verified, by what identifies each, with what each attests. */
export type RememberedBootProofs = [string, AttestedKey][];

/** Checks an entry's app proofs and their boot proofs; throws an Error whose message says which proof broke and how. */
export function checkEntryProofs(entry: Pick<JournalEntry, 'activityId' | 'appProofs' | 'bootProofs'>, check: BootProofCheck): void {
  const appProofs = entry.appProofs ?? [];
  const bootProofs = entry.bootProofs ?? [];
  const used = new Set<BootProof>();
  for (const [position, proof] of appProofs.entries()) {
    const which = `app proof ${position + 1}`;
    let payload: unknown;
    try {
      payload = verifyAppProof(proof);
    } catch (error) {
      throw new Error(`${which}: ${(error as Error).message}`, { cause: error });
    }
    const bound = (payload as { activityId?: unknown } | null)?.activityId;
    if (bound !== entry.activityId) throw new Error(`${which} is for activity ${String(bound)}, not ${String(entry.activityId)}`);
    const boot = bootProofs.find((candidate) => candidate.ephemeralPublicKeyHex === proof.publicKey);
    if (boot === undefined) throw new Error(`${which}: the entry holds no boot proof for its ephemeral key ${proof.publicKey.slice(0, 16)}…`);
    try {
      // It attests the key it names (ephemeralPublicKeyHex), which is the proof's.
      check.verify(boot);
    } catch (error) {
      throw new Error(`${which}: its boot proof does not verify: ${(error as Error).message}`, { cause: error });
    }
    used.add(boot);
  }
  const stray = bootProofs.findIndex((boot) => !used.has(boot));
  if (stray !== -1) throw new Error(`boot proof ${stray + 1} vouches for no app proof of the entry`);
}

/** The name a root is pinned under, or undefined when the reader does not pin it. */
export function pinnedName(root: string, pins: readonly PinnedRoot[]): string | undefined {
  return pins.find((pin) => pin.fingerprint === root)?.name;
}

/**
 * The distinct roots a verified entry's boot proofs chain to: verified again only when `check` does not remember them
 * (the check that verified the journal does).
 */
export function proofRoots(entry: Pick<JournalEntry, 'bootProofs'>, check: BootProofCheck): ProofRoot[] {
  const roots = new Map<string, ProofRoot>();
  for (const boot of entry.bootProofs ?? []) {
    const { rootFingerprint, rootSubject } = check.verify(boot);
    roots.set(rootFingerprint, { fingerprint: rootFingerprint, subject: rootSubject });
  }
  return [...roots.values()];
}

/** A root the entries' proofs chain to: how many entries, and the name the reader pins it under. */
export interface RootSummary extends ProofRoot {
  pinnedAs: string | undefined;
  entries: number;
}

/** How many entries' proofs chain to each root, with the name the reader pins it under. */
export function rootsSummary(
  entries: readonly Pick<JournalEntry, 'bootProofs'>[],
  check: BootProofCheck,
  pins: readonly PinnedRoot[],
): RootSummary[] {
  const tally = new RootTally(check, pins);
  for (const entry of entries) tally.add(entry);
  return tally.summary();
}

/** {@link rootsSummary} counted an entry at a time, for a verification that does not keep its entries. */
export class RootTally {
  private readonly roots = new Map<string, RootSummary>();

  constructor(
    private readonly check: BootProofCheck,
    private readonly pins: readonly PinnedRoot[],
  ) {}

  add(entry: Pick<JournalEntry, 'bootProofs'>): void {
    for (const root of proofRoots(entry, this.check)) {
      const known = this.roots.get(root.fingerprint) ?? { ...root, pinnedAs: pinnedName(root.fingerprint, this.pins), entries: 0 };
      known.entries += 1;
      this.roots.set(root.fingerprint, known);
    }
  }

  summary(): RootSummary[] {
    return [...this.roots.values()];
  }
}
