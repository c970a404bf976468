/**
 * OTP on the main API (docs/service.md#sessions-and-otp): init_otp sends a code (to the outbox) for a contact, verify_otp turns the
 * code, HPKE-encrypted to the OTP's target key with the client's key, into a verification token, and otp_login trades
 * that token and a signature by its bound key for a session of the user with the verified contact. The auth proxy's
 * otp_* calls run the same steps (proxy/otp.ts). The older pair init_otp_auth / otp_auth sends a code for a user's
 * contact and trades the code, in clear, for a credential key of that user sealed to the client's target key.
 */
import { QkError } from '../../shared/errors';
import type { Family } from '../activities/context';
import { checkLoginSignature } from '../proxy/login';
import {
  attemptOtp,
  checkVerificationTokenIn,
  createOtp,
  DEFAULT_OTP_SHAPE,
  deliverOtp,
  normalizeContact,
  openCodeBundle,
  verificationTokenFor,
  VERIFICATION_TOKEN_LIFETIME_MS,
  type OtpShape,
} from '../proxy/otp';
import type { VerificationTokenClaims } from '../../shared/crypto/tokens';
import type { ClientSignature } from '../proxy/client-signature';
import type { Repositories } from '../store';
import type { UserRecord } from '../store/users';
import {
  checkCredentialKeyRequest,
  issueCredentialKey,
  loginSession,
  MAX_SESSION_SECONDS,
  parseSeconds,
  requireSubOrganizationFeature,
  sessionPublicKeyOf,
} from './sessions';

const MIN_OTP_LENGTH = 6;
const MAX_OTP_LENGTH = 9;
/** Turnkey's limits: codes live at most 10 minutes, verification tokens at most a day (docs/service.md#limits). */
const MAX_OTP_SECONDS = 600;
const MAX_VERIFICATION_TOKEN_SECONDS = 24 * 60 * 60;
const VERIFY_OTP = 'ACTIVITY_TYPE_VERIFY_OTP_V2';
const OTP_AUTH = 'ACTIVITY_TYPE_OTP_AUTH';
const OTP_AUTH_CREDENTIAL_TYPE = 'CREDENTIAL_TYPE_OTP_AUTH_KEY_P256';

function otpShapeOf(params: {
  otpLength?: number | undefined;
  alphanumeric?: boolean | undefined;
  expirationSeconds?: string | undefined;
}): OtpShape {
  const length = params.otpLength ?? DEFAULT_OTP_SHAPE.length;
  if (length < MIN_OTP_LENGTH || length > MAX_OTP_LENGTH) {
    throw new QkError('REQUEST_INVALID', `parameters.otpLength must be between ${MIN_OTP_LENGTH} and ${MAX_OTP_LENGTH}, got ${length}`, {
      issues: [{ path: 'parameters.otpLength', message: `${MIN_OTP_LENGTH}…${MAX_OTP_LENGTH}` }],
    });
  }
  const seconds = parseSeconds(params.expirationSeconds, 'parameters.expirationSeconds', MAX_OTP_SECONDS);
  return {
    length,
    alphanumeric: params.alphanumeric ?? DEFAULT_OTP_SHAPE.alphanumeric,
    lifetimeMs: seconds === undefined ? DEFAULT_OTP_SHAPE.lifetimeMs : seconds * 1000,
  };
}

function requireOtp(store: Repositories, organizationId: string, otpId: string) {
  const record = store.otps.get(otpId);
  if (record === undefined || record.organizationId !== organizationId)
    throw new QkError('NOT_FOUND', `no OTP ${otpId} in organization ${organizationId}`, { otpId });
  return record;
}

function checkLogin(store: Repositories, organizationId: string, params: { publicKey: string; expirationSeconds?: string | undefined }): void {
  sessionPublicKeyOf(params.publicKey, 'parameters.publicKey');
  parseSeconds(params.expirationSeconds, 'parameters.expirationSeconds', MAX_SESSION_SECONDS);
  if (store.organizations.get(organizationId) === undefined) throw new QkError('ORGANIZATION_NOT_FOUND', `no organization ${organizationId}`);
}

