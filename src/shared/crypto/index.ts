/** Turnkey-compatible crypto formats: one import path for main, service and renderer code. */
export * from './app-proof';
export * from './bundles';
export * from './credential-bundle';
export * from './ecdsa';
export * from './encoding';
export * from './hpke';
export * from './keys';
export * from './stamp';
export * from './tokens';
