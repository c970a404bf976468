import { formatUnits } from 'viem';
import { tokenPlaceWords } from '../../shared/clear-signing/token-reservation';
import type { DeclaredToken } from '../../shared/ipc/contract';
import type { IpcHandlers } from '../ipc/register';
import type { Journal } from '../journal/journal';
import { localRecord } from '../journal/local-entry';
import type { Unlocker } from '../lock/unlocker';
import type { Settings, WideningChange } from '../settings/settings';
import type { DeclarationApproval, DeclaredTokens } from './declared-tokens';
import { tokenCatalog, tokenKeyText } from './token-thresholds';
import type { TokenUsage } from './token-usage';

export function tokensHandlers({
  tokens,
  settings,
  usage,
  unlocker,
  journal,
}: {
  tokens: DeclaredTokens;
  settings: Pick<Settings, 'get'>;
  usage: Pick<TokenUsage, 'usesOf'>;
  unlocker: Pick<Unlocker, 'confirm'>;
  journal: Pick<Journal, 'record'>;
}): Pick<IpcHandlers, 'tokens.list' | 'tokens.catalog' | 'tokens.declare' | 'tokens.remove'> {
  /**
   * Changing what a used declaration says (its symbol or decimals) or removing it changes how a threshold's and past
   * activities' base units read, so, as a widening setting, it needs the unlock passphrase (when one is set) and is
   * journaled. Runs inside the declarations file's update, so what it approved is what gets written.
   */
  const guarded = async (passphrase: string | undefined, change: (approve: DeclarationApproval) => Promise<DeclaredToken[]>) => {
    let widened: (WideningChange & { title: string; usedBy: string }) | undefined;
    const declarations = await change(async (before, after) => {
      if (after !== undefined && after.symbol === before.symbol && after.decimals === before.decimals) return;
      const usedBy = await usesInWords(before);
      if (usedBy === undefined) return;
      widened = declarationWidening(before, after, usedBy);
      await unlocker.confirm(passphrase, widened.words);
    });
    if (widened !== undefined) {
      const { title, label, change: changed, usedBy } = widened;
      await journal.record(
        localRecord('settings.widened', { title, summary: label, facts: { [label]: changed, 'Used by': usedBy }, verdict: 'saved' }),
      );
    }
    return declarations;
  };

  /** What uses the declaration `token`, in words: its large-transfer threshold, organizations' past activity; or undefined. */
  const usesInWords = async (token: DeclaredToken): Promise<string | undefined> => {
    const keyText = tokenKeyText(token);
    const threshold = (await settings.get()).tokenWarnAbove?.find((entry) => tokenKeyText(entry.token) === keyText);
    const organizations = new Set((await usage.usesOf(token)).map((use) => use.organizationId));
    const uses = [
      ...(threshold === undefined
        ? []
        : [`the large-transfer warning at ${formatUnits(BigInt(threshold.baseUnits), token.decimals)} ${token.symbol}`]),
      ...(organizations.size === 0
        ? []
        : [`past activity of ${organizations.size === 1 ? 'an organization' : `${organizations.size} organizations`} on this desktop`]),
    ];
    return uses.length === 0 ? undefined : uses.join(' and ');
  };

  return {
    'tokens.list': () => tokens.views(),
    'tokens.catalog': async () => tokenCatalog(await tokens.list(), (await settings.get()).tokenWarnAbove),
    'tokens.declare': ({ token, passphrase }) => guarded(passphrase, (approve) => tokens.declare(token, approve)),
    'tokens.remove': ({ token, passphrase }) => guarded(passphrase, (approve) => tokens.remove(token, approve)),
  };
}

function declarationWidening(before: DeclaredToken, after: DeclaredToken | undefined, usedBy: string) {
  const declared = (token: DeclaredToken) => `${token.symbol} with ${token.decimals} decimals`;
  const place = tokenPlaceWords(before);
  const label = `Token ${place}`;
  return after === undefined
    ? {
        title: 'Token declaration removed',
        label,
        change: `${declared(before)} → not declared`,
        words: `removing the declaration of ${declared(before)} at ${place}, used by ${usedBy}`,
        usedBy,
      }
    : {
        title: 'Token declaration changed',
        label,
        change: `${declared(before)} → ${declared(after)}`,
        words: `declaring the token at ${place} as ${declared(after)} instead of ${declared(before)}, used by ${usedBy}`,
        usedBy,
      };
}
