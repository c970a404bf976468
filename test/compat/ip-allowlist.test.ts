/**
 * IP allowlists through `@turnkey/http` unchanged: set, read and remove them, and their enforcement on every stamped
 * request. Linux routes all of 127.0.0.0/8 to the loopback interface, so a request sent from 127.0.0.2 comes from
 * another address than the client's usual 127.0.0.1: an allowlist of 127.0.0.2 alone refuses the usual client and
 * lets its owner, calling from 127.0.0.2, remove it.
 */
import { request as httpRequest } from 'node:http';
import type { TSignedRequest } from '@turnkey/http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordedRows } from '../service/signing/recorded';
import { startTestService, type TestService } from '../support/service';
import { clientRefusal } from '../support/client-refusal';

let t: TestService;
beforeEach(async () => {
  t = await startTestService();
});
afterEach(() => t.close());

/** Sends a request the official client stamped, from the given local address. */
function sendFrom(
  localAddress: string,
  signed: TSignedRequest,
): Promise<{ status: number; body: { message?: string; activity?: { status: string } } }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      signed.url,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', [signed.stamp.stampHeaderName]: signed.stamp.stampHeaderValue },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as { message?: string } }));
      },
    );
    sent.on('error', reject);
    sent.end(signed.body);
  });
}

const organization = () => ({ organizationId: t.info.organizationId });

