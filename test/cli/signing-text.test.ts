import { serializeTransaction } from 'viem';
import { describe, expect, it } from 'vitest';
import { signingCardText } from '../../src/main/cli/signing-text';
import { describeSigningRequest, flatFacts, signingFacts } from '../../src/shared/clear-signing/index.js';

const SIGNER = '0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045';
const RECIPIENT = '0x1111111111111111111111111111111111111111';

describe('the CLI signing card', () => {
  const transfer = describeSigningRequest(
    {
      operation: 'sign_transaction',
      parameters: {
        signWith: SIGNER,
        unsignedTransaction: serializeTransaction({
          type: 'eip1559',
          chainId: 1,
          nonce: 7,
          gas: 21_000n,
          maxFeePerGas: 2n,
          maxPriorityFeePerGas: 1n,
          to: RECIPIENT,
          value: 1_500_000_000_000_000_000n,
        }),
        type: 'TRANSACTION_TYPE_ETHEREUM',
      },
    },
    {
      privateKeys: [{ privateKeyId: 'pk-1', privateKeyName: 'treasury', addresses: [{ address: SIGNER, addressFormat: 'ADDRESS_FORMAT_ETHEREUM' }] }],
    },
  );

  it('prints every signing fact the app lists, each exact value beside its name, then the policies', () => {
    const text = signingCardText(transfer, {
      outcome: 'NEEDS_CONSENSUS',
      matchedPolicies: [{ policyId: 'p-1', policyName: 'Two for payments', effect: 'EFFECT_ALLOW', outcome: 'NEEDS_CONSENSUS' }],
      failedPolicies: [],
      stillToVote: [],
      consensusNeeds: 'needs 1 more approver',
      viewerCanApprove: true,
      why: [
        {
          policyId: 'p-1',
          policyName: 'Two for payments',
          field: 'consensus',
          outcome: 'false',
          parts: [
            {
              pieces: [
                { text: 'approvers.filter(user, user.tags.contains(' },
                { text: "'t-1'", name: 'ops', kind: 'tag' },
                { text: ')).count() >= 2' },
              ],
              line: 1,
              column: 1,
              outcome: 'false',
              reads: [{ expression: 'approvers.filter(user, user.tags.contains(«tag ops»)).count()', value: '1' }],
            },
          ],
        },
      ],
    });
    const lines = text.trimEnd().split('\n');
    expect(lines.slice(0, 2)).toEqual([transfer.title, `  ${transfer.summary}`]);
    for (const fact of flatFacts(signingFacts(transfer)))
      expect(lines.some((line) => line.startsWith(`  ${fact.label}: ${fact.value[0]?.text}`))).toBe(true);
    expect(lines).toContain(`  Signer: treasury (${SIGNER})`);
    expect(lines).toContain('  Value: 1.5 ETH (1500000000000000000 wei)');
    expect(lines).toContain(`  To: ${RECIPIENT}`);
    expect(lines.slice(-6)).toEqual([
      '  Policies: NEEDS_CONSENSUS',
      '    matched "Two for payments" (allow): NEEDS_CONSENSUS',
      '    needs 1 more approver; you can approve',
      '    why: "Two for payments" consensus is false',
      '      1:1 approvers.filter(user, user.tags.contains(«tag ops»)).count() >= 2 is false',
      '        approvers.filter(user, user.tags.contains(«tag ops»)).count() read 1',
    ]);
  });

  it('says offline that the policies were not evaluated', () => {
    expect(signingCardText(transfer, undefined).trimEnd().split('\n').at(-1)).toMatch(/^ {2}Policies: not evaluated offline/);
  });

  it('escapes text that would break a line or steer the terminal, so it cannot fake part of the card', () => {
    const payload = 'pay the invoice\n  Policies: ALLOW\u001b[2K';
    const text = signingCardText(
      describeSigningRequest({
        operation: 'sign_raw_payload',
        parameters: { signWith: SIGNER, payload, encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_KECCAK256' },
      }),
      undefined,
    );
    expect(text).toContain('  Payload: pay the invoice\\n  Policies: ALLOW\\u001B[2K\n');
    // A payload's parts print under its path, as the card nests them under it.
    expect(text).toMatch(/\n {2}Payload\.signed bytes: [0-9a-f]+\n/);
    expect(text).not.toContain('\u001b');
    expect(text.split('\n').filter((line) => line.startsWith('  Policies:'))).toEqual([expect.stringMatching(/not evaluated offline/)]);
  });

  it('service text forges lines of main’s terminal text: separators, bidi and invisible characters in names show as escapes', () => {
    const name = 'Payroll\u2028  Policies: ALLOW\u2029\u0085\u202E\u2066\u061C\u200B"';
    const text = signingCardText(transfer, {
      outcome: 'NEEDS_CONSENSUS',
      matchedPolicies: [{ policyId: 'p-1', policyName: name, effect: 'EFFECT_ALLOW', outcome: 'NEEDS_CONSENSUS' }],
      failedPolicies: [{ policyId: 'p-2', policyName: name, reason: 'unknown field\u2028  Policies: ALLOW' }],
      stillToVote: [],
      consensusNeeds: `needs 1 more approver from Carol\u2028  Policies: ALLOW (policy ${name})`,
      viewerCanApprove: false,
      why: [],
    });
    expect(text).not.toMatch(/[\p{Cf}\p{Zl}\p{Zp}\u0080-\u009F]/u);
    const lines = text.trimEnd().split('\n');
    expect(lines.filter((line) => line.trimStart().startsWith('Policies:'))).toEqual(['  Policies: NEEDS_CONSENSUS']);
    expect(lines).toContain('    matched "Payroll\\u2028  Policies: ALLOW\\u2029\\u0085\\u202E\\u2066\\u061C\\u200B\\"" (allow): NEEDS_CONSENSUS');
  });
});
