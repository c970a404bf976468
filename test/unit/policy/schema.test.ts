/**
 * The typed schema of the signing keywords (eth, solana, bitcoin, tron, tempo): a condition naming a field these
 * objects do not have is refused before it is stored, with the position and the fields that exist.
 */
import { describe, expect, it } from 'vitest';
import { checkPolicyExpression, PolicyParseError, TRANSACTION_ROOTS } from '../../../src/shared/policy';

function refusal(text: string): PolicyParseError {
  const result = checkPolicyExpression(text, 'condition');
  if (result.ok) throw new Error(`expected "${text}" to be refused`);
  return result.error;
}

describe('transaction keywords are typed', () => {
  it('refuses eth.tx.bogus_field with its position and the fields of EthereumTransaction', () => {
    const error = refusal("activity.action == 'SIGN' && eth.tx.bogus_field == 1");
    expect(error.code).toBe('POLICY_PARSE_ERROR');
    expect(error.span).toMatchObject({ line: 1, column: 37, length: 11 });
    expect(error.message).toMatch(/EthereumTransaction has no field 'bogus_field'; its fields are from, to, data, value, gas, gas_price, chain_id/);
    expect(error.details).toMatchObject({ found: 'bogus_field', column: 37 });
  });

  it('refuses unknown fields at every depth: typed-data domain, Solana transfers in a lambda, Bitcoin outputs', () => {
    expect(refusal('eth.eip_712.domain.chainId == 1').message).toMatch(
      /Eip712Domain has no field 'chainId'; its fields are name, version, chain_id, verifying_contract \(at 1:20\)/,
    );
    expect(refusal("solana.tx.transfers.all(t, t.recipient == 'x')").message).toMatch(
      /SolanaTransfer has no field 'recipient'; its fields are from, to, amount/,
    );
    expect(refusal('bitcoin.tx.outputs.any(o, o.amount > 5)').message).toMatch(/BitcoinOutput has no field 'amount'/);
    expect(refusal("eth.nonsense.to == 'x'").message).toMatch(/Ethereum has no field 'nonsense'; its fields are tx, eip_712, eip_7702_authorization/);
  });

  it('checks operand types against the schema', () => {
    expect(refusal("eth.tx.value < '10'").message).toMatch(/an operand of '<' must be a int or a timestamp, but this is a string/);
    expect(refusal('eth.tx.to > 1').message).toMatch(/must be a int or a timestamp, but this is a string/);
    expect(refusal('solana.tx.transfers.any(t, t.amount)').message).toMatch(/the predicate of any\(\) must be a bool, but this is a int/);
  });

  it('accepts what the documentation writes, and maps whose keys come from an ABI or IDL', () => {
    for (const text of [
      "eth.tx.to == '0xc0ffee' && eth.tx.data[0..10] == '0xa9059cbb' && eth.tx.value <= 1000",
      "eth.tx.function_name == 'transfer' && eth.tx.contract_call_args['to'] == '0xabc' && eth.tx.contract_call_args['amount'] < 5",
      "eth.tx.type == 'TYPE_2' && eth.tx.max_fee_per_gas < 100 && eth.tx.chain_id in [1, 10]",
      "eth.eip_712.primary_type == 'Permit' && eth.eip_712.domain.verifying_contract == '0x1' && eth.eip_712.message['spender'] == '0x2'",
      "eth.eip_7702_authorization.address == '0x3' && eth.eip_7702_authorization.chain_id == 1",
      "solana.tx.instructions.all(i, i.parsed_instruction_data.program_call_args['amount'] < 10 && i.accounts.all(a, a.signer || !a.writable))",
      "solana.tx.spl_transfers.all(t, t.token_mint == 'mint' && t.signers.count() == 0)",
      "bitcoin.tx.outputs.all(o, o.address == 'bc1q' && o.value < 100000) && bitcoin.tx.locktime.type == 'BLOCK'",
      "tron.tx.fee_limit < 10 && tempo.tx.calls.all(c, c.function_signature == 'transfer(address,uint256)')",
    ]) {
      const result = checkPolicyExpression(text, 'condition');
      expect(result.ok ? 'ok' : result.error.message, text).toBe('ok');
    }
  });

  it('exports the roots so an editor can list them', () => {
    expect(Object.keys(TRANSACTION_ROOTS)).toEqual(['eth', 'solana', 'tron', 'bitcoin', 'tempo']);
  });
});
