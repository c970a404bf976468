/**
 * Ethereum payloads as policies read them: eth.tx for every transaction type viem serializes, contract calls decoded
 * with an uploaded ABI, eth.eip_712 and eth.eip_7702_authorization; and every refusal names what is wrong.
 */
import { encodeFunctionData, getAddress, hashTypedData, keccak256, parseAbi, serializeTransaction, toHex, type Abi } from 'viem';
import { hashAuthorization } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { decodeAuthorization, decodeEthereumTransaction, decodeTypedData } from '../../../src/shared/chains/ethereum';
import { MAIL } from '../../support/eip712-mail';

const TO = '0x3535353535353535353535353535353535353535';
const DISPERSE = parseAbi(['function disperse(address[] recipients, uint256[] values, (address token, bool flag) options)']);
const unsigned = (transaction: Parameters<typeof serializeTransaction>[0]) => serializeTransaction(transaction).slice(2);

describe('eth.tx', () => {
  it("reads EIP-155's example legacy transaction, whose chain id rides in v", () => {
    const decoded = decodeEthereumTransaction('ec098504a817c800825208943535353535353535353535353535353535353535880de0b6b3a764000080018080');
    expect(decoded.kind).toBe('legacy');
    expect(toHex(decoded.signingHash)).toBe('0xdaf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53');
    expect(decoded.policy).toEqual({
      type: 'LEGACY',
      to: TO,
      data: '0x',
      value: 10n ** 18n,
      gas: 21000n,
      nonce: 9n,
      chain_id: 1n,
      gas_price: 20_000_000_000n,
    });
  });

  it('names each typed transaction by its type byte and keeps only the fields it has', () => {
    const common = { chainId: 10, nonce: 3, to: TO, value: 7n, gas: 30000n } as const;
    expect(decodeEthereumTransaction(unsigned({ ...common, type: 'eip2930', gasPrice: 5n, accessList: [] })).policy).toMatchObject({
      type: 'TYPE_1',
      gas_price: 5n,
      chain_id: 10n,
    });
    const eip1559 = decodeEthereumTransaction(unsigned({ ...common, type: 'eip1559', maxFeePerGas: 9n, maxPriorityFeePerGas: 2n })).policy;
    expect(eip1559).toMatchObject({ type: 'TYPE_2', max_fee_per_gas: 9n, max_priority_fee_per_gas: 2n, nonce: 3n, value: 7n });
    expect(eip1559).not.toHaveProperty('gas_price');
    const eip7702 = decodeEthereumTransaction(
      unsigned({
        ...common,
        type: 'eip7702',
        maxFeePerGas: 9n,
        maxPriorityFeePerGas: 2n,
        authorizationList: [{ address: TO, chainId: 10, nonce: 1, r: '0x01', s: '0x02', yParity: 0 }],
      }),
    );
    expect(eip7702.policy.type).toBe('TYPE_4');
    const blob = decodeEthereumTransaction(
      unsigned({
        ...common,
        type: 'eip4844',
        maxFeePerGas: 9n,
        maxPriorityFeePerGas: 2n,
        maxFeePerBlobGas: 4n,
        blobVersionedHashes: [`0x01${'ab'.repeat(31)}`],
      }),
    );
    expect(blob.policy).toMatchObject({ type: 'TYPE_3', max_fee_per_blob_gas: 4n });
    const creation = decodeEthereumTransaction(
      unsigned({ type: 'eip1559', chainId: 1, nonce: 0, gas: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, data: '0x6000' }),
    ).policy;
    expect(creation).not.toHaveProperty('to');
    expect(creation.data).toBe('0x6000');
  });

  it('decodes a call with the ABI of its contract: function_name, function_signature, named args as policy values', () => {
    const recipients = ['0x70997970c51812dc3a010c7d01b50e0d17dc79c8', '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'] as const;
    const data = encodeFunctionData({ abi: DISPERSE, functionName: 'disperse', args: [recipients, [1n, 2n], { token: TO, flag: true }] });
    const abiFor = (to: string): Abi | undefined => (to === getAddress(TO) ? DISPERSE : undefined);
    const decoded = decodeEthereumTransaction(
      unsigned({ type: 'eip1559', chainId: 1, nonce: 0, to: TO, data, gas: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }),
      abiFor,
    );
    expect(decoded.policy).toMatchObject({
      function_name: 'disperse',
      function_signature: 'disperse(address[],uint256[],(address,bool))',
      contract_call_args: {
        recipients: recipients.map((address) => getAddress(address)),
        values: [1n, 2n],
        options: { token: getAddress(TO), flag: true },
      },
    });
    // Another contract, or a selector the ABI does not know: no decoded fields at all.
    const unknown = decodeEthereumTransaction(
      unsigned({ type: 'eip1559', chainId: 1, nonce: 0, to: TO, data: '0xa9059cbb', gas: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n }),
      abiFor,
    );
    expect(unknown.policy).not.toHaveProperty('function_name');
    expect(unknown.policy).not.toHaveProperty('contract_call_args');
  });

  it('refuses what it cannot sign safely, naming why', () => {
    const good = unsigned({ type: 'eip1559', chainId: 1, nonce: 0, to: TO, gas: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
    expect(() => decodeEthereumTransaction('')).toThrow(/is empty/);
    expect(() => decodeEthereumTransaction('0x0g')).toThrow(/unexpected character at position 3/);
    expect(() => decodeEthereumTransaction(good.slice(0, -2))).toThrow(/is not an unsigned Ethereum transaction/);
    expect(() => decodeEthereumTransaction(`${good}00`)).toThrow(/is not an unsigned Ethereum transaction/);
    const signed = serializeTransaction(
      { type: 'eip1559', chainId: 1, nonce: 0, to: TO, gas: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
      { r: '0x01', s: '0x02', yParity: 1 },
    );
    expect(() => decodeEthereumTransaction(signed)).toThrow(/already carries a signature/);
    const otherChain = unsigned({
      type: 'eip7702',
      chainId: 1,
      nonce: 0,
      to: TO,
      gas: 1n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
      authorizationList: [{ address: TO, chainId: 5, nonce: 0, r: '0x01', s: '0x02', yParity: 0 }],
    });
    expect(() => decodeEthereumTransaction(otherChain)).toThrow(/authorizationList\[0\] is for chain 5 but the transaction is for chain 1/);
  });
});

describe('eth.eip_712', () => {
  it('hashes the Mail example to the EIP’s digest and exposes its domain and message', () => {
    const decoded = decodeTypedData(JSON.stringify(MAIL), 'payload');
    expect(toHex(decoded.digest)).toBe(hashTypedData(MAIL));
    expect(decoded.policy).toEqual({
      primary_type: 'Mail',
      domain: { name: 'Ether Mail', version: '1', chain_id: 1n, verifying_contract: getAddress(MAIL.domain.verifyingContract) },
      message: {
        from: { name: 'Cow', wallet: MAIL.message.from.wallet },
        to: { name: 'Bob', wallet: MAIL.message.to.wallet },
        contents: 'Hello, Bob!',
      },
    });
  });

  it('reads integers of a permit as ints whether sent as numbers or strings', () => {
    const permit = {
      domain: { name: 'USD Coin', version: '2', chainId: '1', verifyingContract: TO },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: TO, value: '1000000000000000000000', deadline: 1700000000 },
    };
    expect(decodeTypedData(JSON.stringify(permit), 'payload').policy.message).toEqual({
      owner: getAddress(TO),
      value: 10n ** 21n,
      deadline: 1700000000n,
    });
  });

  it('refuses documents that are not typed data or do not match their types', () => {
    expect(() => decodeTypedData('nope', 'payload')).toThrow(/not JSON/);
    expect(() => decodeTypedData('[]', 'payload')).toThrow(/not a JSON object/);
    expect(() => decodeTypedData(JSON.stringify({ ...MAIL, types: { Mail: 'x' } }), 'payload')).toThrow(
      /types.Mail must be a list of \{name, type\}/,
    );
    expect(() => decodeTypedData(JSON.stringify({ ...MAIL, message: { ...MAIL.message, from: { name: 'Cow' } } }), 'payload')).toThrow(
      /message.from does not match its types: Person needs "wallet"/,
    );
  });
});

describe('eth.eip_7702_authorization', () => {
  it('hashes {address, chainId, nonce} as EIP-7702 does', () => {
    const decoded = decodeAuthorization(JSON.stringify({ address: TO, chainId: 1, nonce: 4 }), 'payload');
    expect(toHex(decoded.digest)).toBe(hashAuthorization({ address: TO, chainId: 1, nonce: 4 }));
    // keccak256(MAGIC 0x05 ‖ rlp([chain_id, address, nonce])), the RLP written out: a 23-byte list of 0x01, the address, 0x04.
    expect(toHex(decoded.digest)).toBe(keccak256(`0x05d70194${TO.slice(2)}04`));
    expect(decoded.policy).toEqual({ address: getAddress(TO), chain_id: 1n, nonce: 4n });
    expect(() => decodeAuthorization(JSON.stringify({ address: '0x12', chainId: 1, nonce: 0 }), 'payload')).toThrow(
      /"address" must be a 20-byte 0x address/,
    );
    expect(() => decodeAuthorization(JSON.stringify({ address: TO, chainId: -1, nonce: 0 }), 'payload')).toThrow(
      /"chainId" must be a non-negative integer/,
    );
  });
});
