/**
 * The conformance runner against registry fixtures (test/fixtures/erc7730-registry): its results follow the
 * registry's documented results.json format, a case whose rendering differs is a fail with what was rendered, and a
 * case that cannot be read is an error with a message and no rendering.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { IMPLEMENTATION, RUNNER, runFixture } from '../../../src/main/clear-signing/conformance';

const FIXTURES = join(import.meta.dirname, '../../fixtures/erc7730-registry');
const POAP = join(FIXTURES, 'registry/poap/testsv2/calldata-PoapBridge.tests.json');
const PERMIT = join(FIXTURES, 'registry/permit/testsv2/eip712-permit-arbitrum-arb.tests.json');

type Rendered = {
  intent: string;
  interpolatedIntent?: string | undefined;
  owner?: string | undefined;
  fields: { label: string; value: string | Rendered }[];
};
const rendered: z.ZodType<Rendered> = z.lazy(() =>
  z.strictObject({
    intent: z.string(),
    interpolatedIntent: z.string().optional(),
    owner: z.string().optional(),
    fields: z.array(z.strictObject({ label: z.string(), value: z.union([z.string(), rendered]) })),
  }),
);

/** results.json as the registry's test-runner guide defines it. */
const results = z.strictObject({
  runner: z.literal('@ethereum-sourcify/clear-signing-test-runner'),
  implementation: z.string().regex(/^@?[\w.-]+(?:\/[\w.-]+)?@\d+\.\d+\.\d+/),
  cases: z.array(
    z.discriminatedUnion('status', [
      z.strictObject({ description: z.string(), status: z.literal('pass'), rendered, message: z.string().optional() }),
      z.strictObject({ description: z.string(), status: z.literal('fail'), rendered, message: z.string().optional() }),
      z.strictObject({ description: z.string(), status: z.literal('error'), message: z.string().min(1) }),
      z.strictObject({ description: z.string(), status: z.literal('skipped'), message: z.string().min(1) }),
    ]),
  ),
});

const work = mkdtempSync(join(tmpdir(), 'erc7730-conformance-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A copy of the fixture registry whose file at `path` is changed by `edit`. */
function editedCopy(path: string, edit: (json: Record<string, unknown>) => void): string {
  const root = mkdtempSync(join(work, 'copy-'));
  cpSync(FIXTURES, root, { recursive: true });
  const file = join(root, path);
  const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(json);
  writeFileSync(file, JSON.stringify(json));
  return root;
}

describe('conformance runner', () => {
  it('passes the fixtures, every case joined by its description, in the documented format', () => {
    for (const fixture of [POAP, PERMIT]) {
      const output = runFixture(fixture);
      expect(results.parse(output)).toEqual(output);
      expect(output.runner).toBe(RUNNER);
      expect(output.implementation).toBe(IMPLEMENTATION);
      const tests = (JSON.parse(readFileSync(fixture, 'utf8')) as { tests: { description: string; expected: unknown }[] }).tests;
      expect(output.cases.map((result) => result.description)).toEqual(tests.map((test) => test.description));
      for (const [index, result] of output.cases.entries()) {
        expect(result.status).toBe('pass');
        expect(result.rendered).toMatchObject(tests[index]?.expected as object);
      }
    }
  });

  it('fails a case whose expected reading differs, and says what it rendered', () => {
    const root = editedCopy('registry/poap/testsv2/calldata-PoapBridge.tests.json', (json) => {
      const [test] = json['tests'] as { expected: { fields: { label: string; value: string }[] } }[];
      if (test !== undefined) test.expected.fields[0] = { label: 'Token Id', value: '1' };
    });
    const output = runFixture(join(root, 'registry/poap/testsv2/calldata-PoapBridge.tests.json'));
    results.parse(output);
    expect(output.cases[0]?.status).toBe('fail');
    expect(output.cases[0]?.rendered?.fields[0]).toEqual({ label: 'Token Id', value: '35257' });
  });

  it('errs, with the reason and no rendering, when the call is not one the descriptor binds', () => {
    const root = editedCopy('registry/poap/calldata-PoapBridge.json', (json) => {
      json['context'] = { contract: { deployments: [{ chainId: 1, address: '0x0000000000000000000000000000000000000001' }] } };
    });
    const output = runFixture(join(root, 'registry/poap/testsv2/calldata-PoapBridge.tests.json'));
    results.parse(output);
    expect(output.cases[0]).toEqual({
      description: 'Mint POAP token',
      status: 'error',
      message: expect.stringContaining("not one of the descriptor's deployments") as unknown,
    });
  });

  it('errs on every case when the descriptor it names is missing', () => {
    const root = editedCopy('registry/permit/testsv2/eip712-permit-arbitrum-arb.tests.json', (json) => {
      json['descriptor'] = '../eip712-missing.json';
    });
    const output = runFixture(join(root, 'registry/permit/testsv2/eip712-permit-arbitrum-arb.tests.json'));
    results.parse(output);
    expect(output.cases.length).toBeGreaterThan(0);
    for (const result of output.cases)
      expect(result).toMatchObject({ status: 'error', message: expect.stringContaining('could not be read') as unknown });
  });
});