/** The user of the organization whose email (compared lower-cased) or phone number is the OTP's contact. */
function userWithContact(store: Repositories, organizationId: string, otpType: string, contact: string): UserRecord {
  const contactOf = (user: UserRecord) => (otpType === 'OTP_TYPE_EMAIL' ? user.email?.toLowerCase() : user.phoneNumber);
  const user = store.users.listByOrganization(organizationId).find((candidate) => contactOf(candidate) === contact);
  if (user === undefined) throw new QkError('NOT_FOUND', `no user of organization ${organizationId} has the contact ${contact}`);
  return user;
}

/**
 * init_otp_auth sends a code that otp_auth trades for a credential key of the user with the contact: that user must
 * exist, and a sub-organization must not have turned the channel off (`disableOtpEmailAuth` / `disableSmsAuth`).
 */
function checkOtpAuthStart(
  store: Repositories,
  organizationId: string,
  params: { otpType: string; contact: string } & Parameters<typeof otpShapeOf>[0],
): string {
  const contact = normalizeContact(params.otpType, params.contact);
  otpShapeOf(params);
  const byEmail = params.otpType === 'OTP_TYPE_EMAIL';
  requireSubOrganizationFeature(
    store,
    organizationId,
    byEmail ? 'FEATURE_NAME_OTP_EMAIL_AUTH' : 'FEATURE_NAME_SMS_AUTH',
    byEmail ? 'OTP auth by email' : 'OTP auth by SMS',
  );
  userWithContact(store, organizationId, params.otpType, contact);
  return contact;
}

/** An OTP of init_otp_auth: its code comes in clear; one of init_otp is verified by verify_otp, sealed. */
function requireOtpAuthOtp(store: Repositories, organizationId: string, otpId: string) {
  const record = requireOtp(store, organizationId, otpId);
  if (record.targetPrivateKey !== undefined) {
    throw new QkError('OTP_INVALID', `OTP ${otpId} was started with init_otp; verify it with verify_otp`, { otpId });
  }
  return record;
}

/** The verified token of an otp_login, checked with its signature, and the user of the organization with its contact. */
function loginTarget(
  store: Repositories,
  organizationId: string,
  params: { verificationToken: string; publicKey: string; clientSignature: ClientSignature },
  now: number,
): { token: VerificationTokenClaims; user: UserRecord } {
  const token = checkVerificationTokenIn(store, params.verificationToken, organizationId, now, 'parameters.verificationToken');
  checkLoginSignature(params, token);
  return { token, user: userWithContact(store, organizationId, token.verification_type, token.contact) };
}

