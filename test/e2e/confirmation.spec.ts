/**
 * Main's confirmation, driven through the host as the person at the native dialog: the second operator approving a
 * 250,000 USDC transfer reads amount, token, destination and network there (and the card's "Still to vote" names no
 * policy the verdict did not match); Cancel there stamps nothing; removing the key the profile signs with is refused with the reason; a root
 * quorum change is shown before → after and happens only once the person goes ahead.
 */
import { ApiClient } from '../../src/main/client/api-client';
import { Stamper } from '../../src/main/stamper/stamper';
import { done, expect, openScreen, screenshotBothThemes, startSandbox, test } from './fixtures';
import { PAYROLL, unsignedUsdcTransfer, USDC } from './usdc-transfer';

const ERC20_JSON = JSON.stringify([
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
]);
const PAYROLL_JSON = JSON.stringify([{ type: 'function', name: 'payAll', stateMutability: 'nonpayable', inputs: [], outputs: [] }]);

test('approving a 250,000 USDC transfer: main restates amount, token, destination and network, and Cancel stamps nothing', async ({ page, host }) => {
  const { organizationId, enclaveSignerPublicKey, baseUrl } = await startSandbox(page, host);
  const sandbox = (await host.services.profiles.getActive())!;
  const root = new ApiClient({ profile: sandbox, stamper: new Stamper(host.services.keychain) });
  // Bea and Cy operate (tagged ops); Bea and the root user become a 2-of-2 root quorum.
  const keys = await Promise.all(['Bea', 'Cy'].map((name) => host.services.keychain.generateApiKey({ name, curve: 'p256' })));
  const { userIds } = await done(
    root.submit('create_users', {
      users: keys.map((key) => ({
        userName: key.name,
        apiKeys: [{ apiKeyName: key.name, publicKey: key.publicKey, curveType: 'API_KEY_CURVE_P256' as const }],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      })),
    }),
  );
  const { userTagId } = await done(root.submit('create_user_tag', { userTagName: 'ops', userIds }));
  const { addresses } = await done(
    root.submit('create_wallet', {
      walletName: 'Treasury',
      accounts: [{ curve: 'CURVE_SECP256K1', pathFormat: 'PATH_FORMAT_BIP32', path: "m/44'/60'/0'/0/0", addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }],
    }),
  );
  for (const [address, label, definition] of [
    [USDC, 'USD Coin', ERC20_JSON],
    [PAYROLL, 'Acme payroll', PAYROLL_JSON],
  ] as const) {
    await done(
      root.submit('create_smart_contract_interface', {
        smartContractAddress: address,
        smartContractInterface: definition,
        type: 'SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM',
        label,
      }),
    );
  }
  const transfer = `eth.tx.to == '${USDC}' && eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['amount'] <= 1000000000`;
  await done(
    root.submit('create_policy', {
      policyName: 'USDC transfers up to 1,000',
      effect: 'EFFECT_ALLOW',
      condition: transfer,
      consensus: `approvers.any(user, user.tags.contains('${userTagId}'))`,
      notes: '',
    }),
  );
  // Last, as it makes every later activity wait for two votes.
  const { userId: rootUserId } = await root.query('whoami', {});
  await done(root.submit('update_root_quorum', { threshold: 2, userIds: [rootUserId, userIds[0]!] }));
  // Bea proposes; the root votes in the window.
  const beaProfile = await host.services.profiles.add({
    name: 'Bea',
    kind: 'hosted',
    baseUrl,
    organizationId,
    apiKeyName: 'Bea',
    enclaveSignerPublicKey,
  });
  await host.services.profiles.setActive(beaProfile.id);
  const unsignedTransaction = unsignedUsdcTransfer(250_000_000_000n);
  const submitted = await host.handlers['signing.submit']({
    request: { operation: 'sign_transaction', signWith: addresses[0]!, unsignedTransaction, type: 'TRANSACTION_TYPE_ETHEREUM' },
  });
  expect(submitted.state).toBe('consensus-needed');
  await host.services.profiles.setActive(sandbox.id);
  await page.reload();
  await expect(page.getByText('Profile: Sandbox')).toBeVisible();

  await openScreen(page, 'Approvals');
  await page.getByRole('list', { name: 'Activities waiting for votes' }).getByRole('listitem').getByRole('button').click();
  const detail = page.getByRole('region', { name: 'Sign an Ethereum transaction', exact: true });
  await expect(detail.getByRole('article')).toContainText('No policy');
  // The verdict matched no policy, so no vote is said to count toward one: Cy, tagged ops, is not listed for it.
  await expect(detail.getByRole('list', { name: 'Still to vote' }).getByRole('listitem')).toHaveText(['Root user · root quorum member']);

  host.answerConfirmations('wait');
  await page.getByRole('button', { name: 'Approve…' }).click();
  // The page asks no question of its own: main's confirmation is the one.
  await expect(page.getByRole('dialog')).toHaveCount(0);
  const shown = await host.nextConfirmation();
  expect(shown.request.title).toBe('Approve: Sign an Ethereum transaction?');
  expect(shown.text).toContain('Transfer 250,000 USDC to Acme payroll on Ethereum');
  expect(shown.text).toContain('250,000 USDC');
  expect(shown.text).toContain(`Acme payroll · contract (${PAYROLL})`);
  expect(shown.text).toContain('Network: Ethereum (chain id 1)');
  expect(shown.text).toContain('Policy verdict: no policy matches; the root quorum decides');
  expect(shown.text).toContain('After this one it still needs: nothing more: the root quorum allows it');
  expect(shown.text).toContain(`Fingerprint: ${submitted.activity.fingerprint}`);
  await screenshotBothThemes(page, 'confirmation-transfer-asked');
  shown.answer(false);
  await expect(page.getByRole('alert')).toContainText("declined in QuorumKey's confirmation; nothing was stamped or sent");
  const [still] = await host.handlers['approvals.pending']({});
  expect(still?.approvals).toBe(1);
});

