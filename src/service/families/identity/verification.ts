/**
 * A verification token at sub-organization creation (docs/service.md#organizations, docs/service.md#otp-flow):
 * create_sub_organization and signup_v2 may carry an OTP verification token of the parent organization; the root user
 * with the verified contact gets it marked verified, and the token's key must sign the root user's parameters
 * (`clientSignature`).
 */
import { isDeepStrictEqual } from 'node:util';
import type { VerificationTokenClaims } from '../../../shared/crypto/tokens';
import { QkError } from '../../../shared/errors';
import type { Repositories } from '../../store';
import { verifyClientSignature, type ClientSignature } from '../../proxy/client-signature';
import { checkVerificationToken, normalizeContact } from '../../proxy/otp';
import type { NewUserParams } from './users';

export interface ContactVerification {
  token: VerificationTokenClaims;
  /** Index in the request's root users of the user whose contact the token verified. */
  rootUserIndex: number;
}

function invalid(field: string, problem: string): QkError {
  return new QkError('REQUEST_INVALID', `${field} ${problem}`, { issues: [{ path: field, message: problem }] });
}

/** Emails compare case-insensitively (as contacts are stored); everything else exactly. Empty arrays count as absent. */
function sameMember(member: string, signed: unknown, given: unknown): boolean {
  const absent = (value: unknown) => value === undefined || (Array.isArray(value) && value.length === 0);
  if (absent(signed) || absent(given)) return absent(signed) && absent(given);
  if (member === 'email' && typeof signed === 'string' && typeof given === 'string') return signed.toLowerCase() === given.toLowerCase();
  return isDeepStrictEqual(signed, given);
}

/** The `signupV2` usage must restate each parameter of the verified root user that it names. */
function checkSignupUsage(usage: Record<string, unknown>, user: NewUserParams): void {
  const signed = (usage.signupV2 ?? {}) as Record<string, unknown>;
  const given: Record<string, unknown> = {
    email: user.userEmail,
    phoneNumber: user.userPhoneNumber,
    apiKeys: user.apiKeys,
    authenticators: user.authenticators,
    oauthProviders: user.oauthProviders,
  };
  for (const [member, value] of Object.entries(given)) {
    if (!sameMember(member, signed[member], value)) {
      throw new QkError(
        'SIGNATURE_INVALID',
        `clientSignature.message signupV2.${member} does not match the root user's ${member}; sign the parameters you send`,
      );
    }
  }
}

interface VerificationRequest {
  verificationToken?: string | undefined;
  clientSignature?: ClientSignature | undefined;
  rootUsers: readonly NewUserParams[];
}

/** What can be checked without the token's time: the token and the signature come together (the token key is always bound). */
export function checkVerificationPresence(request: VerificationRequest, fieldPrefix: string): void {
  if (request.verificationToken === undefined && request.clientSignature !== undefined) {
    throw invalid(`${fieldPrefix}clientSignature`, 'is only used with a verificationToken; send both or neither');
  }
  if (request.verificationToken !== undefined && request.clientSignature === undefined) {
    throw invalid(
      `${fieldPrefix}clientSignature`,
      'is required with a verification token: sign the root user parameters with the key bound in the token',
    );
  }
}

/**
 * Checks a verification token given at sub-organization creation in `parentId`: issued there and unexpired, for the
 * contact of exactly one root user, with a clientSignature by the token's key over that user's parameters.
 * `fieldPrefix` is "parameters." for the activity, "" for the proxy.
 */
export function checkContactVerification(
  store: Repositories,
  parentId: string,
  request: VerificationRequest,
  now: number,
  fieldPrefix: string,
): ContactVerification | undefined {
  checkVerificationPresence(request, fieldPrefix);
  if (request.verificationToken === undefined || request.clientSignature === undefined) return undefined;
  const token = checkVerificationToken(store, request.verificationToken, parentId, now);
  const field = token.verification_type === 'OTP_TYPE_EMAIL' ? 'userEmail' : 'userPhoneNumber';
  const matching = request.rootUsers.flatMap((user, index) => {
    const contact = user[field];
    return contact !== undefined && normalizeContact(token.verification_type, contact) === token.contact ? [index] : [];
  });
  if (matching.length !== 1) {
    const problem = matching.length === 0 ? 'no root user has' : `${matching.length} root users have`;
    throw invalid(
      `${fieldPrefix}verificationToken`,
      `verified ${token.contact}, but ${problem} that ${field}; exactly one root user must carry the verified contact`,
    );
  }
  const rootUserIndex = matching[0]!;
  checkSignupUsage(verifyClientSignature(request.clientSignature, token, 'USAGE_TYPE_SIGNUP'), request.rootUsers[rootUserIndex]!);
  return { token, rootUserIndex };
}

/** Consumes the token (once only) and records the root user's contact as verified. */
export function applyContactVerification(
  store: Repositories,
  verification: ContactVerification,
  target: { organizationId: string; userId: string },
  now: number,
): void {
  const { token } = verification;
  if (!store.verifications.consumeToken(token.id, 'USAGE_TYPE_SIGNUP', now)) {
    throw new QkError('TOKEN_INVALID', `verification token ${token.id} was already used; verify the contact again`);
  }
  store.verifications.markContactVerified({ ...target, otpType: token.verification_type, contact: token.contact, now });
}
