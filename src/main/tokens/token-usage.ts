/**
 * Which declared tokens each organization's signing activities used on this desktop, and as what they were declared
 * then (symbol and decimals), kept in `<dataDir>/token-usage.json`: one entry per organization and token, the last
 * use. A declaration something used cannot be changed or removed without the passphrase (tokens.ipc.ts), and the
 * confirmation says when a token's declaration changed since the organization last used it: the same base units
 * would now read as another amount.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { describeSigningActivity, signingOperationOf, type SigningActivity, type SigningDescription } from '../../shared/clear-signing';
import { tokenImitation, tokenPlaceWords } from '../../shared/clear-signing/token-reservation';
import { QkError, toQkError } from '../../shared/errors';
import { declaredTokenKey, type DeclaredToken } from '../../shared/ipc/contract';
import { JsonFile } from '../storage/json-file';
import type { DeclaredTokenKey, DeclaredTokens } from './declared-tokens';
import { tokenKeyText } from './token-thresholds';

const tokenUseSchema = z.strictObject({
  organizationId: z.string().min(1).max(100),
  token: declaredTokenKey,
  symbol: z.string().min(1).max(16),
  decimals: z.number().int().min(0).max(77),
  lastUsedMs: z.number().int().nonnegative(),
});
export type TokenUse = z.infer<typeof tokenUseSchema>;

const storedSchema = z.strictObject({ uses: z.array(tokenUseSchema) });

export class TokenUsage {
  private readonly file: JsonFile<z.infer<typeof storedSchema>>;
  private readonly tokens: Pick<DeclaredTokens, 'list'>;
  private readonly now: () => number;

  constructor({ dataDir, tokens, now }: { dataDir: string; tokens: Pick<DeclaredTokens, 'list'>; now: () => number }) {
    this.file = new JsonFile(join(dataDir, 'token-usage.json'), storedSchema);
    this.tokens = tokens;
    this.now = now;
  }

  /** Notes the declared tokens a signing activity of `organizationId` moves or calls, as they are declared now. */
  async recordActivity(organizationId: string, activity: SigningActivity & { id: string }): Promise<void> {
    if (signingOperationOf(activity.type) === undefined) return;
    const declared = await this.readDeclarations();
    if (declared.length === 0) return;
    let description: SigningDescription;
    try {
      description = describeSigningActivity(activity, { tokens: declared });
    } catch {
      // A request the reader cannot read names no token.
      return;
    }
    const mentions = mentionsOf(description);
    const used = declared.filter((token) => mentions.has(token));
    if (used.length === 0) return;
    const usedKeys = new Set(used.map(tokenKeyText));
    const lastUsedMs = this.now();
    try {
      await this.file.update(async (current) => {
        const others = (current?.uses ?? []).filter((use) => use.organizationId !== organizationId || !usedKeys.has(tokenKeyText(use.token)));
        const uses = used.map(({ symbol, decimals, ...token }) => ({ organizationId, token: keyOf(token), symbol, decimals, lastUsedMs }));
        return { next: { uses: [...others, ...uses] }, result: undefined };
      });
    } catch (error) {
      const cause = toQkError(error);
      throw new QkError(cause.code, `activity ${activity.id} was posted, but the declared tokens it uses could not be noted: ${cause.message}`, {
        activityId: activity.id,
      });
    }
  }

  /** Every organization's last use of the token at `key`. */
  async usesOf(key: DeclaredTokenKey): Promise<TokenUse[]> {
    const keyText = tokenKeyText(key);
    return ((await this.file.read())?.uses ?? []).filter((use) => tokenKeyText(use.token) === keyText);
  }

  /**
   * For each declared token `description` names that `organizationId` used before as declared otherwise (or that is
   * no longer declared), one sentence saying so, with the declaration then and now.
   */
  async changedSince(organizationId: string, description: SigningDescription): Promise<string[]> {
    const mentions = mentionsOf(description);
    const uses = ((await this.file.read())?.uses ?? []).filter((use) => use.organizationId === organizationId && mentions.has(use.token));
    if (uses.length === 0) return [];
    const declared = new Map((await this.readDeclarations()).map((token) => [tokenKeyText(token), token]));
    return uses.flatMap((use) => {
      const now = declared.get(tokenKeyText(use.token));
      if (now !== undefined && now.symbol === use.symbol && now.decimals === use.decimals) return [];
      const then = `${use.symbol} with ${use.decimals} decimals`;
      const nowWords = now === undefined ? 'not declared (its amounts read in raw units)' : `${now.symbol} with ${now.decimals} decimals`;
      return [
        `The declaration of the token at ${tokenPlaceWords(use.token)} changed since this organization last used it ` +
          `(${minuteText(use.lastUsedMs)}): then ${then}, now ${nowWords}.`,
      ];
    });
  }

  /** The declarations clear signing reads (not those imitating a known token). */
  private async readDeclarations(): Promise<DeclaredToken[]> {
    return (await this.tokens.list()).filter((token) => tokenImitation(token) === undefined);
  }
}

function keyOf(token: DeclaredTokenKey): DeclaredTokenKey {
  return token.family === 'ethereum'
    ? { family: 'ethereum', chainId: token.chainId, address: token.address }
    : { family: 'solana', address: token.address };
}

const minuteText = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * The addresses and chains a description names anywhere (the contract called, a transfer's mint, typed data's
 * verifying contract…): a token is named when its address is, on its chain for an ERC-20.
 */
function mentionsOf(description: SigningDescription): { has(key: DeclaredTokenKey): boolean } {
  const addresses = new Set<string>();
  const lowerCaseAddresses = new Set<string>();
  const chainIds = new Set<number>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    for (const [name, member] of Object.entries(value)) {
      if (name === 'address' && typeof member === 'string') {
        addresses.add(member);
        lowerCaseAddresses.add(member.toLowerCase());
      } else if (name === 'chainId' && typeof member === 'number') chainIds.add(member);
      else visit(member);
    }
  };
  visit(description);
  return {
    has: (key) =>
      key.family === 'ethereum' ? chainIds.has(key.chainId) && lowerCaseAddresses.has(key.address.toLowerCase()) : addresses.has(key.address),
  };
}
