/**
 * The auth-proxy calls (`POST /v1/<name>` with `X-Auth-Proxy-Config-Id`, unstamped), shapes from
 * turnkey-auth-proxy.swagger.json. The proxy answers flattened results, not activity records.
 */
import { z } from 'zod';
import { proxy, type ProxyOperation } from './operation';
import { bounded, req, res } from './primitives';
import { apiKeyParamsV2, authenticatorParamsV2, clientSignature, oauthProviderParamsV2, walletParams } from './params';
import { appProof, walletResult } from './resources';

interface ProxySpec {
  readonly request: z.ZodType;
  readonly response: z.ZodType;
}

type ProxyTable<T extends Record<string, ProxySpec>> = {
  readonly [K in keyof T & string]: ProxyOperation<T[K]['request'], T[K]['response'], K>;
};

function defineProxyCalls<const T extends Record<string, ProxySpec>>(table: T): ProxyTable<T> {
  const entries = Object.entries(table).map(([name, spec]) => [name, proxy(name, spec.request, spec.response)]);
  return Object.fromEntries(entries) as ProxyTable<T>;
}

/** `v1InitOtpRequest` / `v1InitOtpV2Request`. `otpType` is a plain string in the swagger
 * (`OTP_TYPE_EMAIL` or `OTP_TYPE_SMS` in practice); the service decides which it supports. */
const initOtpRequest = req({
  otpType: bounded.name,
  contact: bounded.email,
  emailCustomization: req({ templateId: bounded.name.optional() }).optional(),
});

export const proxyOperations = defineProxyCalls({
  signup_v2: {
    request: req({
      userEmail: bounded.email.optional(),
      userPhoneNumber: bounded.phoneNumber.optional(),
      userTag: bounded.name.optional(),
      userName: bounded.name.optional(),
      organizationName: bounded.name.optional(),
      verificationToken: bounded.token.optional(),
      apiKeys: z.array(apiKeyParamsV2),
      authenticators: z.array(authenticatorParamsV2),
      oauthProviders: z.array(oauthProviderParamsV2),
      wallet: walletParams.optional(),
      clientSignature: clientSignature.optional(),
    }),
    response: res({
      organizationId: z.string(),
      wallet: walletResult.optional(),
      userId: z.string(),
      appProofs: z.array(appProof).optional(),
    }),
  },
  otp_init: { request: initOtpRequest, response: res({ otpId: z.string() }) },
  otp_init_v2: {
    request: initOtpRequest,
    response: res({ otpId: z.string(), otpEncryptionTargetBundle: z.string() }),
  },
  otp_verify: {
    request: req({ otpId: bounded.id, otpCode: bounded.name, publicKey: bounded.publicKey.optional() }),
    response: res({ verificationToken: z.string() }),
  },
  otp_verify_v2: {
    request: req({ otpId: bounded.id, encryptedOtpBundle: bounded.bundle }),
    response: res({ verificationToken: z.string() }),
  },
  otp_login_v2: {
    request: req({
      verificationToken: bounded.token,
      publicKey: bounded.publicKey,
      clientSignature,
      invalidateExisting: z.boolean().optional(),
      organizationId: bounded.id.optional(),
    }),
    response: res({ session: z.string() }),
  },
});
