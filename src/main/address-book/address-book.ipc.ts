import type { IpcHandlers } from '../ipc/register';
import type { ActiveProfile } from '../profiles/active-profile';
import type { AddressBook } from './address-book';

/** The active profile's organization's address book; read without the service, so it works while it is stopped. */
export function addressBookHandlers({
  addressBook,
  active,
}: {
  addressBook: AddressBook;
  active: Pick<ActiveProfile, 'profile'>;
}): Pick<IpcHandlers, 'addressBook.list' | 'addressBook.add' | 'addressBook.rename' | 'addressBook.remove'> {
  const organizationId = async () => (await active.profile()).organizationId;
  return {
    'addressBook.list': async () => addressBook.list(await organizationId()),
    'addressBook.add': async ({ entry }) => addressBook.add(await organizationId(), entry),
    'addressBook.rename': async ({ entry }) => addressBook.rename(await organizationId(), entry),
    'addressBook.remove': async ({ entry }) => addressBook.remove(await organizationId(), entry),
  };
}
