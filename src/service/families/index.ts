/**
 * Every resource family the service serves. The router serves an operation exactly when one of these
 * provides its handler; a family is one module exporting its query and activity handlers by operation name.
 * Families that need the OIDC verifier (identity, credentials, sessions) are built in src/service/index.ts.
 */
import type { Family } from '../activities/context';
import { activitiesFamily } from './activities';
import { appProofsFamily } from './app-proofs';
import { exportImportFamily } from './export-import';
import { ipAllowlistsFamily } from './ip-allowlists';
import { mfaPoliciesFamily } from './mfa-policies';
import { contractsFamily } from './contracts';
import { policiesFamily } from './policies';
import { privateKeyTagsFamily } from './private-key-tags';
import { privateKeysFamily } from './private-keys';
import { secretsFamily } from './secrets';
import { oauth2CredentialsFamily } from './oauth2-credentials';
import { fiatOnRampCredentialsFamily } from './fiat-on-ramp-credentials';
import { verifiedSubOrganizationsFamily } from './suborgs-verified';
import { signingFamily } from './signing';
import { sparkFamily } from './spark';
import { tvcFamily } from './tvc';
import { walletsFamily } from './wallets';
import { whoamiFamily } from './whoami';

export const families: readonly Family[] = [
  activitiesFamily,
  policiesFamily,
  mfaPoliciesFamily,
  whoamiFamily,
  contractsFamily,
  tvcFamily,
  verifiedSubOrganizationsFamily,
  walletsFamily,
  privateKeysFamily,
  privateKeyTagsFamily,
  exportImportFamily,
  secretsFamily,
  oauth2CredentialsFamily,
  fiatOnRampCredentialsFamily,
  ipAllowlistsFamily,
  appProofsFamily,
  sparkFamily,
  signingFamily,
];