describe('IP allowlists', () => {
  it('set_ip_allowlist sets the organization list get_ip_allowlist shows; a request from outside it is refused; the owner removes it from inside', async () => {
    const set = await t.client().setIpAllowlist({
      ...t.nextEnvelope('ACTIVITY_TYPE_SET_IP_ALLOWLIST'),
      parameters: { rules: [{ cidr: '127.0.0.2/32', label: 'second loopback' }, { cidr: '2001:db8::/32' }] },
    });
    expect(set.activity.status).toBe('ACTIVITY_STATUS_COMPLETED');
    const setAt = String(t.clock.now());

    const outside = await clientRefusal(t.client().getWhoami(organization()));
    expect([outside.code, outside.message]).toEqual([
      7,
      expect.stringContaining(`127.0.0.1 is outside the IP allowlist of organization ${t.info.organizationId}`),
    ]);
    const submitOutside = await clientRefusal(
      t.client().removeIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST'), parameters: {} }),
    );
    expect(submitOutside.code).toBe(7);

    const read = await sendFrom('127.0.0.2', await t.client().stampGetIpAllowlist(organization()));
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      allowlist: {
        organizationId: t.info.organizationId,
        rules: [
          { cidr: '127.0.0.2/32', label: 'second loopback', createdAt: setAt },
          { cidr: '2001:db8::/32', createdAt: setAt },
        ],
        enabled: true,
        onEvaluationError: 'DENY',
      },
    });

    const removed = await sendFrom(
      '127.0.0.2',
      await t.client().stampRemoveIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST'), parameters: {} }),
    );
    expect([removed.status, removed.body.activity?.status]).toEqual([200, 'ACTIVITY_STATUS_COMPLETED']);
    expect((await t.client().getWhoami(organization())).userId).toBe(t.info.rootUserId);
    expect((await t.client().getIpAllowlist(organization())).allowlist).toEqual({ organizationId: t.info.organizationId, rules: [], enabled: false });
  });

  it('an API key’s own list replaces the organization’s for that key; a switched-off organization list applies to no one', async () => {
    const bob = await t.addUser({ name: 'bob' });
    await t.client().setIpAllowlist({
      ...t.nextEnvelope('ACTIVITY_TYPE_SET_IP_ALLOWLIST'),
      parameters: { publicKey: bob.key.publicKey, rules: [{ cidr: '10.0.0.0/8' }] },
    });
    expect((await clientRefusal(t.client(bob.key).getWhoami(organization()))).message).toContain(
      `outside the IP allowlist of API key ${bob.key.publicKey}`,
    );
    expect((await t.client().getWhoami(organization())).userId).toBe(t.info.rootUserId);

    await t.client().setIpAllowlist({
      ...t.nextEnvelope('ACTIVITY_TYPE_SET_IP_ALLOWLIST'),
      parameters: { publicKey: bob.key.publicKey, rules: [{ cidr: '127.0.0.0/8' }] },
    });
    await t
      .client()
      .setIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_IP_ALLOWLIST'), parameters: { rules: [{ cidr: '10.0.0.0/8' }], enabled: false } });
    expect((await t.client(bob.key).getWhoami(organization())).userId).toBe(bob.userId);
    expect((await t.client().getWhoami(organization())).userId).toBe(t.info.rootUserId);
    const keyList = await t.client().getIpAllowlist({ ...organization(), publicKey: bob.key.publicKey });
    expect(keyList.allowlist).toMatchObject({ publicKey: bob.key.publicKey, rules: [{ cidr: '127.0.0.0/8' }], onEvaluationError: 'DENY' });
  });

  it('an API key’s own list goes with the key: the same public key added again is not held to it', async () => {
    const bob = await t.addUser({ name: 'bob' });
    await t.client().setIpAllowlist({
      ...t.nextEnvelope('ACTIVITY_TYPE_SET_IP_ALLOWLIST'),
      parameters: { publicKey: bob.key.publicKey, rules: [{ cidr: '10.0.0.0/8' }] },
    });
    expect((await clientRefusal(t.client(bob.key).getWhoami(organization()))).code).toBe(7);

    const { apiKeys } = await t.client().getApiKeys({ ...organization(), userId: bob.userId });
    await t.client().deleteApiKeys({
      ...t.nextEnvelope('ACTIVITY_TYPE_DELETE_API_KEYS'),
      parameters: { userId: bob.userId, apiKeyIds: apiKeys.map((key) => key.apiKeyId) },
    });
    await t.client().createApiKeys({
      ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_API_KEYS_V2'),
      parameters: { userId: bob.userId, apiKeys: [{ apiKeyName: 'again', publicKey: bob.key.publicKey, curveType: 'API_KEY_CURVE_P256' }] },
    });
    expect((await t.client(bob.key).getWhoami(organization())).userId).toBe(bob.userId);
  });

  it('a read-only session is held to the allowlist of the credential that opened it', async () => {
    const opened = await t.client().createReadOnlySession({ ...t.nextEnvelope('ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION'), parameters: {} });
    const session = opened.activity.result.createReadOnlySessionResult!.session;
    const whoami = () => t.post('/public/v1/query/whoami', organization(), { unstamped: true, headers: { 'X-Session': session } });
    expect((await whoami()).status).toBe(200);
    await t.client().setIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_IP_ALLOWLIST'), parameters: { rules: [{ cidr: '127.0.0.2/32' }] } });
    const refused = await whoami();
    expect([refused.status, refused.body.message]).toEqual([403, expect.stringContaining('127.0.0.1 is outside the IP allowlist')]);
  });

  it('a non-root user without a policy can neither set nor remove an allowlist', async () => {
    const bob = await t.addUser({ name: 'bob' });
    const setAsBob = clientRefusal(
      t.client(bob.key).setIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_IP_ALLOWLIST'), parameters: { rules: [{ cidr: '10.0.0.0/8' }] } }),
    );
    expect((await setAsBob).code).toBe(7);
    await t.client().setIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_IP_ALLOWLIST'), parameters: { rules: [{ cidr: '127.0.0.0/8' }] } });
    expect(
      (await clientRefusal(t.client(bob.key).removeIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST'), parameters: {} }))).code,
    ).toBe(7);
    expect((await t.client().getIpAllowlist(organization())).allowlist.rules.map((rule) => rule.cidr)).toEqual(['127.0.0.0/8']);
  });

  it('refuses bad rules and unknown keys with 400s and 404s that record nothing', async () => {
    const before = recordedRows(t);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ rules: [{ cidr: '127.0.0.1' }] }, 3, 'parameters.rules[0].cidr: must be an address and a prefix length'],
      [{ rules: [{ cidr: '300.0.0.0/8' }] }, 3, 'parameters.rules[0].cidr: "300.0.0.0" is not an IPv4 or IPv6 address'],
      [{ rules: [{ cidr: '10.0.0.0/33' }] }, 3, 'from 0 to 32'],
      [{ rules: [{ cidr: '10.0.0.0/8' }, { cidr: '10.0.0.0/8' }] }, 3, 'is listed twice'],
      [{ rules: [] }, 3, 'must list at least one CIDR block'],
      [{}, 3, 'parameters.rules: required for a new allowlist'],
      [{ rules: [{ cidr: '10.0.0.0/8' }], onEvaluationError: 'MAYBE' }, 3, 'parameters.onEvaluationError'],
      [{ publicKey: '02'.padEnd(66, 'a'), rules: [{ cidr: '10.0.0.0/8' }] }, 5, 'is not an API key of organization'],
      [
        { publicKey: t.rootKey.publicKey, enabled: true, rules: [{ cidr: '10.0.0.0/8' }] },
        3,
        'only the organization-level allowlist can be switched',
      ],
    ];
    for (const [parameters, code, message] of cases) {
      const refused = await clientRefusal(t.client().setIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_SET_IP_ALLOWLIST'), parameters }));
      expect([refused.code, refused.message]).toEqual([code, expect.stringContaining(message)]);
    }
    const nothingToRemove = await clientRefusal(
      t.client().removeIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST'), parameters: {} }),
    );
    expect([nothingToRemove.code, nothingToRemove.message]).toEqual([5, expect.stringContaining('has no IP allowlist to remove')]);
    const overlong = await clientRefusal(
      t.client().removeIpAllowlist({ ...t.nextEnvelope('ACTIVITY_TYPE_REMOVE_IP_ALLOWLIST'), parameters: { publicKey: 'a'.repeat(200) } }),
    );
    expect([overlong.code, overlong.message]).toEqual([3, expect.stringContaining('parameters.publicKey')]);
    expect(recordedRows(t)).toBe(before);
    expect((await t.client().getWhoami(organization())).userId).toBe(t.info.rootUserId);
  });
});
