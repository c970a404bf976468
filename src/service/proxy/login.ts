/**
 * otp_login_v2 (docs/service.md#auth-proxy, docs/service.md#otp-flow): a verification token plus a signature by its
 * bound key over `{login: {publicKey}, tokenId, type: "USAGE_TYPE_LOGIN"}` opens a session for the user whose contact
 * the token verified. Without organizationId the sub-organization is the one where that contact is verified.
 */
import { QkError } from '../../shared/errors';
import type { VerificationTokenClaims } from '../../shared/crypto/tokens';
import { issueSession, sessionPublicKeyOf } from '../families/sessions';
import type { Repositories, Store } from '../store';
import { verifyClientSignature, type ClientSignature } from './client-signature';
import { checkVerificationToken } from './otp';

export interface OtpLoginRequest {
  verificationToken: string;
  publicKey: string;
  clientSignature: ClientSignature;
  invalidateExisting?: boolean | undefined;
  organizationId?: string | undefined;
}

export interface LoginDeps {
  store: Store;
  now: () => number;
  newId: () => string;
}

function contactOf(user: { email: string | undefined; phoneNumber: string | undefined }, otpType: string): string | undefined {
  return otpType === 'OTP_TYPE_EMAIL' ? user.email : user.phoneNumber;
}

/** The user the token's contact identifies, in `organizationId` when given, else where that contact is verified. */
function loginUser(store: Repositories, token: VerificationTokenClaims, configOrganizationId: string, organizationId: string | undefined) {
  const inScope = (id: string) => id === configOrganizationId || store.organizations.get(id)?.parentId === configOrganizationId;
  if (organizationId !== undefined) {
    if (!inScope(organizationId)) {
      throw new QkError(
        'ORGANIZATION_NOT_FOUND',
        `organization ${organizationId} is neither the auth proxy configuration's organization nor one of its sub-organizations`,
      );
    }
    const user = store.users.listByOrganization(organizationId).find((candidate) => contactOf(candidate, token.verification_type) === token.contact);
    if (user === undefined) throw new QkError('NOT_FOUND', `no user of organization ${organizationId} has the contact ${token.contact}`);
    return { organizationId, userId: user.id };
  }
  const matches = store.verifications
    .usersWithVerifiedContact(token.verification_type, token.contact)
    .filter((match) => inScope(match.organizationId));
  if (matches.length === 0) {
    throw new QkError('NOT_FOUND', `no sub-organization has the verified contact ${token.contact}; sign up first, or pass organizationId`);
  }
  if (matches.length > 1) {
    throw new QkError('REQUEST_INVALID', `the contact ${token.contact} is verified in ${matches.length} organizations; pass organizationId`, {
      organizationIds: matches.map((match) => match.organizationId),
    });
  }
  return matches[0]!;
}

/** The token's key signed a login for exactly the session key the request sends. */
export function checkLoginSignature(request: { clientSignature: ClientSignature; publicKey: string }, token: VerificationTokenClaims): void {
  const usage = verifyClientSignature(request.clientSignature, token, 'USAGE_TYPE_LOGIN');
  const sessionKey = sessionPublicKeyOf(request.publicKey, 'publicKey');
  const signedKey = (usage.login as { publicKey?: unknown } | undefined)?.publicKey;
  if (typeof signedKey !== 'string' || sessionPublicKeyOf(signedKey, 'clientSignature.message login.publicKey') !== sessionKey) {
    throw new QkError(
      'SIGNATURE_INVALID',
      'clientSignature.message login.publicKey is not the publicKey of this request; sign the session key you send',
    );
  }
}

export async function otpLogin(deps: LoginDeps, configOrganizationId: string, request: OtpLoginRequest): Promise<{ session: string }> {
  const now = deps.now();
  const token = checkVerificationToken(deps.store.read, request.verificationToken, configOrganizationId, now);
  checkLoginSignature(request, token);
  return deps.store.transaction(async (tx) => {
    const { organizationId, userId } = loginUser(tx, token, configOrganizationId, request.organizationId);
    if (!tx.verifications.consumeToken(token.id, 'USAGE_TYPE_LOGIN', now)) {
      throw new QkError('TOKEN_INVALID', `verification token ${token.id} was already used; verify the contact again`);
    }
    tx.verifications.markContactVerified({ userId, organizationId, otpType: token.verification_type, contact: token.contact, now });
    const session = await issueSession(tx, {
      organizationId,
      userId,
      publicKey: request.publicKey,
      ...(request.invalidateExisting === undefined ? {} : { invalidateExisting: request.invalidateExisting }),
      now,
      newId: deps.newId,
    });
    return { session };
  });
}
