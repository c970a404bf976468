import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { activityStatusInWords } from '../../shared/describe';
import { QkError } from '../../shared/errors';
import type { ActiveProfileHandlerDeps } from '../profiles/active-profile';
import { activityView, outcomeView } from '../activities/activity-views';
import { stampedRequestRecord } from '../journal/activity-entry';
import type { Journal } from '../journal/journal';
import type { IpcHandlers } from '../ipc/register';
import type { Settings } from '../settings/settings';
import { writeNewFile } from '../storage/bounded-file';
import type { AddressBook } from '../address-book/address-book';
import type { DeclaredTokens } from '../tokens/declared-tokens';
import { signingFor } from './signing';

type SigningChannel = Extract<keyof IpcHandlers, `signing.${string}`>;

export interface SigningHandlerDeps extends ActiveProfileHandlerDeps {
  settings: Pick<Settings, 'get'>;
  tokens: Pick<DeclaredTokens, 'list'>;
  addressBook: Pick<AddressBook, 'list'>;
  /** Where offline-stamped request files are written (the same directory approvals.postStampedFile reads). */
  stampedRequestsDir: string;
  /** Where completed signatures are saved for the requester to take elsewhere. */
  signaturesDir: string;
  journal: Pick<Journal, 'record'>;
}

export function signingHandlers({
  active,
  now,
  settings,
  tokens,
  addressBook,
  stampedRequestsDir,
  signaturesDir,
  journal,
}: SigningHandlerDeps): Pick<IpcHandlers, SigningChannel> {
  const signing = async () => signingFor(await active.services(), { settings, tokens, addressBook, now });
  return {
    'signing.describe': async ({ activityId }) => {
      const { activity, ...card } = await (await signing()).card(activityId);
      return { ...card, activity: activityView(activity, now()) };
    },
    'signing.preview': async ({ request }) => (await signing()).preview(request),
    'signing.submit': async ({ request }) => outcomeView(await (await signing()).submit(request), (result) => result, now()),
    'signing.result': async ({ activityId }) => {
      const { activity, result } = await (await signing()).result(activityId);
      return { activity: activityView(activity, now()), ...(result === undefined ? {} : { result }) };
    },
    'signing.saveResult': async ({ activityId, file: name }) => {
      const { activity, result } = await (await signing()).result(activityId);
      if (result === undefined) {
        throw new QkError(
          'FAILED_PRECONDITION',
          `the signing request has no signature yet: it is ${activityStatusInWords(activity.status).toLowerCase()}; save it once it is signed`,
          {
            activityId,
          },
        );
      }
      await mkdir(signaturesDir, { recursive: true, mode: 0o700 });
      const file = join(signaturesDir, name);
      const contents = { activityId, organizationId: activity.organizationId, type: activity.type, fingerprint: activity.fingerprint, ...result };
      await writeNewFile(file, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 });
      return { file, signaturesDir };
    },
    'signing.stampToFile': async ({ request, file: name }) => {
      // The renderer names a file, never a path: it lands in the one directory main keeps for stamped requests.
      await mkdir(stampedRequestsDir, { recursive: true, mode: 0o700 });
      const file = join(stampedRequestsDir, name);
      const stamped = await (await signing()).stampToFile(request, file);
      await journal.record(stampedRequestRecord((await active.services()).profile, stamped, file));
      return { file, stampedRequestsDir, path: stamped.path, body: stamped.body };
    },
  };
}
