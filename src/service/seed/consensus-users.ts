/**
 * The user ids a consensus expression names: the string literals it compares with an approver's `id` or a
 * credential's `user_id` (`approvers.any(user, user.id == '…')`, `credentials.all(c, c.user_id != '…')`,
 * `user.id in ['…', '…']`, `['…'].contains(user.id)`). A seed checks them against its users, since an id no approver
 * can have makes a policy that never matches anyone (or, with `!=`, everyone).
 */
import { childrenOf, logicalOperands, type Expression } from '../../shared/policy';

/** What a lambda's variable stands for: an approver, one of their credentials, or anything else. */
type Bound = 'user' | 'credential' | 'other';

/** The element kind of a list: `approvers` and `credentials`, also once filtered; any other list is 'other'. */
function elementsOf(list: Expression, scope: ReadonlyMap<string, Bound>): Bound {
  if (list.type === 'identifier' && !scope.has(list.name)) {
    if (list.name === 'approvers') return 'user';
    if (list.name === 'credentials') return 'credential';
  }
  if (list.type === 'lambda' && list.method === 'filter') return elementsOf(list.list, scope);
  return 'other';
}

/** Whether `node` reads a user's id: `<approver>.id` or `<credential>.user_id`. */
function isUserId(node: Expression, scope: ReadonlyMap<string, Bound>): boolean {
  if (node.type !== 'member') return false;
  const { object } = node;
  const bound: Bound =
    object.type === 'identifier' ? (scope.get(object.name) ?? 'other') : object.type === 'index' ? elementsOf(object.object, scope) : 'other';
  return (bound === 'user' && node.property === 'id') || (bound === 'credential' && node.property === 'user_id');
}

function stringsOf(list: Expression): string[] {
  return list.type === 'list' ? list.items.flatMap((item) => (item.type === 'string' ? [item.value] : [])) : [];
}

/** The user ids `consensus` (a checked consensus expression) compares approvers or credentials with, in order, each once. */
export function userIdsNamedBy(consensus: Expression): string[] {
  const named = new Set<string>();
  const visit = (node: Expression, scope: ReadonlyMap<string, Bound>): void => {
    if (node.type === 'comparison' && (node.operator === '==' || node.operator === '!=')) {
      const { left, right } = node;
      if (left.type === 'string' && isUserId(right, scope)) named.add(left.value);
      if (right.type === 'string' && isUserId(left, scope)) named.add(right.value);
    } else if ((node.type === 'in' || node.type === 'contains') && isUserId(node.value, scope)) {
      stringsOf(node.list).forEach((id) => named.add(id));
    }
    if (node.type === 'lambda') {
      visit(node.list, scope);
      visit(node.predicate, new Map(scope).set(node.variable, elementsOf(node.list, scope)));
      return;
    }
    // A long chain is one AST level per operator: walked as its operands, not recursively.
    for (const child of node.type === 'logical' ? logicalOperands(node) : childrenOf(node)) visit(child, scope);
  };
  visit(consensus, new Map());
  return [...named];
}
