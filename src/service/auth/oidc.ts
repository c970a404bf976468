/**
 * OIDC ID-token verification for oauth_login, signup_v2 / create_oauth_providers (`oidcToken`) and
 * `X-Stamp-Attested` with the OIDC scheme. The service runs offline, so each trusted issuer's JWKS is configured
 * locally (`--oidc-jwks ISSUER=FILE`) instead of fetched from its discovery document.
 *
 * Tokens are accepted in both forms clients send: the raw compact JWT, or that JWT base64-encoded (the swagger
 * describes `oidcToken` as a "Base64 encoded OIDC token").
 */
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWSAlgorithm, type JWTPayload } from 'jose';
import { QkError } from '../../shared/errors';

export interface TrustedIssuer {
  /** Exact `iss` value of the provider's tokens, e.g. "https://accounts.google.com". */
  issuer: string;
  jwks: JSONWebKeySet;
}

export interface OidcVerifierOptions {
  issuers: readonly TrustedIssuer[];
  now: () => Date;
}

export interface OidcVerifyOptions {
  /** Required `aud`: the client id, or the audience stored with an OAuth provider. */
  audience?: string;
  /** Required `nonce`: for logins, the SHA-256 of the session public key the client committed to. */
  nonce?: string;
}

export interface VerifiedOidcToken {
  iss: string;
  sub: string;
  /** The audience the token was accepted for: the required one, or its single (or `azp`-selected) audience. */
  aud: string;
  email?: string;
  nonce?: string;
}

export interface OidcVerifier {
  verify(oidcToken: string, options?: OidcVerifyOptions): Promise<VerifiedOidcToken>;
}

export type OidcRejection =
  | 'malformed'
  | 'unknown_issuer'
  | 'unknown_key'
  | 'algorithm_not_allowed'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'wrong_audience'
  | 'ambiguous_audience'
  | 'missing_claim'
  | 'invalid_claim'
  | 'nonce_mismatch';

/** Asymmetric algorithms only: a JWKS of a third party can never hold an HMAC secret we share with it. */
const ALLOWED_ALGORITHMS: JWSAlgorithm[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** OIDC Core §2: every ID token carries these. */
const REQUIRED_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat'];
const COMPACT_JWT_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const BASE64_PATTERN = /^[A-Za-z0-9+/_-]+={0,2}$/;

function rejected(reason: OidcRejection, message: string, details?: Record<string, unknown>): QkError {
  return new QkError('INVALID_OIDC_TOKEN', `OIDC token rejected: ${message}`, { reason, ...details });
}

export function createOidcVerifier({ issuers, now }: OidcVerifierOptions): OidcVerifier {
  const keySets = new Map<string, ReturnType<typeof createLocalJWKSet>>();
  issuers.forEach(({ issuer, jwks }, index) => {
    if (typeof issuer !== 'string' || issuer === '') {
      throw new QkError('CONFIG_INVALID', `trusted OIDC issuer #${index + 1} has an empty issuer`);
    }
    if (keySets.has(issuer)) throw new QkError('CONFIG_INVALID', `OIDC issuer "${issuer}" is configured twice`);
    keySets.set(issuer, localKeySet(issuer, jwks));
  });

  return {
    async verify(oidcToken, options = {}) {
      const jwt = compactJwtOf(oidcToken);
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(jwt);
      } catch (error) {
        throw rejected('malformed', `not a JWT: ${(error as Error).message}`);
      }
      if (typeof unverified.iss !== 'string') throw rejected('missing_claim', 'the token has no "iss" claim');
      const keySet = keySets.get(unverified.iss);
      if (keySet === undefined) {
        throw rejected('unknown_issuer', `issuer "${unverified.iss}" is not a trusted OIDC issuer`, { issuer: unverified.iss });
      }

      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(jwt, keySet, {
          issuer: unverified.iss,
          ...(options.audience === undefined ? {} : { audience: options.audience }),
          currentDate: now(),
          algorithms: ALLOWED_ALGORITHMS,
          requiredClaims: REQUIRED_CLAIMS,
        }));
      } catch (error) {
        throw fromJoseError(error, unverified.iss, options.audience);
      }

      if (typeof payload.sub !== 'string' || payload.sub === '') throw rejected('invalid_claim', '"sub" must be a non-empty string');
      if (options.nonce !== undefined && payload.nonce !== options.nonce) {
        throw rejected('nonce_mismatch', '"nonce" does not match the expected value (SHA-256 of the client public key)');
      }
      return {
        iss: unverified.iss,
        sub: payload.sub,
        aud: acceptedAudience(payload, options.audience),
        ...(typeof payload.email === 'string' ? { email: payload.email } : {}),
        ...(typeof payload.nonce === 'string' ? { nonce: payload.nonce } : {}),
      };
    },
  };
}

