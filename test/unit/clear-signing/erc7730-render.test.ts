/**
 * The ERC-7730 formatter on descriptors written here: paths with arrays and slices, groups, references, constants and
 * maps, visibility rules, interpolated intents, inner calls read by their callee's descriptor, and typed data.
 */
import { encodeFunctionData, parseAbiItem, type AbiFunction } from 'viem';
import { describe, expect, it } from 'vitest';
import { descriptorProblems, mergeIncludes } from '../../../src/shared/clear-signing/erc7730/descriptor';
import { DescriptorIndex } from '../../../src/shared/clear-signing/erc7730/registry';
import { encodeType, readCall, readTypedData } from '../../../src/shared/clear-signing/erc7730/render';
import type { Erc7730DataProvider, JsonObject, RegistryDescriptor } from '../../../src/shared/clear-signing/erc7730/types';

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const ROUTER = '0x1111111111111111111111111111111111111111';
const ALICE = '0x2222222222222222222222222222222222222222';
const BOB = '0x3333333333333333333333333333333333333333';

const provider: Erc7730DataProvider = {
  token: (chainId, address) => (chainId === 1 && address.toLowerCase() === USDC.toLowerCase() ? { symbol: 'USDC', decimals: 6 } : undefined),
  addressName: (address, sources) => (address.toLowerCase() === ALICE && (sources === undefined || sources.includes('local')) ? 'Alice' : undefined),
  nftCollectionName: () => undefined,
  blockTimestamp: (height) => (height === 100n ? 1_700_000_000 : undefined),
};

const ROUTER_FORMAT = 'swap((address token,uint256 amount)[] legs,address to,uint256 deadline,uint8 mode,bytes path)';

const router: RegistryDescriptor = {
  source: { entity: 'example', file: 'calldata-Router.json' },
  descriptor: {
    context: { contract: { deployments: [{ chainId: 1, address: ROUTER }] } },
    metadata: {
      owner: 'Example DEX',
      enums: { mode: { '0': 'exact in', '1': 'exact out' } },
      constants: { unlimited: '0xffffffffffffffffffffffffffffffff' },
    },
    display: {
      definitions: {
        amount: { label: 'Amount', format: 'tokenAmount', params: { tokenPath: 'token', threshold: '$.metadata.constants.unlimited' } },
      },
      formats: {
        [ROUTER_FORMAT]: {
          intent: 'Swap',
          interpolatedIntent: 'Swap for {to} before {deadline}',
          fields: [
            { path: 'legs.[]', fields: [{ path: 'amount', $ref: '$.display.definitions.amount' }] },
            { path: 'to', label: 'Recipient', format: 'addressName', params: { sources: ['local'] } },
            { path: 'deadline', label: 'Deadline', format: 'date', params: { encoding: 'timestamp' } },
            { path: 'mode', label: 'Mode', format: 'enum', params: { $ref: '$.metadata.enums.mode' } },
            { path: 'path.[0:20]', label: 'First hop', format: 'raw' },
            { path: '@.value', label: 'Sent', format: 'amount', visible: { ifNotIn: ['0'] } },
          ],
        },
      },
    },
  },
};

const swap = parseAbiItem(`function ${ROUTER_FORMAT}`) as AbiFunction;

function swapData(amounts: bigint[]): `0x${string}` {
  return encodeFunctionData({
    abi: [swap],
    args: [amounts.map((amount) => ({ token: USDC, amount })), ALICE, 1_767_225_600n, 1, `0x${'ab'.repeat(20)}${'cd'.repeat(3)}`],
  });
}

