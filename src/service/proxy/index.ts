/**
 * The auth proxy (docs/service.md#auth-proxy): unstamped `POST /v1/<name>` calls identified by
 * `X-Auth-Proxy-Config-Id`, each acting for the configuration's organization and answering flattened results (no
 * activity envelope).
 */
import type { FastifyInstance } from 'fastify';
import { parseRequest, proxyOperations, type ProxyOperation } from '../../shared/api';
import { QkError } from '../../shared/errors';
import type { OidcVerifier } from '../auth/oidc';
import type { Enclave } from '../enclave';
import { parseJsonBody, requestBytes } from '../server/app';
import type { Store } from '../store';
import { otpLogin } from './login';
import { initOtp, verifyOtpBundle, verifyOtpCode } from './otp';
import { signup } from './signup';

export const AUTH_PROXY_CONFIG_HEADER = 'x-auth-proxy-config-id';

export interface AuthProxyDeps {
  store: Store;
  oidc: OidcVerifier;
  /** Creates the wallet a signup may ask for. */
  enclave: Enclave;
  /** File the OTP codes are appended to. */
  outboxFile: string;
  now: () => number;
  newId: () => string;
}

type ProxyName = keyof typeof proxyOperations;
type Handler = (organizationId: string, request: never) => Promise<unknown>;

/** The organization of the configuration the request names; UNAUTHENTICATED when absent or unknown. */
function configOrganization(store: Store, header: string | string[] | undefined): string {
  if (typeof header !== 'string' || header.trim() === '') {
    throw new QkError('UNAUTHENTICATED', 'the auth proxy needs the X-Auth-Proxy-Config-Id header naming an auth proxy configuration');
  }
  const config = store.read.authProxyConfigs.get(header.trim());
  if (config === undefined)
    throw new QkError('UNAUTHENTICATED', `X-Auth-Proxy-Config-Id ${header} is not an auth proxy configuration of this service`);
  return config.organizationId;
}

export function registerAuthProxy(app: FastifyInstance, deps: AuthProxyDeps): void {
  const handlers: Record<ProxyName, Handler> = {
    signup_v2: (organizationId, request: Parameters<typeof signup>[2]) => signup(deps, organizationId, request),
    otp_init: (organizationId, request: { otpType: string; contact: string }) => initOtp(deps, organizationId, request, false),
    otp_init_v2: (organizationId, request: { otpType: string; contact: string }) => initOtp(deps, organizationId, request, true),
    otp_verify: async (organizationId, request: Parameters<typeof verifyOtpCode>[2]) => ({
      verificationToken: await verifyOtpCode(deps, organizationId, request),
    }),
    otp_verify_v2: async (organizationId, request: Parameters<typeof verifyOtpBundle>[2]) => ({
      verificationToken: await verifyOtpBundle(deps, organizationId, request),
    }),
    otp_login_v2: (organizationId, request: Parameters<typeof otpLogin>[2]) => otpLogin(deps, organizationId, request),
  };
  for (const op of Object.values(proxyOperations) as ProxyOperation[]) {
    const handler = handlers[op.name as ProxyName];
    app.post(op.path, async (request) => {
      const organizationId = configOrganization(deps.store, request.headers[AUTH_PROXY_CONFIG_HEADER]);
      const body = parseRequest(op.request, parseJsonBody(requestBytes(request)), `${op.name} request`);
      return handler(organizationId, body as never);
    });
  }
}
