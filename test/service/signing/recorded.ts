import { integer } from '../../../src/service/store/connection';
import type { TestService } from '../../support/service';

/** Rows the service has written for activities and their votes, straight from the database (the API pages them). */
export function recordedRows(t: Pick<TestService, 'store'>): number {
  const count = (table: string) => integer(t.store.read.connection.get(`SELECT count(*) AS n FROM ${table}`)!, 'n');
  return count('activities') + count('votes');
}
