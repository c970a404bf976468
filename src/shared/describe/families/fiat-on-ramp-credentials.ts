/** Fiat on-ramp credentials: an organization's keys at an on-ramp provider, the secret ones sealed to Turnkey. */
import type { Describer, Describers, Fields } from '../draft';
import { code, plain, text } from '../pieces';

/** `FIAT_ON_RAMP_PROVIDER_MOONPAY` → `MoonPay`; an unknown value stays as it is. */
function onRampProviderInWords(provider: string): string {
  return { FIAT_ON_RAMP_PROVIDER_COINBASE: 'Coinbase', FIAT_ON_RAMP_PROVIDER_MOONPAY: 'MoonPay' }[provider] ?? provider;
}

function credentialFacts(fields: Fields, draft: Parameters<Describer>[1]): string {
  const provider = onRampProviderInWords(text(fields, 'onrampProvider') ?? '');
  draft.fact('Provider', plain(provider));
  const projectId = text(fields, 'projectId');
  if (projectId !== undefined) draft.fact('Project', code(projectId));
  draft.fact('Publishable key', code(text(fields, 'publishableApiKey') ?? ''));
  draft.fact('Secret keys', plain('sealed to Turnkey’s on-ramp key (not readable here)'));
  return provider;
}

const createFiatOnRampCredential: Describer = (fields, draft) => {
  draft.title = 'Add a fiat on-ramp credential';
  const provider = credentialFacts(fields, draft);
  if (fields.sandboxMode === true) draft.fact('Mode', plain('the provider’s sandbox'));
  draft.summary = provider;
};

const updateFiatOnRampCredential: Describer = (fields, draft) => {
  draft.title = 'Change a fiat on-ramp credential';
  draft.fact('Credential', code(text(fields, 'fiatOnrampCredentialId') ?? ''));
  draft.summary = credentialFacts(fields, draft);
};

const deleteFiatOnRampCredential: Describer = (fields, draft) => {
  draft.title = 'Delete a fiat on-ramp credential';
  draft.fact('Credential', code(text(fields, 'fiatOnrampCredentialId') ?? ''));
  draft.summary = text(fields, 'fiatOnrampCredentialId') ?? '';
};

export const fiatOnRampCredentialDescribers = {
  ACTIVITY_TYPE_CREATE_FIAT_ON_RAMP_CREDENTIAL: createFiatOnRampCredential,
  ACTIVITY_TYPE_UPDATE_FIAT_ON_RAMP_CREDENTIAL: updateFiatOnRampCredential,
  ACTIVITY_TYPE_DELETE_FIAT_ON_RAMP_CREDENTIAL: deleteFiatOnRampCredential,
} satisfies Describers;