describe('ERC-7730 calldata', () => {
  it('reads each array element, references, enums, slices, and hides a zero value', () => {
    const reading = readCall(
      new DescriptorIndex([router]),
      { chainId: 1, to: ROUTER, data: swapData([1_500_000n, 2n ** 128n - 1n]), value: 0n },
      provider,
    );
    expect(reading?.source).toEqual(router.source);
    expect(reading?.rendered).toEqual({
      intent: 'Swap',
      interpolatedIntent: 'Swap for Alice before 2026-01-01 00:00:00Z',
      owner: 'Example DEX',
      fields: [
        { label: 'Amount', value: '1.5 USDC' },
        { label: 'Amount', value: 'Unlimited USDC' },
        { label: 'Recipient', value: 'Alice' },
        { label: 'Deadline', value: '2026-01-01 00:00:00Z' },
        { label: 'Mode', value: 'exact out' },
        { label: 'First hop', value: `0x${'ab'.repeat(20)}` },
      ],
    });
  });

  it('shows the native value when it is not zero', () => {
    const reading = readCall(new DescriptorIndex([router]), { chainId: 1, to: ROUTER, data: swapData([1n]), value: 10n ** 17n }, provider);
    expect(reading?.rendered.fields.at(-1)).toEqual({ label: 'Sent', value: '0.1 ETH' });
  });

  it('matches only the bound contract on its chain', () => {
    const index = new DescriptorIndex([router]);
    expect(readCall(index, { chainId: 10, to: ROUTER, data: swapData([1n]), value: 0n }, provider)).toBeUndefined();
    expect(readCall(index, { chainId: 1, to: BOB, data: swapData([1n]), value: 0n }, provider)).toBeUndefined();
    expect(readCall(index, { chainId: 1, to: ROUTER, data: '0xdeadbeef', value: 0n }, provider)).toBeUndefined();
  });

  it('reads an inner call with the descriptor bound to its callee, and leaves an unknown one as bytes', () => {
    const execute = 'execute(address target,bytes data)';
    const wallet: RegistryDescriptor = {
      source: { entity: 'example', file: 'calldata-Wallet.json' },
      descriptor: {
        context: { contract: { deployments: [{ chainId: 1, address: BOB }] } },
        metadata: { owner: 'Example Wallet' },
        display: {
          formats: {
            [execute]: { intent: 'Execute', fields: [{ path: 'data', label: 'Call', format: 'calldata', params: { calleePath: 'target' } }] },
          },
        },
      },
    };
    const index = new DescriptorIndex([router, wallet]);
    const executeFn = parseAbiItem(`function ${execute}`) as AbiFunction;
    const inner = swapData([3_000_000n]);
    const outer = encodeFunctionData({ abi: [executeFn], args: [ROUTER, inner] });
    const reading = readCall(index, { chainId: 1, to: BOB, data: outer, value: 0n }, provider);
    const [call] = reading?.rendered.fields ?? [];
    expect(call?.label).toBe('Call');
    expect(call?.value).toMatchObject({ intent: 'Swap', owner: 'Example DEX', interpolatedIntent: 'Swap for Alice before 2026-01-01 00:00:00Z' });
    expect(typeof call?.value === 'string' ? undefined : call?.value.fields[0]).toEqual({ label: 'Amount', value: '3 USDC' });
    const unknown = encodeFunctionData({ abi: [executeFn], args: [ALICE, '0x12345678'] });
    expect(readCall(index, { chainId: 1, to: BOB, data: unknown, value: 0n }, provider)?.rendered.fields).toEqual([
      { label: 'Call', value: '0x12345678' },
    ]);
  });

  it('shows an encrypted field as its placeholder, in the fields and the interpolated intent', () => {
    const token: RegistryDescriptor = {
      source: { entity: 'example', file: 'calldata-Confidential.json' },
      descriptor: {
        context: { contract: { deployments: [{ chainId: 1, address: USDC }] } },
        display: {
          formats: {
            'transfer(address to,bytes32 amount)': {
              intent: 'Send',
              interpolatedIntent: 'Send {amount} to {to}',
              fields: [
                { path: 'to', label: 'To', format: 'addressName' },
                {
                  path: 'amount',
                  label: 'Amount',
                  format: 'tokenAmount',
                  params: { tokenPath: '@.to' },
                  encryption: { scheme: 'fhevm', plaintextType: 'uint64', fallbackLabel: '[Encrypted Amount]' },
                },
              ],
            },
          },
        },
      },
    };
    const transfer = parseAbiItem('function transfer(address to,bytes32 amount)') as AbiFunction;
    const data = encodeFunctionData({ abi: [transfer], args: [ALICE, `0x${'11'.repeat(32)}`] });
    expect(readCall(new DescriptorIndex([token]), { chainId: 1, to: USDC, data, value: 0n }, provider)?.rendered).toEqual({
      intent: 'Send',
      interpolatedIntent: 'Send [Encrypted Amount] to Alice',
      owner: '',
      fields: [
        { label: 'To', value: 'Alice' },
        { label: 'Amount', value: '[Encrypted Amount]' },
      ],
    });
  });

  it('refuses a value a mustMatch rule does not list', () => {
    const strict: RegistryDescriptor = {
      source: { entity: 'example', file: 'calldata-Strict.json' },
      descriptor: {
        context: { contract: { deployments: [{ chainId: 1, address: ROUTER }] } },
        display: { formats: { 'set(uint256 mode)': { intent: 'Set', fields: [{ path: 'mode', label: 'Mode', visible: { mustMatch: [1] } }] } } },
      },
    };
    const set = parseAbiItem('function set(uint256 mode)') as AbiFunction;
    const index = new DescriptorIndex([strict]);
    expect(
      readCall(index, { chainId: 1, to: ROUTER, data: encodeFunctionData({ abi: [set], args: [1n] }), value: 0n }, provider)?.rendered.fields,
    ).toEqual([]);
    expect(() => readCall(index, { chainId: 1, to: ROUTER, data: encodeFunctionData({ abi: [set], args: [2n] }), value: 0n }, provider)).toThrow(
      /not a value the descriptor accepts/,
    );
  });
});

