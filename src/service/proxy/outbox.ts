/**
 * The OTP outbox: the local service sends no email or SMS; each code is appended to a file as one JSON line
 * `{contact, channel, code, otpId, createdAt}` for the operator (or a test) to read. The file is private to the user.
 */
import { appendFileSync, readFileSync } from 'node:fs';
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

export function appendOtpMessage(file: string, message: OtpMessage): void {
  try {
    appendFileSync(file, `${JSON.stringify(message)}\n`, { mode: 0o600 });
  } catch (error) {
    throw new QkError('FILE_ERROR', `cannot append the OTP message to the outbox ${file}: ${(error as Error).message}`, { file });
  }
}

/** Every message in the outbox, oldest first (an absent file is an empty outbox). */
export function readOtpOutbox(file: string): OtpMessage[] {
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
    .map((line) => JSON.parse(line) as OtpMessage);
}
