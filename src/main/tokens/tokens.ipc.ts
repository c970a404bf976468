import type { IpcHandlers } from '../ipc/register';
import type { DeclaredTokens } from './declared-tokens';

export function tokensHandlers({ tokens }: { tokens: DeclaredTokens }): Pick<IpcHandlers, 'tokens.list' | 'tokens.declare' | 'tokens.remove'> {
  return {
    'tokens.list': () => tokens.list(),
    'tokens.declare': ({ token }) => tokens.declare(token),
    'tokens.remove': ({ token }) => tokens.remove(token),
  };
}