describe('ERC-7730 descriptors', () => {
  it('merges includes, the including file winning and fields merged by path', () => {
    const base: JsonObject = {
      display: {
        formats: {
          'f(uint256 a,uint256 b)': {
            intent: 'Base',
            fields: [
              { path: 'a', label: 'A', format: 'raw' },
              { path: 'b', label: 'B' },
            ],
          },
        },
      },
    };
    const merged = mergeIncludes(
      {
        includes: 'base.json',
        context: { contract: {} },
        display: {
          formats: {
            'f(uint256 a,uint256 b)': {
              fields: [
                { path: 'a', label: 'First' },
                { path: 'c', label: 'C' },
              ],
            },
          },
        },
      },
      'top.json',
      () => ({ json: base, name: 'base.json' }),
    );
    expect(merged['includes']).toBeUndefined();
    expect(merged['display']).toEqual({
      formats: {
        'f(uint256 a,uint256 b)': {
          intent: 'Base',
          fields: [
            { path: 'a', label: 'First', format: 'raw' },
            { path: 'b', label: 'B' },
            { path: 'c', label: 'C' },
          ],
        },
      },
    });
  });

  it('refuses an include cycle', () => {
    expect(() => mergeIncludes({ includes: 'a.json' }, 'a.json', () => ({ json: { includes: 'a.json' }, name: 'a.json' }))).toThrow(/cycle/);
  });

  it('names what is wrong with a descriptor', () => {
    expect(descriptorProblems(router.descriptor)).toEqual([]);
    expect(
      descriptorProblems({
        context: { contract: {} },
        display: {
          formats: {
            'transfer(address to,uint256 value)': { fields: [{ label: 'nothing' }] },
            'transfer(address a,uint256 b)': {},
            'not a signature': {},
          },
        },
      }),
    ).toEqual([
      'display.formats["transfer(address to,uint256 value)"].fields[0]: a field needs a path, a value or a $ref',
      'display.formats["transfer(address a,uint256 b)"]: same selector 0xa9059cbb as “transfer(address to,uint256 value)”',
      expect.stringMatching(/^display\.formats\["not a signature"\]: /),
    ]);
    expect(descriptorProblems({ display: {} })).toEqual(['context: missing', 'display.formats: missing']);
  });
});

describe('ERC-7730 typed data', () => {
  const types = {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ],
    Order: [
      { name: 'maker', type: 'address' },
      { name: 'items', type: 'Item[]' },
      { name: 'expiry', type: 'uint256' },
    ],
    Item: [
      { name: 'token', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
  };
  const format = encodeType(types, 'Order');
  const market: RegistryDescriptor = {
    source: { entity: 'example', file: 'eip712-Market.json' },
    descriptor: {
      context: { eip712: { domain: { name: 'Market' }, deployments: [{ chainId: 1, address: ROUTER }] } },
      metadata: { owner: 'Example Market' },
      display: {
        formats: {
          [format]: {
            intent: 'Place order',
            fields: [
              { path: 'maker', label: 'Maker', format: 'addressName' },
              { path: 'items.[].amount', label: 'Amount', format: 'tokenAmount', params: { tokenPath: 'items.[].token' } },
              { path: 'expiry', label: 'Expires', format: 'date', params: { encoding: 'blockheight' } },
            ],
          },
        },
      },
    },
  };
  const message = { maker: ALICE, items: [{ token: USDC, amount: '2500000' }], expiry: '100' };

  it('encodes the primary type as EIP-712 does', () => {
    expect(format).toBe('Order(address maker,Item[] items,uint256 expiry)Item(address token,uint256 amount)');
  });

  it('reads a message its domain binds, each array element with the token at the same index', () => {
    const reading = readTypedData(
      new DescriptorIndex([market]),
      { types, primaryType: 'Order', domain: { name: 'Market', chainId: 1, verifyingContract: ROUTER }, message },
      provider,
    );
    expect(reading?.rendered).toEqual({
      intent: 'Place order',
      owner: 'Example Market',
      fields: [
        { label: 'Maker', value: 'Alice' },
        { label: 'Amount', value: '2.5 USDC' },
        { label: 'Expires', value: '2023-11-14 22:13:20Z' },
      ],
    });
  });

  it('does not read a message with a generic format that binds no domain', () => {
    const generic: RegistryDescriptor = { ...market, descriptor: { ...market.descriptor, context: { eip712: {} } } };
    const domain = { name: 'Market', chainId: 1, verifyingContract: ROUTER };
    expect(readTypedData(new DescriptorIndex([generic]), { types, primaryType: 'Order', domain, message }, provider)).toBeUndefined();
  });

  it('does not read a message from another domain', () => {
    const index = new DescriptorIndex([market]);
    expect(
      readTypedData(index, { types, primaryType: 'Order', domain: { name: 'Other', chainId: 1, verifyingContract: ROUTER }, message }, provider),
    ).toBeUndefined();
    expect(
      readTypedData(index, { types, primaryType: 'Order', domain: { name: 'Market', chainId: 5, verifyingContract: ROUTER }, message }, provider),
    ).toBeUndefined();
  });
});
