/**
 * The user ids a consensus expression names: the string literals it compares with an approver's `id` or a
 * credential's `user_id` (`approvers.any(user, user.id == '…')`, `credentials.all(c, c.user_id != '…')`,
 * `user.id in ['…', '…']`, `['…'].contains(user.id)`). A seed checks them against its users, since an id no approver
 * can have makes a policy that never matches anyone (or, with `!=`, everyone).
 */
import { logicalOperands, type Expression } from '../../shared/policy';

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
    switch (node.type) {
      case 'comparison': {
        const { left, right } = node;
        if ((node.operator === '==' || node.operator === '!=') && left.type === 'string' && isUserId(right, scope)) named.add(left.value);
        if ((node.operator === '==' || node.operator === '!=') && right.type === 'string' && isUserId(left, scope)) named.add(right.value);
        visit(left, scope);
        visit(right, scope);
        return;
      }
      case 'in':
        if (isUserId(node.value, scope)) stringsOf(node.list).forEach((id) => named.add(id));
        visit(node.value, scope);
        visit(node.list, scope);
        return;
      case 'contains':
        if (isUserId(node.value, scope)) stringsOf(node.list).forEach((id) => named.add(id));
        visit(node.list, scope);
        visit(node.value, scope);
        return;
      case 'lambda':
        visit(node.list, scope);
        visit(node.predicate, new Map(scope).set(node.variable, elementsOf(node.list, scope)));
        return;
      case 'logical':
        // A long chain is one AST level per operator: walked as its operands, not recursively.
        for (const operand of logicalOperands(node)) visit(operand, scope);
        return;
      case 'not':
        visit(node.operand, scope);
        return;
      case 'member':
        visit(node.object, scope);
        return;
      case 'index':
        visit(node.object, scope);
        visit(node.index, scope);
        return;
      case 'slice':
        visit(node.object, scope);
        visit(node.start, scope);
        visit(node.end, scope);
        return;
      case 'count':
        visit(node.list, scope);
        return;
      case 'list':
        node.items.forEach((item) => visit(item, scope));
        return;
      case 'bool':
      case 'int':
      case 'string':
      case 'timestamp':
      case 'cronSpan':
      case 'identifier':
        return;
    }
  };
  visit(consensus, new Map());
  return [...named];
}