test('removing the API key this profile signs with is refused with the reason; nothing is asked or sent', async ({ page, host }) => {
  await startSandbox(page, host);
  await openScreen(page, 'Users');
  const asked = host.confirmations.length;
  await page.getByRole('button', { name: /^Remove API key .* of Root user$/ }).click();
  await expect(page.getByRole('alert')).toContainText('the key profile "Sandbox" signs with: QuorumKey could no longer act for that profile');
  await screenshotBothThemes(page, 'confirmation-last-key-refused');
  expect(host.confirmations.length).toBe(asked);
  const { users } = await host.handlers['organization.lookup']({});
  expect(users.find((user) => user.userName === 'Root user')?.apiKeys).toHaveLength(1);
});

test('a root quorum change is shown before → after on main’s surface and applied only once the person goes ahead', async ({ page, host }) => {
  await startSandbox(page, host);
  const key = await host.services.keychain.generateApiKey({ name: 'bea', curve: 'p256' });
  await host.handlers['users.create']({
    userName: 'Bea',
    apiKey: { kind: 'public-key', apiKeyName: 'bea', publicKey: key.publicKey, curve: 'p256' },
  });
  await openScreen(page, 'Users');
  host.answerConfirmations('wait');
  const quorumForm = page.getByRole('form', { name: 'Change the root quorum' });
  await quorumForm.getByLabel('Bea').check();
  await quorumForm.getByLabel('Approvals needed').fill('2');
  await quorumForm.getByRole('button', { name: 'Propose this quorum' }).click();
  const shown = await host.nextConfirmation();
  expect(shown.request.title).toBe('Submit: Change the root quorum?');
  expect(shown.text).toContain('Members: Root user → Root user, Bea');
  expect(shown.text).toContain('Approvals needed: 1 of 1 → 2 of 2');
  expect(shown.text).toContain('After this one it still needs: nothing more: the root quorum allows it');
  await expect(page.getByRole('region', { name: 'Root quorum' })).toContainText('Now: 1 of 1');
  await screenshotBothThemes(page, 'confirmation-root-quorum-asked');
  shown.answer(true);
  await expect(page.getByRole('status').filter({ hasText: 'Change the root quorum: done.' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Root quorum' })).toContainText('Now: 2 of 2 — Root user, Bea.');
});
