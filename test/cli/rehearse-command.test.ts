import { describe, expect, it } from 'vitest';
import { rehearseCommand, reportText } from '../../src/main/cli/rehearse-command';
import type { ApiClient } from '../../src/main/client/api-client';

const noClient = (): Promise<ApiClient> => Promise.reject(new Error('the service is not read before the arguments are checked'));
const args = { draft: 'draft.json', last: undefined, since: undefined, json: undefined };

describe('policies rehearse', () => {
  it('refuses a missing draft and a window given twice or out of range, before reading anything', async () => {
    await expect(rehearseCommand(noClient, { ...args, draft: undefined })).rejects.toThrow('--draft FILE is required');
    await expect(rehearseCommand(noClient, { ...args, last: '10', since: '2026-11-01' })).rejects.toThrow('give at most one of --last and --since');
    await expect(rehearseCommand(noClient, { ...args, last: '0' })).rejects.toThrow('--last must be a whole number from 1 to 999999, got 0');
    await expect(rehearseCommand(noClient, { ...args, since: 'last week' })).rejects.toThrow('--since must be a date such as 2026-11-01');
  });

  it('prints what it cannot reproduce first, then each change in words with its reading and the policy responsible, then totals; no ids', () => {
    const text = reportText({
      replayed: 3,
      unreproduced: [
        {
          activityId: 'a1',
          type: 'ACTIVITY_TYPE_UPDATE_WALLET',
          reading: 'Rename wallet Treasury',
          recorded: 'allowed',
          replayed: 'denied',
          reason: 'recorded completed with 1 approval, the replay denies it',
        },
      ],
      changes: [
        {
          activityId: 'a2',
          type: 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2',
          reading: 'Transfer 500 USDC to 0x7099…79C8 on Ethereum',
          createdAtMs: Date.UTC(2026, 10, 1, 9),
          before: 'allowed',
          after: 'consensus-needed',
          approvalsBefore: 1,
          approvalsAfter: 1,
          words: "was allowed on the proposer's vote alone, would now wait for approvals beyond the proposer's",
          policies: [{ policyId: 'p1', policyName: 'one ops up to 1000 USDC', before: 'OUTCOME_ALLOW', after: 'OUTCOME_NOT_APPLICABLE' }],
        },
      ],
      totals: { allowedToDenied: 0, deniedToAllowed: 0, toConsensus: 1, fromConsensus: 0, fewerApprovals: 0, moreApprovals: 0, unchanged: 1 },
    });
    expect(text).toBe(
      [
        'Replayed 3 recorded activities, vote by vote.',
        '',
        "Not reproduced with the rules of the day (1): the draft's effect on these is uncertain.",
        '  Rename wallet Treasury: recorded completed with 1 approval, the replay denies it',
        '',
        'Outcomes the draft changes (1):',
        "  2026-11-01T09:00:00.000Z  Transfer 500 USDC to 0x7099…79C8 on Ethereum: was allowed on the proposer's vote alone, would now wait for approvals beyond the proposer's; by one ops up to 1000 USDC (OUTCOME_ALLOW → OUTCOME_NOT_APPLICABLE)",
        '',
        'Totals: 0 allowed → denied, 0 denied → allowed, 1 now need consensus, 0 no longer need it, 0 need fewer approvals, 0 need more, 1 unchanged.',
        '',
      ].join('\n'),
    );
  });
});
