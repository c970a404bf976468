/**
 * Older releases of Turnkey's clients, unchanged, against the local service: `@turnkey/http` 2.x and
 * `@turnkey/sdk-server` 1.x, 4.x and 5.x (aliased devDependencies). They send their JSON as a string (so without
 * `application/json`) and still submit superseded activity versions; the service answers them as the hosted one does.
 */
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { TurnkeyClient as TurnkeyClientV2 } from 'http-v2';
import { Turnkey as TurnkeyV1 } from 'sdk-server-v1';
import { Turnkey as TurnkeyV4 } from 'sdk-server-v4';
import { Turnkey as TurnkeyV5 } from 'sdk-server-v5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../service/helpers';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.close();
});

const POLLER = { intervalMs: 20, numRetries: 2 };

function sdkConfig() {
  return {
    apiBaseUrl: service.info.baseUrl,
    apiPublicKey: service.rootKey.publicKey,
    apiPrivateKey: service.rootKey.privateKey,
    defaultOrganizationId: service.info.organizationId,
    activityPoller: POLLER,
  };
}

const clients = {
  'sdk-server 1.x': () => new TurnkeyV1(sdkConfig()).apiClient(),
  'sdk-server 4.x': () => new TurnkeyV4(sdkConfig()).apiClient(),
  'sdk-server 5.x': () => new TurnkeyV5(sdkConfig()).apiClient(),
};

function httpV2(): TurnkeyClientV2 {
  return new TurnkeyClientV2(
    { baseUrl: service.info.baseUrl },
    new ApiKeyStamper({ apiPublicKey: service.rootKey.publicKey, apiPrivateKey: service.rootKey.privateKey }),
  );
}

describe('whoami from every older release', () => {
  it.each(Object.entries(clients))('%s', async (_release, client) => {
    const whoami = await client().getWhoami();
    expect(whoami).toMatchObject({ organizationId: service.info.organizationId, userId: service.info.rootUserId });
  });

  it('@turnkey/http 2.x', async () => {
    const whoami = await httpV2().getWhoami({ organizationId: service.info.organizationId });
    expect(whoami).toMatchObject({ organizationId: service.info.organizationId, userId: service.info.rootUserId });
  });
});
