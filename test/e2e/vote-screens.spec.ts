/**
 * Who votes, where, and what the vote does, on screen and on main's confirmation: the second profile of the second
 * organization approving in the window; and a root quorum change under policies that read `eth.` terms, whose "Still to
 * vote" names only the root quorum (no policy applies to it, so no vote counts toward one). Shot in both themes.
 */
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { ETHEREUM_WALLET_ACCOUNT, openWaiting } from '../support/vote-scenario';
import { createKeyedUsers, done, expect, screenshotBothThemes, startSandbox, test } from './fixtures';
import { USDC } from './usdc-transfer';

// Setting up an organization through the Sandbox takes most of a minute on a loaded two-core machine.
test.describe.configure({ timeout: 120_000 });

test('the second profile of the second organization: main’s confirmation says who votes, where, and what the vote does', async ({ page, host }) => {
  const { baseUrl, enclaveSignerPublicKey } = await startSandbox(page, host);
  const { keychain, profiles } = host.services;
  const stamper = new Stamper(keychain);
  const root = new ApiClient({ profile: (await profiles.getActive())!, stamper });
  const operator = async (name: string) => ({
    userName: name,
    apiKeys: [
      { apiKeyName: name, publicKey: (await keychain.generateApiKey({ name, curve: 'p256' })).publicKey, curveType: 'API_KEY_CURVE_P256' as const },
    ],
    authenticators: [],
    oauthProviders: [],
  });
  const branch = await done(
    root.submit('create_sub_organization', {
      subOrganizationName: 'Branch office',
      rootUsers: [await operator('Branch op 1'), await operator('Branch op 2')],
      rootQuorumThreshold: 2,
    }),
  );
  const inBranch = { kind: 'hosted' as const, baseUrl, organizationId: branch.subOrganizationId, enclaveSignerPublicKey };
  await profiles.add({ ...inBranch, name: 'Branch op 1', apiKeyName: 'Branch op 1' });
  const secondInBranch = await profiles.add({ ...inBranch, name: 'Branch op 2', apiKeyName: 'Branch op 2' });
  // Branch op 1 proposes; the 2-of-2 branch waits for Branch op 2, the second profile of the second organization.
  const branch1 = new ApiClient({ profile: { baseUrl, organizationId: branch.subOrganizationId, apiKeyName: 'Branch op 1' }, stamper });
  const proposed = await branch1.submit('create_wallet', { walletName: 'Branch reserve', accounts: [ETHEREUM_WALLET_ACCOUNT] });
  expect(proposed.state).toBe('consensus-needed');

  const detail = await openWaiting(page, host, secondInBranch, 'Create a wallet');
  const yourVote = detail.getByRole('region', { name: 'Your vote' });
  await expect(yourVote).toContainText('Branch op 2 (profile Branch op 2) in Branch office');
  host.answerConfirmations('wait');
  await detail.getByRole('button', { name: 'Approve…' }).click();
  const shown = await host.nextConfirmation();
  expect(shown.request.title).toBe('Approve: Create a wallet?');
  expect(shown.text).toContain('Voting as: Branch op 2 (profile Branch op 2) in Branch office');
  expect(shown.text).toContain('This vote: your approval completes it: the service then carries it out (Create a wallet)');
  // Main's dialog is native, outside the page: the shot is the window behind it, its "Your vote" saying the same.
  await screenshotBothThemes(page, 'confirmation-second-profile-vote', yourVote);
  shown.answer(true);
  await expect(page.getByRole('status', { name: 'Your vote' })).toContainText('Create a wallet is done');
});

test('a root quorum change under policies that read eth. terms: "Still to vote" names the root quorum only', async ({ page, host }) => {
  const { baseUrl, organizationId, enclaveSignerPublicKey } = await startSandbox(page, host);
  const { profiles } = host.services;
  const sandbox = (await profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain) });
  const [bea, cy] = await createKeyedUsers(host, root, ['Bea', 'Cy']);
  const { userTagId } = await done(root.submit('create_user_tag', { userTagName: 'operators', userIds: [bea!, cy!] }));
  const operators = `user.tags.contains('${userTagId}')`;
  const usdcTransfer = `eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer'`;
  for (const [policyName, amount, consensus] of [
    ['USDC up to 1,000: one operator', '<= 1000000000', `approvers.any(user, ${operators})`],
    ['USDC above 1,000: both operators', '> 1000000000', `approvers.filter(user, ${operators}).count() >= 2`],
  ] as const) {
    await done(
      root.submit('create_policy', {
        policyName,
        effect: 'EFFECT_ALLOW',
        condition: `${usdcTransfer} && eth.tx.contract_call_args['amount'] ${amount}`,
        consensus,
        notes: '',
      }),
    );
  }
  const { userId: rootUserId } = await root.query('whoami', {});
  await done(root.submit('update_root_quorum', { threshold: 2, userIds: [rootUserId, bea!] }));
  const proposed = await root.submit('update_root_quorum', { threshold: 3, userIds: [rootUserId, bea!, cy!] });
  expect(proposed.state).toBe('consensus-needed');
  const beaProfile = await profiles.add({ name: 'Bea', kind: 'hosted', baseUrl, organizationId, apiKeyName: 'Bea', enclaveSignerPublicKey });

  const detail = await openWaiting(page, host, beaProfile, 'Change the root quorum');
  const stillToVote = detail.getByRole('list', { name: 'Still to vote' });
  // No policy applies to a quorum change (its conditions cannot be read for it): Cy, an operator outside the root
  // quorum, is not listed, and no vote is said to count toward a policy.
  await expect(stillToVote.getByRole('listitem')).toHaveText(['Bea · root quorum member']);
  await expect(detail).not.toContainText('counts toward');
  await expect(detail).not.toContainText('could not evaluate');
  await screenshotBothThemes(page, 'approval-quorum-still-to-vote', stillToVote);
});
