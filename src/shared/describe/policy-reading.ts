/**
 * A policy in words: its expressions as written, with each id literal given the name of the user, tag, wallet, private
 * key or policy it stands for, and each integer compared with a token amount read in that token's units beside its
 * base units. Main reads policies this way for every surface that shows one (the Policies list, an approval's policy
 * lines, the review of an update), so the window renders names and units without decoding anything.
 *
 * Amounts are read only where the expression says which token they count: `eth.tx.value` is wei (ETH); an ERC-20
 * call's `amount`/`value` argument is in the units of the contract the same `&&` names with `eth.tx.to == '0x…'`,
 * when that contract is on the known token list or declared by an operator (on the chain `eth.tx.chain_id ==` names,
 * or on every chain it is listed for if they agree); SOL transfers are lamports; an SPL transfer is in the units of
 * the `token_mint` its predicate names. Anything else stays in base units with a note saying why: decimals are never
 * guessed.
 */
import { btc, ether, sol, tokenAmount, UNKNOWN_TOKEN_SOURCE } from '../clear-signing/amounts';
import { KNOWN_TOKENS } from '../clear-signing/known-tokens';
import type { KnownToken } from '../clear-signing/types';
import { checkPolicyExpression, logicalOperands, tokenize, type Expression, type PolicyExpressionKind, type SourceSpan } from '../policy';
import type { OrganizationLookup } from './types';

/** What an id literal names. */
export type NamedKind = 'user' | 'tag' | 'wallet' | 'private key' | 'policy';

/** One piece of an expression as written; a literal piece may carry what it means. */
export interface ExpressionPiece {
  text: string;
  /** The name of what this id literal stands for. */
  name?: string | undefined;
  kind?: NamedKind | undefined;
  /** This base-unit integer in its token's units: "1,000 USDC". */
  units?: string | undefined;
  /** Where the units come from, or why there are no names or units. */
  note?: string | undefined;
}

/** What one literal means, by where it is in the text. */
export interface ExpressionGloss extends Omit<ExpressionPiece, 'text'> {
  offset: number;
  length: number;
}

export const UNKNOWN_ID_NOTE = 'no user, tag, wallet, private key or policy of this organization has this id';

/** Reads `text`, an expression of `kind`, against the organization. Empty text is no pieces. */
export function readPolicyExpression(text: string, kind: PolicyExpressionKind, lookup: OrganizationLookup): ExpressionPiece[] {
  if (text === '') return [];
  return piecesOf(text, policyGlosses(text, kind, lookup));
}

/**
 * What each literal of `text` means, by its position. An expression that does not check is read token by token: its
 * id literals still get names, but no amount is read from it.
 */
export function policyGlosses(text: string, kind: PolicyExpressionKind, lookup: OrganizationLookup): ExpressionGloss[] {
  const ids = idsOf(lookup);
  const checked = checkPolicyExpression(text, kind);
  if (!checked.ok) {
    try {
      return tokenize(text).flatMap((token) => (token.kind === 'string' ? idGloss(token.value, token.span, ids, false) : []));
    } catch {
      return [];
    }
  }
  const glosses: ExpressionGloss[] = [];
  new Reader(ids, tokensOf(lookup), glosses).read(checked.ast, { facts: new Map(), bound: new Map() });
  return glosses.sort((a, b) => a.offset - b.offset);
}

/** The text cut at the glossed literals, every character in exactly one piece. */
export function piecesOf(text: string, glosses: readonly ExpressionGloss[]): ExpressionPiece[] {
  const pieces: ExpressionPiece[] = [];
  let at = 0;
  for (const { offset, length, ...meaning } of glosses) {
    if (offset < at) continue;
    if (offset > at) pieces.push({ text: text.slice(at, offset) });
    pieces.push({ text: text.slice(offset, offset + length), ...meaning });
    at = offset + length;
  }
  if (at < text.length) pieces.push({ text: text.slice(at) });
  return pieces;
}

/** The pieces of the part of `text` at `span` (a sub-expression), read as the whole expression reads them. */
export function readPolicyPart(
  text: string,
  kind: PolicyExpressionKind,
  span: { offset: number; length: number },
  lookup: OrganizationLookup,
): ExpressionPiece[] {
  const end = span.offset + span.length;
  const within = policyGlosses(text, kind, lookup)
    .filter((gloss) => gloss.offset >= span.offset && gloss.offset + gloss.length <= end)
    .map((gloss) => ({ ...gloss, offset: gloss.offset - span.offset }));
  return piecesOf(text.slice(span.offset, end), within);
}

