import type { UseQueryResult } from '@tanstack/react-query';
import type { QkError } from '../../../shared/errors';
import { ErrorNotice } from './ErrorNotice';
import { Progress } from './Progress';

/**
 * What a read is doing, where its answer would be: why it failed, or that it is loading the first time. A read that
 * refreshes keeps its last answer on screen, so nothing flashes when main reports a change.
 */
export function QueryStatus({ query, loading }: { query: Pick<UseQueryResult<unknown, QkError>, 'error' | 'isPending'>; loading: string }) {
  if (query.error !== null) return <ErrorNotice error={query.error} />;
  if (query.isPending) return <Progress label={loading} />;
  return null;
}
