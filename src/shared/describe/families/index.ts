/**
 * The describers of every family, by activity type, laid out as the service's families are (src/service/families).
 * The table's type names every type the operation table submits, so a type without a describer does not compile.
 */
import type { DescriberTable } from '../draft';
import { activityDescribers } from './activities';
import { contractDescribers } from './contracts';
import { credentialDescribers } from './credentials';
import { exportImportDescribers } from './export-import';
import { apiKeyDescribers } from './identity/api-keys';
import { organizationDescribers } from './identity/organizations';
import { userTagDescribers } from './identity/user-tags';
import { userDescribers } from './identity/users';
import { invitationDescribers } from './invitations';
import { ipAllowlistDescribers } from './ip-allowlists';
import { mfaPolicyDescribers } from './mfa-policies';
import { otpAuthDescribers } from './otp-auth';
import { policyDescribers } from './policies';
import { privateKeyTagDescribers } from './private-key-tags';
import { privateKeyDescribers } from './private-keys';
import { secretDescribers } from './secrets';
import { oauth2CredentialDescribers } from './oauth2-credentials';
import { fiatOnRampCredentialDescribers } from './fiat-on-ramp-credentials';
import { sessionDescribers } from './sessions';
import { signingDescribers } from './signing';
import { sparkDescribers } from './spark';
import { tvcDescribers } from './tvc';
import { walletDescribers } from './wallets';
import { webhookDescribers } from './webhooks';

export const DESCRIBERS: DescriberTable = {
  ...activityDescribers,
  ...policyDescribers,
  ...mfaPolicyDescribers,
  ...walletDescribers,
  ...exportImportDescribers,
  ...privateKeyDescribers,
  ...privateKeyTagDescribers,
  ...userDescribers,
  ...userTagDescribers,
  ...apiKeyDescribers,
  ...credentialDescribers,
  ...organizationDescribers,
  ...invitationDescribers,
  ...ipAllowlistDescribers,
  ...sessionDescribers,
  ...otpAuthDescribers,
  ...contractDescribers,
  ...tvcDescribers,
  ...signingDescribers,
  ...sparkDescribers,
  ...secretDescribers,
  ...oauth2CredentialDescribers,
  ...fiatOnRampCredentialDescribers,
  ...webhookDescribers,
};
