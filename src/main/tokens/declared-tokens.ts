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
import { ethereumNetwork } from '../../shared/clear-signing/networks';
import { QkError } from '../../shared/errors';
import { declaredTokenSchema, type DeclaredToken } from '../../shared/ipc/contract';
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

function where(key: DeclaredTokenKey): string {
  return key.family === 'ethereum' ? `${key.address} on ${ethereumNetwork(key.chainId).name} (chain id ${key.chainId})` : `Solana mint ${key.address}`;
}

export class DeclaredTokens {
  private readonly file: JsonFile<z.infer<typeof storedSchema>>;

  constructor({ dataDir }: { dataDir: string }) {
    this.file = new JsonFile(join(dataDir, 'declared-tokens.json'), storedSchema);
  }

  async list(): Promise<DeclaredToken[]> {
    return (await this.file.read())?.tokens ?? [];
  }

  /** Adds a declaration, or replaces the one for the same chain and address. Answers every declaration. */
  async declare(token: DeclaredToken): Promise<DeclaredToken[]> {
    const declared: DeclaredToken = { ...token, address: canonicalAddress(token) };
    const known = KNOWN_TOKENS.find((candidate) => sameToken(candidate, declared));
    if (known !== undefined) {
      throw invalid('address', `${where(declared)} is ${known.symbol} on the known token list (${known.decimals} decimals); it needs no declaration`);
    }
    return this.file.update(async (current) => {
      const tokens = [...(current?.tokens ?? []).filter((existing) => !sameToken(existing, declared)), declared];
      return { next: { tokens }, result: tokens };
    });
  }

  /** Removes a declaration; one that does not exist is an error naming it, so a stale screen learns it. */
  async remove(key: DeclaredTokenKey): Promise<DeclaredToken[]> {
    const target: DeclaredTokenKey = { ...key, address: canonicalAddress(key) };
    return this.file.update(async (current) => {
      const existing = current?.tokens ?? [];
      if (!existing.some((token) => sameToken(token, target))) throw new QkError('NOT_FOUND', `no token is declared for ${where(target)}`, { address: target.address });
      const tokens = existing.filter((token) => !sameToken(token, target));
      return { next: { tokens }, result: tokens };
    });
  }
}
