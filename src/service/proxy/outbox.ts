/**
 * The outbox: the local service sends no email or SMS; each message is appended to a file as one JSON line for the
 * operator (or a test) to read: an OTP code `{contact, channel, code, otpId, createdAt}`, or the credential bundle an
 * email login or recovery email would carry `{contact, channel, purpose, credentialBundle, organizationId, userId,
 * createdAt}`, or an invitation `{contact, channel, purpose, invitationId, …}`. The file is private to the user.
 */
import { chmodSync, closeSync, fchmodSync, fstatSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { QkError } from '../../shared/errors';

export type OtpChannel = 'email' | 'sms';

export interface OtpMessage {
  contact: string;
  channel: OtpChannel;
  code: string;
  otpId: string;
  /** ISO 8601. */
  createdAt: string;
}

/**
 * Opens the outbox for appending, created 0600. An existing file with a looser mode (made by hand, or by an earlier
 * version) is tightened before a live code is written to it, as the database is. Windows has no POSIX modes.
 */
function openOutbox(file: string): number {
  const fd = openSync(file, 'a', 0o600);
  try {
    if (process.platform !== 'win32' && (fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** Tightens an existing outbox at startup, so the codes already in it are private before any new one is added. */
export function restrictOutboxToOwner(file: string): void {
  if (process.platform === 'win32') return;
  try {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new QkError('FILE_ERROR', `cannot restrict the OTP outbox ${file} to its owner: ${(error as Error).message}`, { file });
  }
}

/** The email of email_auth or init_user_email_recovery, reduced to the credential bundle it carries. */
export interface CredentialBundleMessage {
  contact: string;
  channel: 'email';
  purpose: 'EMAIL_AUTH' | 'EMAIL_RECOVERY';
  credentialBundle: string;
  organizationId: string;
  userId: string;
  /** ISO 8601. */
  createdAt: string;
}

/** The email of create_invitations: whom it invites, to which organization, from whom. */
export interface InvitationMessage {
  contact: string;
  channel: 'email';
  purpose: 'INVITATION';
  invitationId: string;
  receiverUserName: string;
  organizationId: string;
  organizationName: string;
  senderUserId: string;
  /** ISO 8601. */
  createdAt: string;
}

export type OutboxMessage = OtpMessage | CredentialBundleMessage | InvitationMessage;

export function appendOutboxMessage(file: string, message: OutboxMessage): void {
  try {
    const fd = openOutbox(file);
    try {
      writeSync(fd, `${JSON.stringify(message)}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new QkError('FILE_ERROR', `cannot append the message to the outbox ${file}: ${(error as Error).message}`, { file });
  }
}

/** The OTP codes in the outbox, oldest first. */
export function readOtpOutbox(file: string): OtpMessage[] {
  return readOutbox(file).filter((message): message is OtpMessage => 'code' in message);
}

/** Every message in the outbox, oldest first (an absent file is an empty outbox). */
export function readOutbox(file: string): OutboxMessage[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new QkError('FILE_ERROR', `cannot read the OTP outbox ${file}: ${(error as Error).message}`, { file });
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as OutboxMessage);
}
