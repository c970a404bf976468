/**
 * `list_activities` cursors as clients written for the hosted service use them, through `@turnkey/sdk-server`
 * unchanged: walking newest first with `before` = the last id until a short page, paging back with `after`, and a
 * window between two cursors, with filters applied inside each page.
 */
import { Turnkey, type TurnkeyApiClient } from '@turnkey/sdk-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/service';

let service: TestService;
let client: TurnkeyApiClient;
/** Every activity created here, oldest first. */
const created: string[] = [];
const createdPolicies: string[] = [];

beforeAll(async () => {
  service = await startTestService();
  client = new Turnkey({
    apiBaseUrl: service.info.baseUrl,
    apiPublicKey: service.rootKey.publicKey,
    apiPrivateKey: service.rootKey.privateKey,
    defaultOrganizationId: service.info.organizationId,
  }).apiClient();
  for (let index = 0; index < 7; index += 1) {
    if (index % 3 === 2) {
      const wallet = await client.createWallet({ walletName: `page wallet ${index}`, accounts: [] });
      created.push(wallet.activity.id);
    } else {
      const policy = await client.createPolicy({ policyName: `page policy ${index}`, effect: 'EFFECT_DENY', condition: 'false', notes: '' });
      created.push(policy.activity.id);
      createdPolicies.push(policy.activity.id);
    }
  }
});
afterAll(() => service.close());

const idsOf = (page: { activities: { id: string }[] }) => page.activities.map((activity) => activity.id);

describe('list_activities cursors', () => {
  it('walks every activity newest first with before = the last id, ending on a short page', async () => {
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await client.getActivities({ paginationOptions: { limit: '3', ...(before === undefined ? {} : { before }) } });
      seen.push(...idsOf(page));
      if (page.activities.length < 3) break;
      before = page.activities.at(-1)!.id;
    }
    expect(seen).toEqual(created.slice().reverse());
  });

  it('pages back with after, nearest the cursor first in time, still newest first', async () => {
    const newest = created.slice().reverse();
    const back = await client.getActivities({ paginationOptions: { limit: '2', after: newest[4]! } });
    expect(idsOf(back)).toEqual([newest[2], newest[3]]);
  });

  it('answers the activities between two cursors', async () => {
    const between = await client.getActivities({ paginationOptions: { limit: '100', after: created[1]!, before: created[5]! } });
    expect(idsOf(between)).toEqual(created.slice(2, 5).reverse());
  });

  it('filters inside each page', async () => {
    const newestPolicies = createdPolicies.slice().reverse();
    const first = await client.getActivities({ filterByType: ['ACTIVITY_TYPE_CREATE_POLICY_V3'], paginationOptions: { limit: '2' } });
    expect(idsOf(first)).toEqual(newestPolicies.slice(0, 2));
    const next = await client.getActivities({
      filterByType: ['ACTIVITY_TYPE_CREATE_POLICY_V3'],
      paginationOptions: { limit: '2', before: first.activities[1]!.id },
    });
    expect(idsOf(next)).toEqual(newestPolicies.slice(2, 4));
  });

  it('refuses a cursor that is not an activity of the organization', async () => {
    await expect(client.getActivities({ paginationOptions: { before: 'not-an-activity' } })).rejects.toThrow(
      /pagination cursor not-an-activity is not an activity/,
    );
  });
});
