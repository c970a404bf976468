/**
 * Turnkey's production signer enclave signing key (docs/formats.md#pinned-keys, `PRODUCTION_SIGNER_SIGN_PUBLIC_KEY` in
 * Turnkey's SDK): every export and import bundle from the hosted service is signed by it, so it is the signer trusted
 * by default.
 */
export const PRODUCTION_SIGNER_SIGN_PUBLIC_KEY =
  '04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f5304b8fc8703acd69adca9a4bbf7f5d00d20a5e364b2569';