export function otpAuthFamily(options: { outboxFile: string }): Family {
  return {
    activities: {
      init_otp: {
        validate(_store, _organizationId, params) {
          normalizeContact(params.otpType, params.contact);
          otpShapeOf(params);
        },
        execute(ctx, params) {
          const created = createOtp(ctx.store, {
            organizationId: ctx.organizationId,
            otpType: params.otpType,
            contact: params.contact,
            withTarget: true,
            shape: otpShapeOf(params),
            otpId: ctx.newId(),
            now: ctx.now,
          });
          // Delivered before the activity commits: a code for an OTP that then fails to be stored verifies nothing.
          deliverOtp(options.outboxFile, created, ctx.now);
          return { otpId: created.otpId, otpEncryptionTargetBundle: created.otpEncryptionTargetBundle! };
        },
      },
      verify_otp: {
        validate(store, organizationId, params) {
          requireOtp(store, organizationId, params.otpId);
          parseSeconds(params.expirationSeconds, 'parameters.expirationSeconds', MAX_VERIFICATION_TOKEN_SECONDS);
        },
        async execute(ctx, params) {
          const record = requireOtp(ctx.store, ctx.organizationId, params.otpId);
          const submitted = await openCodeBundle(record, params.encryptedOtpBundle);
          // A failed verify_otp rolls back its own writes, the attempt count among them: the failed activities are the count.
          const earlierFailures = ctx.store.activities.countFailed(ctx.organizationId, VERIFY_OTP, '$.verifyOtpIntentV2.otpId', params.otpId);
          const attempt = attemptOtp(ctx.store, params.otpId, submitted.code, ctx.now, earlierFailures);
          if (!attempt.ok) throw attempt.error;
          const seconds = parseSeconds(params.expirationSeconds, 'parameters.expirationSeconds', MAX_VERIFICATION_TOKEN_SECONDS);
          const verificationToken = await verificationTokenFor(ctx.store, attempt.record, {
            publicKey: submitted.publicKey,
            tokenId: ctx.newId(),
            now: ctx.now,
            lifetimeMs: seconds === undefined ? VERIFICATION_TOKEN_LIFETIME_MS : seconds * 1000,
          });
          return { verificationToken };
        },
      },
      init_otp_auth: {
        // An app's backend sends the code with its key of the parent organization: the code reaches only whoever
        // holds the contact of a user of the sub-organization, so that user is the proof.
        async parentProposalProof(store, organizationId, params) {
          checkOtpAuthStart(store, organizationId, params);
        },
        validate: (store, organizationId, params) => void checkOtpAuthStart(store, organizationId, params),
        execute(ctx, params) {
          checkOtpAuthStart(ctx.store, ctx.organizationId, params);
          const created = createOtp(ctx.store, {
            organizationId: ctx.organizationId,
            otpType: params.otpType,
            contact: params.contact,
            withTarget: false,
            shape: otpShapeOf(params),
            otpId: ctx.newId(),
            now: ctx.now,
          });
          deliverOtp(options.outboxFile, created, ctx.now);
          return { otpId: created.otpId };
        },
      },
      otp_auth: {
        // The parent's proof is only that the OTP is one of init_otp_auth in the sub-organization; the code is checked
        // in execute, so a wrong one fails an activity recorded there and counted like the sub-organization's own.
        async parentProposalProof(store, organizationId, params) {
          requireOtpAuthOtp(store, organizationId, params.otpId);
        },
        validate(store, organizationId, params) {
          requireOtpAuthOtp(store, organizationId, params.otpId);
          checkCredentialKeyRequest(params);
        },
        async execute(ctx, params) {
          const record = requireOtpAuthOtp(ctx.store, ctx.organizationId, params.otpId);
          // As for verify_otp, the failed activities are the count of wrong codes.
          const earlierFailures = ctx.store.activities.countFailed(ctx.organizationId, OTP_AUTH, '$.otpAuthIntent.otpId', params.otpId);
          const attempt = attemptOtp(ctx.store, params.otpId, params.otpCode, ctx.now, earlierFailures);
          if (!attempt.ok) throw attempt.error;
          const user = userWithContact(ctx.store, ctx.organizationId, record.otpType, record.contact);
          ctx.store.verifications.markContactVerified({
            userId: user.id,
            organizationId: ctx.organizationId,
            otpType: record.otpType,
            contact: record.contact,
            now: ctx.now,
          });
          const issued = await issueCredentialKey(ctx, {
            userId: user.id,
            targetPublicKey: params.targetPublicKey,
            credentialType: OTP_AUTH_CREDENTIAL_TYPE,
            name: params.apiKeyName ?? `OTP Auth - ${new Date(ctx.now).toISOString()}`,
            expirationSeconds: params.expirationSeconds,
            invalidateExisting: params.invalidateExisting,
          });
          return { userId: user.id, ...issued };
        },
      },
      otp_login: {
        // A parent organization's backend logs a sub-organization user in: the token and the signature by its key
        // prove whom the session is for.
        async parentProposalProof(store, organizationId, params, now) {
          loginTarget(store, organizationId, params, now);
        },
        validate: checkLogin,
        async execute(ctx, params) {
          const { token, user } = loginTarget(ctx.store, ctx.organizationId, params, ctx.now);
          if (!ctx.store.verifications.consumeToken(token.id, 'USAGE_TYPE_LOGIN', ctx.now)) {
            throw new QkError('TOKEN_INVALID', `verification token ${token.id} was already used; verify the contact again`);
          }
          ctx.store.verifications.markContactVerified({
            userId: user.id,
            organizationId: ctx.organizationId,
            otpType: token.verification_type,
            contact: token.contact,
            now: ctx.now,
          });
          return loginSession(ctx, user.id, params);
        },
      },
    },
  };
}
