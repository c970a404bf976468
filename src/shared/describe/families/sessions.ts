/** Sessions and sign-in keys: logins, session profiles, emailed keys, OAuth. */
import type { Describer, Describers } from '../draft';
import { code, EVERYTHING, expression, number, plain, text } from '../pieces';

const oauthLogin: Describer = (fields, draft) => {
  draft.title = 'Sign in with OAuth';
  draft.fact('Session key', code(text(fields, 'publicKey') ?? ''));
  const seconds = number(fields, 'expirationSeconds');
  if (seconds !== undefined) draft.fact('Session lasts', plain(`${seconds} seconds`));
  if (fields['invalidateExisting'] === true) draft.fact('Existing sessions', plain('ended'));
};

const createSessionProfile: Describer = (fields, draft) => {
  const name = text(fields, 'sessionProfileName') ?? 'unnamed';
  draft.title = 'Create a session profile';
  draft.change('Session profile', [], [plain(name)]);
  draft.change('Scope', [], [expression(text(fields, 'scope') ?? '', 'everything (no limit)')]);
  const seconds = number(fields, 'expirationSeconds');
  if (seconds !== undefined) draft.change('Sessions last', [], [plain(`${seconds} seconds`)]);
  if (EVERYTHING.has((text(fields, 'scope') ?? '').trim()))
    draft.warn(`Session profile ${name} limits nothing: its sessions may do all their user may.`);
  draft.summary = name;
};

export const login =
  (title: string, keyField: string | undefined): Describer =>
  (fields, draft) => {
    draft.title = title;
    if (keyField !== undefined) draft.fact('Session key', code(text(fields, keyField) ?? ''));
    const seconds = number(fields, 'expirationSeconds');
    if (seconds !== undefined) draft.fact('Session lasts', plain(`${seconds} seconds`));
    if (fields['invalidateExisting'] === true) draft.fact('Existing sessions', plain('ended'));
  };

const emailed =
  (title: string): Describer =>
  (fields, draft) => {
    draft.title = title;
    draft.fact('Email', plain(text(fields, 'email') ?? ''));
    draft.fact('Sealed to', code(text(fields, 'targetPublicKey') ?? ''));
  };

/**
 * otp_auth and oauth: a credential key of the user the code or token names, sealed to the client's key. The OTP is
 * named by its id; an OIDC token is not shown, as it is a credential.
 */
export const signInWithKey =
  (title: string, otpField?: string): Describer =>
  (fields, draft) => {
    draft.title = title;
    if (otpField !== undefined) draft.fact('Code', code(text(fields, otpField) ?? ''));
    draft.fact('Sealed to', code(text(fields, 'targetPublicKey') ?? ''));
    const seconds = number(fields, 'expirationSeconds');
    if (seconds !== undefined) draft.fact('Key lasts', plain(`${seconds} seconds`));
    if (fields['invalidateExisting'] === true) draft.fact('Existing keys', plain('removed'));
  };

export const sessionDescribers = {
  ACTIVITY_TYPE_OAUTH_LOGIN: oauthLogin,
  ACTIVITY_TYPE_CREATE_SESSION_PROFILE: createSessionProfile,
  ACTIVITY_TYPE_STAMP_LOGIN: login('Sign in with a stamp', 'publicKey'),
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: login('Open a read-write session', undefined),
  ACTIVITY_TYPE_CREATE_READ_ONLY_SESSION: login('Open a read-only session', undefined),
  ACTIVITY_TYPE_EMAIL_AUTH_V3: emailed('Email a sign-in key'),
  ACTIVITY_TYPE_INIT_USER_EMAIL_RECOVERY_V2: emailed('Email a recovery key'),
  ACTIVITY_TYPE_OAUTH: signInWithKey('Sign in with an OAuth token'),
} satisfies Describers;
