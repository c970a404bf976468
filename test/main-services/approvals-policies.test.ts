/** Approvals and Policies against a real local service, each operator with its own data dir and keychain. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/main/client/api-client';
import { APPROVAL_WINDOW_MS } from '../../src/shared/approvals/voting';
import { Approvals } from '../../src/main/approvals/approvals';
import { Policies } from '../../src/main/policies/policies';
import { scanForSecrets } from '../support/scan-for-secrets';
import { startTestBed, type TestBed } from './helpers';
import { rejection } from '../support/assertions';

let bed: TestBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

function approvalsOf(bed: TestBed, index: number): Approvals {
  const operator = bed.operators[index]!;
  return new Approvals({ client: operator.client, stamper: operator.stamper, credential: { apiKeyName: 'operator' }, now: bed.clock.now });
}

describe('Approvals with a 2-of-3 root quorum', () => {
  it('lists the proposal with 1 vote, counts down the window, and completes when a second keychain approves', async () => {
    bed = await startTestBed(3);
    const ids = bed.operators.map((operator) => operator.userId);
    await bed.setRootQuorum(2, ids);
    const proposer = new Policies(bed.operators[0]!.client);
    const proposal = await proposer.create({ name: 'needs two', effect: 'EFFECT_ALLOW', condition: 'true', consensus: 'true' });
    expect(proposal.state).toBe('consensus-needed');

    bed.clock.advance(60 * 60 * 1000);
    const [pending] = await approvalsOf(bed, 1).pending();
    expect(pending?.fingerprint).toBe(proposal.activity.fingerprint);
    expect(pending?.approvals).toBe(1);
    expect(pending?.voters.map((voter) => [voter.userId, voter.selection])).toEqual([[ids[0], 'approved']]);
    expect(pending?.timeLeftMs).toBe(APPROVAL_WINDOW_MS - 60 * 60 * 1000);
    expect(pending?.canApprove).toBe(true);

    const after = await approvalsOf(bed, 1).approve(proposal.activity.fingerprint);
    expect(after.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect(await approvalsOf(bed, 2).pending()).toEqual([]);
    expect((await proposer.list()).map((policy) => policy.policyName)).toEqual(['needs two']);
  });

  it('shows approvals expired with their window, and a voter whose approval expired approves again', async () => {
    bed = await startTestBed(3);
    const ids = bed.operators.map((operator) => operator.userId);
    await bed.setRootQuorum(3, ids);
    const proposal = await new Policies(bed.operators[0]!.client).create({ name: 'needs all three', effect: 'EFFECT_ALLOW' });
    bed.clock.advance(20 * 60 * 60 * 1000);
    await approvalsOf(bed, 1).approve(proposal.activity.fingerprint);
    // Twenty hours in, the second approval does not extend the window the first one opened.
    const [open] = await approvalsOf(bed, 2).pending();
    expect([open?.approvals, open?.timeLeftMs]).toEqual([2, 4 * 60 * 60 * 1000]);

    bed.clock.advance(5 * 60 * 60 * 1000);
    const [lapsed] = await approvalsOf(bed, 2).pending();
    expect(lapsed?.approvals).toBe(0);
    expect(lapsed?.timeLeftMs).toBe(0);
    expect(lapsed?.voters.map((voter) => [voter.userId, voter.expired])).toEqual([
      [ids[0], true],
      [ids[1], true],
    ]);

    await approvalsOf(bed, 0).approve(proposal.activity.fingerprint);
    const [renewed] = await approvalsOf(bed, 2).pending();
    expect(renewed?.approvals).toBe(1);
    expect(renewed?.timeLeftMs).toBe(APPROVAL_WINDOW_MS);
    expect(renewed?.voters.map((voter) => [voter.userId, voter.expired])).toEqual([
      [ids[0], false],
      [ids[1], true],
    ]);
  });

  it('rejects by fingerprint from a third keychain', async () => {
    bed = await startTestBed(3);
    await bed.setRootQuorum(
      2,
      bed.operators.map((operator) => operator.userId),
    );
    const proposal = await new Policies(bed.operators[0]!.client).create({ name: 'refused', effect: 'EFFECT_DENY', condition: 'true' });
    const after = await approvalsOf(bed, 2).reject(proposal.activity.fingerprint);
    expect(after.status).toBe('ACTIVITY_STATUS_REJECTED');
    const late = await rejection(approvalsOf(bed, 1).approve(proposal.activity.fingerprint));
    expect(late.code).toBe('ACTIVITY_NOT_PENDING');
  });

  it('stamps an approval into a file without network and posts it later from another machine', async () => {
    bed = await startTestBed(3);
    await bed.setRootQuorum(
      2,
      bed.operators.map((operator) => operator.userId),
    );
    const proposal = await new Policies(bed.operators[0]!.client).create({ name: 'offline', effect: 'EFFECT_ALLOW' });

    const signer = bed.operators[1]!;
    const offlineClient = new ApiClient({
      profile: signer.profile,
      stamper: signer.stamper,
      now: bed.clock.now,
      fetch: () => Promise.reject(new Error('this machine is offline')),
    });
    const offline = new Approvals({ client: offlineClient, stamper: signer.stamper, credential: { apiKeyName: 'operator' }, now: bed.clock.now });
    const file = join(signer.dataDir, 'approve.json');
    const body = offlineClient.envelope('approve_activity', { fingerprint: proposal.activity.fingerprint });
    await offline.stampToFile('/public/v1/submit/approve_activity', body, file);
    const written = JSON.parse(await readFile(file, 'utf8'));
    expect(written).toMatchObject({ version: 1, path: '/public/v1/submit/approve_activity', body });
    await expect(offline.stampToFile('/public/v1/submit/approve_activity', body, file)).rejects.toMatchObject({ code: 'ALREADY_EXISTS' });

    // Posted by an operator who does not hold the signer's key: the stamp in the file is what authenticates.
    const posted = await approvalsOf(bed, 0).postStampedFile(file);
    expect(posted).toMatchObject({ id: proposal.activity.id, status: 'ACTIVITY_STATUS_COMPLETED' });
    expect(await scanForSecrets(signer.dataDir, signer.store.secrets)).toEqual([]);
  });

  it('refuses a malformed fingerprint before posting', async () => {
    bed = await startTestBed(1);
    const error = await rejection(approvalsOf(bed, 0).approve('abc'));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.details).toMatchObject({ field: 'fingerprint' });
  });
});

describe('Approvals with a policy consensus (not the root quorum)', () => {
  it('counts the approvals, and completes when the policy is satisfied', async () => {
    bed = await startTestBed(3);
    const [root, proposer, second] = bed.operators;
    await bed.setRootQuorum(1, [root!.userId]);
    const policy = await new Policies(root!.client).create({
      name: 'two approvers for wallets',
      effect: 'EFFECT_ALLOW',
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'",
      consensus: 'approvers.count() >= 2',
    });
    expect(policy.state).toBe('completed');

    const proposal = await proposer!.client.submit('create_wallet', { walletName: 'by policy', accounts: [] });
    expect(proposal.state).toBe('consensus-needed');
    const [pending] = await approvalsOf(bed, 2).pending();
    expect(pending).toMatchObject({ fingerprint: proposal.activity.fingerprint, approvals: 1, canApprove: true });
    expect(pending?.voters.map((voter) => [voter.userId, voter.selection])).toEqual([[proposer!.userId, 'approved']]);

    const after = await approvalsOf(bed, 2).approve(proposal.activity.fingerprint);
    expect(after.status).toBe('ACTIVITY_STATUS_COMPLETED');
    expect((await second!.client.query('list_wallets', {})).wallets.map((wallet) => wallet.walletName)).toEqual(['by policy']);
  });
});

describe('Policies', () => {
  it('creates, gets, updates and deletes', async () => {
    bed = await startTestBed(1);
    const policies = new Policies(bed.operators[0]!.client);
    const created = await policies.create({
      name: 'only root',
      effect: 'EFFECT_ALLOW',
      consensus: "approvers.any(user, user.id == 'x')",
      notes: 'n',
    });
    if (created.state !== 'completed') throw new Error(`expected completed, got ${created.state}`);
    const { policyId } = created.result;
    expect((await policies.get(policyId)).consensus).toBe("approvers.any(user, user.id == 'x')");

    await policies.update(policyId, { name: 'renamed', condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'" });
    const updated = await policies.get(policyId);
    expect(updated).toMatchObject({ policyName: 'renamed', condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'", notes: 'n' });

    await policies.delete(policyId);
    expect(await policies.list()).toEqual([]);
  });

  it('creates a policy with a time window, changes it, and clears it and the condition with blank updates', async () => {
    bed = await startTestBed(1);
    const policies = new Policies(bed.operators[0]!.client);
    const officeHours = "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')";
    const created = await policies.create({ name: 'office hours', effect: 'EFFECT_ALLOW', condition: 'true', time: officeHours });
    if (created.state !== 'completed') throw new Error(`expected completed, got ${created.state}`);
    const { policyId } = created.result;
    expect((await policies.get(policyId)).time).toBe(officeHours);

    const untilYearEnd = "time.now < Timestamp('2027-01-01T00:00:00Z')";
    await policies.update(policyId, { time: untilYearEnd });
    expect(await policies.get(policyId)).toMatchObject({ time: untilYearEnd, condition: 'true' });

    await policies.update(policyId, { time: '  ', condition: '' });
    const cleared = await policies.get(policyId);
    expect(cleared.time).toBeUndefined();
    expect(cleared.condition).toBe('');
  });

  it('refuses a time window that does not check, naming the field, before anything is submitted', async () => {
    bed = await startTestBed(1);
    const client = bed.operators[0]!.client;
    const policies = new Policies(client);
    const error = await rejection(policies.create({ name: 'weekdays', effect: 'EFFECT_ALLOW', time: "CronSpan('0 9 * * MON-FRI', '8h', 'UTC')" }));
    expect(error.code).toBe('POLICY_PARSE_ERROR');
    expect(error.message).toMatch(/^time: CronSpan\(\) schedule: day-of-week field: names are not supported/);
    expect(error.details).toMatchObject({ field: 'time', column: 19 });
    expect((await client.query('list_activities', {})).activities).toEqual([]);
  });

  it('refuses an expression that does not check, naming the field, before anything is submitted', async () => {
    bed = await startTestBed(1);
    const client = bed.operators[0]!.client;
    const policies = new Policies(client);
    const error = await rejection(policies.create({ name: 'typo', effect: 'EFFECT_ALLOW', condition: 'activity.typ ==' }));
    expect(error.code).toBe('POLICY_PARSE_ERROR');
    expect(error.details).toMatchObject({ field: 'condition' });
    expect((await client.query('list_activities', {})).activities).toEqual([]);
  });
});
