/**
 * `journal verify FILE`: needs nothing of this desktop (no data dir, no keychain, no network), so the entry loads this
 * module alone for it, not the app's services.
 */
import { counted } from '../../shared/describe/words';
import { AWS_NITRO_ROOT, BootProofCheck, RootTally, type PinnedRoot } from '../../shared/journal/attestations';
import { sha256HexSchema } from '../../shared/journal/format';
import { nodeJournalVerifier } from '../journal/journal-key';
import { verifyWholeFile } from '../journal/verify-file';
import { FILE_LIMITS, readBoundedText } from '../storage/bounded-file';
import { positional, type CommandLine } from './arguments';
import { print } from './output';
import { UsageError } from './usage-error';

/**
 * `journal verify`: prints what verified and which roots vouch for its app proofs; exit 1 with the first bad entry
 * named on stderr. A root not pinned (AWS Nitro's, or given with --attestation-root) is warned about, not failed: the
 * proofs under it are consistent, but nobody this verification trusts stands behind them. The file is verified a line
 * at a time and its entries are not kept, so its size bounds the time taken, not the memory.
 */
export async function verifyJournalFile({ values, positionals }: CommandLine): Promise<void> {
  const file = positional(positionals, 2, 'FILE');
  const pins = [AWS_NITRO_ROOT, ...(values['attestation-root'] ?? []).map(givenRoot)];
  const checkpoint = values.checkpoint === undefined ? undefined : await readBoundedText(values.checkpoint, FILE_LIMITS.checkpoint);
  const bootProofs = new BootProofCheck();
  const roots = new RootTally(bootProofs, pins);
  const { verdict, count, first } = await verifyWholeFile(
    file,
    { verifySignature: nodeJournalVerifier(), bootProofs, ...(checkpoint === undefined ? {} : { checkpoint }) },
    FILE_LIMITS.journal,
    (entry) => roots.add(entry),
  );
  if (verdict.tornTail) console.error(`warning: ${file} ends in a torn line (an append cut short by a crash); the entries before it are checked`);
  if (!verdict.valid) {
    console.error(`${file} does not verify: ${verdict.problem?.message ?? 'unknown problem'}`);
    process.exitCode = 1;
    return;
  }
  const summary = roots.summary();
  for (const root of summary.filter((candidate) => candidate.pinnedAs === undefined)) {
    console.error(
      `warning: the app proofs of ${counted(root.entries, 'entry', 'entries')} chain to root ${root.fingerprint} (${root.subject}), which is not pinned; pass --attestation-root ${root.fingerprint} if you trust it`,
    );
  }
  print({
    valid: true,
    entries: count,
    first,
    head: verdict.head,
    journalKey: verdict.journalKey,
    ...(values.checkpoint === undefined ? {} : { extendsCheckpoint: values.checkpoint }),
    attestationRoots: summary.map(({ pinnedAs, ...root }) => ({ ...root, pinnedAs: pinnedAs ?? null })),
  });
}

/** A root given with --attestation-root: the SHA-256 of its certificate, as Settings shows it. */
function givenRoot(fingerprint: string): PinnedRoot {
  const normalized = fingerprint
    .trim()
    .toLowerCase()
    .replace(/^sha256:/, '');
  if (!sha256HexSchema.safeParse(normalized).success) {
    throw new UsageError(`--attestation-root must be a root certificate's SHA-256 (64 hex characters), got ${JSON.stringify(fingerprint)}`);
  }
  return { fingerprint: normalized, name: 'given with --attestation-root' };
}
