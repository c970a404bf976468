/**
 * The descriptors the app ships (src/main/clear-signing/erc7730-registry.generated.ts) and the reading they add to a
 * signing description: beside the decoded call, on the facts every surface shows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shippedDescriptors } from '../../../src/main/clear-signing/shipped-registry';
import { signingCardText } from '../../../src/main/cli/signing-text';
import { describeSigningRequest, flatFacts, signingFacts } from '../../../src/shared/clear-signing';

const POAP_FIXTURE = join(import.meta.dirname, '../../fixtures/erc7730-registry/registry/poap/testsv2/calldata-PoapBridge.tests.json');
const [poapCase] = (JSON.parse(readFileSync(POAP_FIXTURE, 'utf8')) as { tests: { rawTx: string; from: string; expected: unknown }[] }).tests;
const SNAPSHOT_COMMIT = readFileSync(join(import.meta.dirname, '../../fixtures/erc7730-registry/REGISTRY_COMMIT'), 'utf8').trim();

describe('shipped ERC-7730 descriptors', () => {
  it('hold the registry commit they were taken from and its descriptors', async () => {
    const { index, registryCommit } = await shippedDescriptors();
    expect(registryCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(registryCommit).toBe(SNAPSHOT_COMMIT);
    expect(index.entries.length).toBeGreaterThan(300);
  });

  it('add the registry reading to a transaction one describes, keeping the decoded call', async () => {
    if (poapCase === undefined) throw new Error('the fixture has no case');
    const descriptors = await shippedDescriptors();
    const request = {
      operation: 'sign_transaction' as const,
      parameters: { signWith: poapCase.from, type: 'TRANSACTION_TYPE_ETHEREUM' as const, unsignedTransaction: poapCase.rawTx.slice(2) },
    };
    const description = describeSigningRequest(request, { descriptors });
    expect(description.descriptor?.rendered).toEqual(poapCase.expected);
    expect(description.descriptor?.describedBy).toBe("the registry's poap descriptor calldata-PoapBridge.json");
    expect(description.details.kind).toBe('ethereum-transaction');
    const lines = flatFacts(signingFacts(description)).map((fact) => `${fact.label}: ${fact.value.map((value) => value.text).join(' · ')}`);
    expect(lines).toContain("Registry reading: Mint POAP · described by the registry's poap descriptor calldata-PoapBridge.json");
    expect(lines).toContain('Registry reading.Expiration Time: 2026-01-09 14:27:15Z');
    expect(lines.some((line) => line.startsWith('Call'))).toBe(true);
    expect(signingCardText(description, undefined)).toContain(
      "  Registry reading: Mint POAP; described by the registry's poap descriptor calldata-PoapBridge.json\n  Registry reading.Owner: Proof of Attendance Protocol\n",
    );
    expect(describeSigningRequest(request).descriptor).toBeUndefined();
  });
});
