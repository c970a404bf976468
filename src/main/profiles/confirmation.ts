/**
 * Which profile changes the user must confirm in a dialog shown by main. A profile's service URL decides where every
 * request stamped with its API key goes, and its signer key decides which enclave's bundles it trusts; a compromised
 * renderer that could change either silently could collect stamped requests (replayable within the timestamp window)
 * or feed the app forged bundles. Its API key and organization decide whose stamps that URL receives: swapping them sends
 * another key's requests (replayable against the real service) to whatever the URL points at. So main asks the person,
 * naming the profile and the old and new values.
 */
import { QkError } from '../../shared/errors';
import type { Confirm, ConfirmationRequest } from '../confirmation/confirmation';
import { PRODUCTION_SIGNER_SIGN_PUBLIC_KEY, profileCredential, type Profile, type ProfileChangeCheck } from './profiles';

const RISK_NOTE =
  'Every request QuorumKey signs for this profile is sent to its service URL, and only bundles signed by its enclave ' +
  'signer key are trusted. Continue only if you made this change yourself and got the new value from your service.';
const KEY_RISK_NOTE =
  'A request signed with an API key can be replayed, for a while, against any service that trusts that key: send it only ' +
  'to a service you trust with it.';

/** The confirmation `before` → `after` needs, or `undefined` when it changes nothing sensitive. `before` is absent when adding. */
export function confirmationFor(before: Profile | undefined, after: Profile): ConfirmationRequest | undefined {
  const profile = JSON.stringify(after.name);
  if (before === undefined) {
    if (after.kind !== 'hosted') return undefined;
    // Every new hosted profile is a new destination for requests signed with an existing key: always ask.
    const production = after.enclaveSignerPublicKey === PRODUCTION_SIGNER_SIGN_PUBLIC_KEY;
    return {
      title: production ? 'Send signed requests to a new service?' : 'Trust a non-production enclave signer?',
      message: production
        ? `Add profile ${profile}, which signs requests with ${profileCredential(after).phrase} and sends them to ${after.baseUrl}?`
        : `Add profile ${profile} with an enclave signer key that is not the production signer?`,
      detail: [
        `Service URL: ${after.baseUrl}`,
        `${profileCredential(after).label}: ${profileCredential(after).value}`,
        `Enclave signer key: ${after.enclaveSignerPublicKey}`,
        ...(production ? [] : [`Production signer key: ${PRODUCTION_SIGNER_SIGN_PUBLIC_KEY}`]),
        '',
        RISK_NOTE,
      ].join('\n'),
    };
  }
  const changed: { label: string; from: string; to: string }[] = [];
  if (before.baseUrl !== after.baseUrl) changed.push({ label: 'service URL', from: before.baseUrl, to: after.baseUrl });
  if (before.enclaveSignerPublicKey !== after.enclaveSignerPublicKey) {
    changed.push({ label: 'enclave signer key', from: before.enclaveSignerPublicKey, to: after.enclaveSignerPublicKey });
  }
  const [credentialBefore, credentialAfter] = [profileCredential(before), profileCredential(after)];
  const signsWithAnotherKey = credentialBefore.value !== credentialAfter.value;
  if (signsWithAnotherKey) changed.push({ label: 'API key', from: credentialBefore.value, to: credentialAfter.value });
  if (before.organizationId !== after.organizationId) changed.push({ label: 'organization', from: before.organizationId, to: after.organizationId });
  if (changed.length === 0) return undefined;
  // Named as stored: a rename in the same edit must not hide which profile is being redirected.
  const named = before.name === after.name ? profile : `${JSON.stringify(before.name)} (renamed to ${profile})`;
  const changes = changed.map(({ label, from, to }) => `${label}\n  from: ${from}\n  to:   ${to}`);
  const signsElsewhere = signsWithAnotherKey || before.organizationId !== after.organizationId;
  if (!signsElsewhere) {
    return {
      title: 'Change where a profile sends requests?',
      message: `Change the ${changed.map(({ label }) => label).join(' and ')} of profile ${named}?`,
      detail: [...changes, '', RISK_NOTE].join('\n'),
    };
  }
  // Another key (or organization) for the same URL is as new a destination for that key's stamps as adding a profile.
  return {
    title: 'Sign requests for a profile with another key or organization?',
    message:
      `Change the ${changed.map(({ label }) => label).join(' and ')} of profile ${named}? It would sign requests with ` +
      `${credentialAfter.phrase} for organization ${after.organizationId} and send them to ${after.baseUrl}.`,
    detail: [
      ...changes,
      '',
      `Service URL: ${after.baseUrl}`,
      `${credentialAfter.label}: ${credentialAfter.value}`,
      `Organization: ${after.organizationId}`,
      '',
      KEY_RISK_NOTE,
      RISK_NOTE,
    ].join('\n'),
  };
}

/**
 * A check for Profiles.add/update that asks `confirm` when the change needs it and refuses with USER_DECLINED (so
 * nothing is written) when the user declines.
 */
export function confirmingCheck(confirm: Confirm): ProfileChangeCheck {
  return async (before, after) => {
    const request = confirmationFor(before, after);
    if (request === undefined) return;
    if (!(await confirm(request))) {
      throw new QkError(
        'USER_DECLINED',
        `the change to profile ${JSON.stringify(after.name)} was declined in the confirmation dialog; nothing was saved`,
        {
          id: after.id,
        },
      );
    }
  };
}