/**
 * Parses a `--oidc-jwks` flag value, `ISSUER=FILE`, reading FILE as a JWKS JSON document. The issuer is everything
 * before the first "=" (issuer URLs carry no "="), so FILE may contain "=".
 */
export function parseJwksFlag(flag: string): TrustedIssuer {
  const separator = flag.indexOf('=');
  if (separator <= 0 || separator === flag.length - 1) {
    throw new QkError('CONFIG_INVALID', `OIDC JWKS flag "${flag}" must be ISSUER=FILE, e.g. https://accounts.google.com=./google-jwks.json`);
  }
  const issuer = flag.slice(0, separator);
  const file = flag.slice(separator + 1);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new QkError('FILE_ERROR', `cannot read the JWKS file "${file}" for OIDC issuer "${issuer}": ${(error as Error).message}`, {
      file,
    });
  }
  let jwks: unknown;
  try {
    jwks = JSON.parse(text);
  } catch (error) {
    throw new QkError('CONFIG_INVALID', `JWKS file "${file}" for OIDC issuer "${issuer}" is not JSON: ${(error as Error).message}`, {
      file,
    });
  }
  localKeySet(issuer, jwks);
  return { issuer, jwks: jwks as JSONWebKeySet };
}

function localKeySet(issuer: string, jwks: unknown) {
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (typeof jwks !== 'object' || !Array.isArray(keys) || keys.length === 0) {
    throw new QkError('CONFIG_INVALID', `JWKS of OIDC issuer "${issuer}" must be an object {"keys": [...]} with at least one key`);
  }
  const privateKeyIndex = keys.findIndex((key) => typeof key === 'object' && key !== null && 'd' in key);
  if (privateKeyIndex !== -1) {
    throw new QkError(
      'CONFIG_INVALID',
      `JWKS of OIDC issuer "${issuer}" holds a private key at keys[${privateKeyIndex}]; configure the public JWKS only`,
    );
  }
  try {
    return createLocalJWKSet(jwks as JSONWebKeySet);
  } catch (error) {
    throw new QkError('CONFIG_INVALID', `JWKS of OIDC issuer "${issuer}" is invalid: ${(error as Error).message}`);
  }
}

/** Returns the compact JWT whether the caller sent it raw or base64/base64url-encoded. */
function compactJwtOf(token: string): string {
  if (typeof token !== 'string' || token === '') throw rejected('malformed', 'the token is empty');
  const trimmed = token.trim();
  if (COMPACT_JWT_PATTERN.test(trimmed)) return trimmed;
  if (BASE64_PATTERN.test(trimmed)) {
    const decoded = Buffer.from(trimmed.replaceAll('-', '+').replaceAll('_', '/'), 'base64').toString('utf8').trim();
    if (COMPACT_JWT_PATTERN.test(decoded)) return decoded;
  }
  throw rejected('malformed', 'expected a compact JWT (header.payload.signature), raw or base64-encoded');
}

function acceptedAudience(payload: JWTPayload, required: string | undefined): string {
  if (required !== undefined) return required;
  const { aud, azp } = payload;
  if (typeof aud === 'string') return aud;
  const onlyAudience = Array.isArray(aud) && aud.length === 1 ? aud[0] : undefined;
  if (onlyAudience !== undefined) return onlyAudience;
  if (Array.isArray(aud) && typeof azp === 'string' && aud.includes(azp)) return azp;
  throw rejected('ambiguous_audience', 'the token names several audiences and no matching "azp"; pass the expected audience', {
    aud,
  });
}

function fromJoseError(error: unknown, issuer: string, audience: string | undefined): QkError {
  if (error instanceof joseErrors.JWTExpired) {
    return rejected('expired', `expired at ${new Date(Number(error.payload.exp) * 1000).toISOString()}`, { issuer });
  }
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return rejected('missing_claim', `the token has no "${error.claim}" claim`, { claim: error.claim });
    if (error.claim === 'aud') {
      return rejected('wrong_audience', `"aud" ${JSON.stringify(error.payload.aud)} does not include "${audience}"`, { audience });
    }
    if (error.claim === 'nbf') return rejected('not_yet_valid', '"nbf" is in the future');
    return rejected('invalid_claim', `"${error.claim}" claim is invalid: ${error.message}`, { claim: error.claim });
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return rejected('bad_signature', `the signature does not verify with the JWKS of "${issuer}"`, { issuer });
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) {
    return rejected('unknown_key', `no single key in the JWKS of "${issuer}" matches the token's kid and alg`, { issuer });
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed || error instanceof joseErrors.JOSENotSupported) {
    return rejected('algorithm_not_allowed', `${error.message}; accepted: ${ALLOWED_ALGORITHMS.join(', ')}`);
  }
  if (error instanceof joseErrors.JOSEError) return rejected('malformed', error.message);
  return new QkError('INTERNAL', `OIDC verification failed unexpectedly: ${(error as Error).message}`);
}
