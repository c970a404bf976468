/** The policy linter's rules (docs/service.md#policy-lint), apart from their code so the IPC contract names them cheaply. */
export const LINT_RULES = [
  'weak-allow',
  'unknown-interface-name',
  'address-literal',
  'deny-never-matches',
  'constant-expression',
  'shadowed-by-deny',
] as const;
export type LintRule = (typeof LINT_RULES)[number];
