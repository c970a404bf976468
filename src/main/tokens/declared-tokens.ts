/**
 * Tokens operators declared (symbol and decimals per contract address), so clear signing reads their amounts in
 * their units. Kept by the app in `<dataDir>/declared-tokens.json`, for every profile: a contract's symbol and
 * decimals belong to its chain, not to an organization, and the service's interface notes are free text for people
 * that cannot change without deleting and re-uploading the ABI through consensus.
 */
import { join } from 'node:path';
import { isAddress as isSolanaAddress } from '@solana/kit';
import { getAddress, isAddress } from 'viem';
import { z } from 'zod';
import { KNOWN_TOKENS } from '../../shared/clear-signing/known-tokens';
import { tokenImitation, tokenPlaceWords } from '../../shared/clear-signing/token-reservation';
import { QkError } from '../../shared/errors';
import { declaredTokenSchema, type DeclaredToken, type DeclaredTokenView } from '../../shared/ipc/contract';
import { JsonFile } from '../storage/json-file';

export type DeclaredTokenKey = { family: 'ethereum'; chainId: number; address: string } | { family: 'solana'; address: string };

const storedSchema = z.strictObject({ tokens: z.array(declaredTokenSchema) });

function invalid(field: string, message: string): QkError {
  return new QkError('REQUEST_INVALID', `${field}: ${message}`, { field });
}

/** The address as stored: checksummed for Ethereum, exactly as given for a Solana mint (base58 is case-sensitive). */
function canonicalAddress(key: DeclaredTokenKey): string {
  const shown = JSON.stringify(key.address.slice(0, 80));
  if (key.family === 'ethereum') {
    if (!isAddress(key.address, { strict: false })) throw invalid('address', `${shown} is not an Ethereum address (0x and 40 hex digits)`);
    return getAddress(key.address);
  }
  if (!isSolanaAddress(key.address)) throw invalid('address', `${shown} is not a Solana mint address (base58, 32 bytes)`);
  return key.address;
}

const sameToken = (a: DeclaredTokenKey, b: DeclaredTokenKey) =>
  a.family === b.family && (a.family !== 'ethereum' || b.family !== 'ethereum' || a.chainId === b.chainId) && a.address === b.address;

/**
 * Sees a change of a stored declaration (`before`; `after` absent when it is removed) inside the file's update, so no
 * other change slips in between, and throws to refuse it.
 */
export type DeclarationApproval = (before: DeclaredToken, after: DeclaredToken | undefined) => Promise<void>;

export class DeclaredTokens {
  private readonly file: JsonFile<z.infer<typeof storedSchema>>;

  constructor({ dataDir }: { dataDir: string }) {
    this.file = new JsonFile(join(dataDir, 'declared-tokens.json'), storedSchema);
  }

  async list(): Promise<DeclaredToken[]> {
    return (await this.file.read())?.tokens ?? [];
  }

  /**
   * Every declaration with, for one stored before known symbols and names were reserved and imitating one, why it
   * is not read: clear signing skips it (amounts in raw units) and the tokens panel shows the reason beside it.
   */
  async views(): Promise<DeclaredTokenView[]> {
    return (await this.list()).map((token) => {
      const imitation = tokenImitation(token);
      return imitation === undefined ? token : { ...token, notRead: `not read: its ${imitation.field} ${imitation.reason}` };
    });
  }

  /**
   * Adds a declaration, or replaces the one for the same chain and address (which `approve` sees first). Answers every
   * declaration.
   */
  async declare(token: DeclaredToken, approve?: DeclarationApproval): Promise<DeclaredToken[]> {
    const declared: DeclaredToken = { ...token, address: canonicalAddress(token) };
    const known = KNOWN_TOKENS.find((candidate) => sameToken(candidate, declared));
    if (known !== undefined) {
      throw invalid(
        'address',
        `${tokenPlaceWords(declared)} is ${known.symbol} on the known token list (${known.decimals} decimals); it needs no declaration`,
      );
    }
    const imitation = tokenImitation(declared);
    if (imitation !== undefined) throw invalid(imitation.field, imitation.reason);
    return this.file.update(async (current) => {
      const replaced = current?.tokens.find((existing) => sameToken(existing, declared));
      if (replaced !== undefined) await approve?.(replaced, declared);
      const tokens = [...(current?.tokens ?? []).filter((existing) => !sameToken(existing, declared)), declared];
      return { next: { tokens }, result: tokens };
    });
  }

  /** Removes a declaration, once `approve` let it; one that does not exist is an error naming it, so a stale screen learns it. */
  async remove(key: DeclaredTokenKey, approve?: DeclarationApproval): Promise<DeclaredToken[]> {
    const target: DeclaredTokenKey = { ...key, address: canonicalAddress(key) };
    return this.file.update(async (current) => {
      const existing = current?.tokens ?? [];
      const removed = existing.find((token) => sameToken(token, target));
      if (removed === undefined) throw new QkError('NOT_FOUND', `no token is declared for ${tokenPlaceWords(target)}`, { address: target.address });
      await approve?.(removed, undefined);
      const tokens = existing.filter((token) => !sameToken(token, target));
      return { next: { tokens }, result: tokens };
    });
  }
}
