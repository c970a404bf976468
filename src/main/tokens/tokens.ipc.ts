import type { IpcHandlers } from '../ipc/register';
import type { Settings } from '../settings/settings';
import type { DeclaredTokens } from './declared-tokens';
import { tokenCatalog } from './token-thresholds';

export function tokensHandlers({
  tokens,
  settings,
}: {
  tokens: DeclaredTokens;
  settings: Pick<Settings, 'get'>;
}): Pick<IpcHandlers, 'tokens.list' | 'tokens.catalog' | 'tokens.declare' | 'tokens.remove'> {
  return {
    'tokens.list': () => tokens.views(),
    'tokens.catalog': async () => tokenCatalog(await tokens.list(), (await settings.get()).tokenWarnAbove),
    'tokens.declare': ({ token }) => tokens.declare(token),
    'tokens.remove': ({ token }) => tokens.remove(token),
  };
}