/** The pieces as one line of text, names and units in brackets: for surfaces that print text (a fact, the CLI). */
export function piecesInText(pieces: readonly ExpressionPiece[]): string {
  return pieces
    .map((piece) => {
      if (piece.name !== undefined) return `«${piece.kind} ${piece.name}»`;
      if (piece.units !== undefined) return `${piece.text} «${piece.units}»`;
      if (piece.note !== undefined) return `${piece.text} «${piece.note}»`;
      return piece.text;
    })
    .join('');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Ids = ReadonlyMap<string, { name: string; kind: NamedKind }>;

function idsOf(lookup: OrganizationLookup): Ids {
  const ids = new Map<string, { name: string; kind: NamedKind }>();
  const add = (id: string, name: string, kind: NamedKind) => ids.has(id) || ids.set(id, { name, kind });
  for (const user of lookup.users ?? []) add(user.userId, user.userName, 'user');
  for (const tag of lookup.tags ?? []) add(tag.tagId, tag.tagName, 'tag');
  for (const wallet of lookup.wallets ?? []) add(wallet.walletId, wallet.walletName, 'wallet');
  for (const key of lookup.privateKeys ?? []) add(key.privateKeyId, key.privateKeyName, 'private key');
  for (const policy of lookup.policies ?? []) add(policy.policyId, policy.policyName, 'policy');
  return ids;
}

/** A literal naming something the organization has; one where an id is expected (or shaped like one) but unknown, a note. */
function idGloss(value: string, span: SourceSpan, ids: Ids, idExpected: boolean): ExpressionGloss[] {
  const where = { offset: span.offset, length: span.length };
  const known = ids.get(value);
  if (known !== undefined) return [{ ...where, name: known.name, kind: known.kind }];
  return idExpected || UUID.test(value) ? [{ ...where, note: UNKNOWN_ID_NOTE }] : [];
}

function tokensOf(lookup: OrganizationLookup): readonly KnownToken[] {
  return [...KNOWN_TOKENS, ...(lookup.declaredTokens ?? [])];
}

/** The equalities the enclosing `&&`s state (`eth.tx.to == '0x…'`), by path, and the list each lambda variable walks. */
interface Scope {
  facts: ReadonlyMap<string, string | bigint>;
  bound: ReadonlyMap<string, string>;
}

/** ERC-20 argument names that count tokens: `transfer(to, amount)`, `transfer(_to, _value)`, WETH's `wad`. */
const TOKEN_ARGUMENTS = new Set(['amount', 'value', '_value', '_amount', 'wad']);
const CALL_ARGUMENTS = 'eth.tx.contract_call_args.';

class Reader {
  constructor(
    private readonly ids: Ids,
    private readonly tokens: readonly KnownToken[],
    private readonly glosses: ExpressionGloss[],
  ) {}

  read(node: Expression, scope: Scope): void {
    switch (node.type) {
      case 'logical': {
        const operands = logicalOperands(node);
        const inner =
          node.operator === '&&'
            ? { ...scope, facts: new Map([...scope.facts, ...operands.flatMap((operand) => this.fact(operand, scope))]) }
            : scope;
        for (const operand of operands) this.read(operand, inner);
        return;
      }
      case 'string':
        this.glosses.push(...idGloss(node.value, node.span, this.ids, false));
        return;
      case 'comparison':
        this.comparison(node.left, node.right, node.operator === '==' || node.operator === '!=', scope);
        this.comparison(node.right, node.left, node.operator === '==' || node.operator === '!=', scope);
        return;
      case 'in':
        if (node.list.type === 'list') {
          this.read(node.value, scope);
          for (const item of node.list.items) this.literal(item, this.pathOf(node.value, scope), true, scope);
        } else {
          this.member(node.value, node.list, scope);
        }
        return;
      case 'contains':
        this.member(node.value, node.list, scope);
        return;
      case 'lambda': {
        this.read(node.list, scope);
        const list = this.pathOf(node.list, scope);
        const bound = new Map(scope.bound);
        if (list === undefined) bound.delete(node.variable);
        else bound.set(node.variable, `${list}[]`);
        this.read(node.predicate, { ...scope, bound });
        return;
      }
      case 'not':
        this.read(node.operand, scope);
        return;
      case 'list':
        for (const item of node.items) this.read(item, scope);
        return;
      case 'member':
      case 'count':
        this.read(node.type === 'member' ? node.object : node.list, scope);
        return;
      case 'index':
      case 'slice':
        this.read(node.object, scope);
        return;
      default:
        return;
    }
  }

  /** `value in list` or `list.contains(value)`: a literal value is read as an element of the list's path. */
  private member(value: Expression, list: Expression, scope: Scope): void {
    this.read(list, scope);
    if (value.type === 'string' || value.type === 'int') this.literal(value, `${this.pathOf(list, scope) ?? ''}[]`, true, scope);
    else this.read(value, scope);
  }

  /** `path == literal` as a fact the rest of the `&&` may rely on. */
  private fact(node: Expression, scope: Scope): [string, string | bigint][] {
    if (node.type !== 'comparison' || node.operator !== '==') return [];
    for (const [path, literal] of [
      [node.left, node.right],
      [node.right, node.left],
    ] as const) {
      const name = this.pathOf(path, scope);
      if (name !== undefined && (literal.type === 'string' || literal.type === 'int')) return [[name, literal.value]];
    }
    return [];
  }

  /** One side of a comparison: read it, and gloss the other side if it is a literal the side's path explains. */
  private comparison(side: Expression, other: Expression, equality: boolean, scope: Scope): void {
    if (side.type !== 'string' && side.type !== 'int') this.read(side, scope);
    const path = this.pathOf(side, scope);
    if (path !== undefined) this.literal(other, path, equality, scope);
    else if (other.type === 'string') this.read(other, scope);
  }

  /** A literal read against `path`: an id where the path reads ids, an amount where it reads a token amount. */
  private literal(node: Expression, path: string | undefined, idContext: boolean, scope: Scope): void {
    if (node.type === 'string') {
      const idExpected = idContext && path !== undefined && /(?:^|\.)(?:id|\w+_id|tags\[\])$/.test(path);
      this.glosses.push(...idGloss(node.value, node.span, this.ids, idExpected));
    } else if (node.type === 'int' && path !== undefined) {
      const amount = this.amount(node.value, path, scope);
      if (amount !== undefined) this.glosses.push({ offset: node.span.offset, length: node.span.length, ...amount });
    }
  }

  private amount(raw: bigint, path: string, scope: Scope): Pick<ExpressionPiece, 'units' | 'note'> | undefined {
    if (path === 'eth.tx.value') return { units: ether(raw).text };
    if (path === 'solana.tx.transfers[].amount') return { units: sol(raw).text };
    if (path === 'bitcoin.tx.outputs[].value' || path === 'bitcoin.tx.inputs[].value') return { units: btc(raw).text };
    if (path.startsWith(CALL_ARGUMENTS) && TOKEN_ARGUMENTS.has(path.slice(CALL_ARGUMENTS.length))) {
      const contract = scope.facts.get('eth.tx.to');
      if (typeof contract !== 'string') return { note: 'base units: the condition names no token contract (eth.tx.to)' };
      const chainId = scope.facts.get('eth.tx.chain_id');
      const candidates = this.tokens.filter(
        (token) =>
          token.family === 'ethereum' &&
          token.address.toLowerCase() === contract.toLowerCase() &&
          (typeof chainId !== 'bigint' || BigInt(token.chainId) === chainId),
      );
      return this.inUnits(raw, candidates, contract);
    }
    if (path === 'solana.tx.spl_transfers[].amount') {
      const mint = scope.facts.get('solana.tx.spl_transfers[].token_mint');
      if (typeof mint !== 'string') return { note: 'base units: the condition names no token mint (token_mint)' };
      return this.inUnits(
        raw,
        this.tokens.filter((token) => token.family === 'solana' && token.address === mint),
        mint,
      );
    }
    return undefined;
  }

  /** Units when every listing of the token agrees on them; otherwise base units and why. */
  private inUnits(raw: bigint, candidates: readonly KnownToken[], address: string): Pick<ExpressionPiece, 'units' | 'note'> {
    const [first] = candidates;
    if (first === undefined) return { note: UNKNOWN_TOKEN_SOURCE };
    if (candidates.some((token) => token.decimals !== first.decimals || token.symbol !== first.symbol)) {
      return { note: `base units: ${address} is a different token on different chains; name the chain with eth.tx.chain_id` };
    }
    const declared = this.tokens.indexOf(first) >= KNOWN_TOKENS.length;
    const amount = tokenAmount(raw, { ...first, origin: declared ? 'declared by an operator' : 'known token list' });
    return { units: amount.text, ...(amount.source === undefined ? {} : { note: amount.source }) };
  }

  /** `eth.tx.contract_call_args['amount']` → `eth.tx.contract_call_args.amount`; a lambda variable → its list's `[]`. */
  private pathOf(node: Expression, scope: Scope): string | undefined {
    if (node.type === 'identifier') return scope.bound.get(node.name) ?? node.name;
    if (node.type === 'member') {
      const parent = this.pathOf(node.object, scope);
      return parent === undefined ? undefined : `${parent}.${node.property}`;
    }
    if (node.type === 'index' && node.index.type === 'string') {
      const parent = this.pathOf(node.object, scope);
      return parent === undefined ? undefined : `${parent}.${node.index.value}`;
    }
    return undefined;
  }
}
