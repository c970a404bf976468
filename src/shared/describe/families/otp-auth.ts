/** One-time codes: sent, checked, and signing in with one. */
import { login, signInWithKey } from './sessions';
import type { Describer, Describers } from '../draft';
import { code, plain, text } from '../pieces';

const initOtp: Describer = (fields, draft) => {
  draft.title = 'Send a one-time code';
  draft.fact('To', plain(text(fields, 'contact') ?? ''));
};

const verifyOtp: Describer = (fields, draft) => {
  draft.title = 'Check a one-time code';
  draft.fact('Code', code(text(fields, 'otpId') ?? ''));
};

export const otpAuthDescribers = {
  ACTIVITY_TYPE_INIT_OTP_V3: initOtp,
  ACTIVITY_TYPE_INIT_OTP_AUTH: initOtp,
  ACTIVITY_TYPE_INIT_OTP_AUTH_V2: initOtp,
  ACTIVITY_TYPE_INIT_OTP_AUTH_V3: initOtp,
  ACTIVITY_TYPE_VERIFY_OTP_V2: verifyOtp,
  ACTIVITY_TYPE_OTP_AUTH: signInWithKey('Sign in with a one-time code', 'otpId'),
  ACTIVITY_TYPE_OTP_LOGIN_V2: login('Sign in with a one-time code', 'publicKey'),
} satisfies Describers;
