import type { CompareOp, Expr } from './ast';

/**
 * Prints a resolved expression the way PostHog's HogQL printer does for the ClickHouse dialect,
 * for the `schema.fields[].expression` that PostHog stores on a batch export. String values go
 * into `values` as `%(hogql_val_N)s` placeholders, exactly as PostHog does.
 *
 * This text is informational (it is what a PostHog client expects to read back); the queries
 * this service runs come from the dialect compilers, never from this string.
 */
export class PostHogPrinter {
  readonly values: Record<string, string> = {};
  private count = 0;

  print(expr: Expr): string {
    switch (expr.kind) {
      case 'field':
        return `events.${expr.name}`;
      case 'property': {
        const keys = expr.path.map((key) => this.value(key)).join(', ');
        return `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(events.${expr.source}, ${keys}), ''), 'null'), '^"|"$', '')`;
      }
      case 'string':
        return this.value(expr.value);
      case 'number':
        return expr.text;
      case 'boolean':
        return expr.value ? '1' : '0';
      case 'null':
        return 'NULL';
      case 'call':
        return this.call(expr.name, expr.args);
      case 'compare':
        return `${COMPARE_FUNCTIONS[expr.op]}(${this.print(expr.left)}, ${this.print(expr.right)})`;
      case 'in':
        return `${expr.negated ? 'notIn' : 'in'}(${this.print(expr.left)}, tuple(${expr.list.map((item) => this.print(item)).join(', ')}))`;
      case 'like': {
        const name = LIKE_FUNCTIONS[expr.negated ? 1 : 0][expr.caseInsensitive ? 1 : 0];
        return `${name}(${this.print(expr.left)}, ${this.value(expr.pattern)})`;
      }
      case 'isNull':
        return `${expr.negated ? 'isNotNull' : 'isNull'}(${this.print(expr.operand)})`;
      case 'and':
      case 'or':
        // HogQL keeps `a AND b AND c` as one n-ary node.
        return `${expr.kind}(${flatten(expr, expr.kind).map((item) => this.print(item)).join(', ')})`;
      case 'not':
        return `not(${this.print(expr.operand)})`;
    }
  }

  private call(name: string, args: readonly Expr[]): string {
    const printed = args.map((arg) => this.print(arg));
    if (name === 'toInt' || name === 'toFloat') {
      return `accurateCastOrNull(${printed[0]}, ${this.value(name === 'toInt' ? 'Int64' : 'Float64')})`;
    }
    return `${name}(${printed.join(', ')})`;
  }

  private value(value: string): string {
    const key = `hogql_val_${this.count++}`;
    this.values[key] = value;
    return `%(${key})s`;
  }
}

const COMPARE_FUNCTIONS: Readonly<Record<CompareOp, string>> = {
  '=': 'equals',
  '!=': 'notEquals',
  '<': 'less',
  '<=': 'lessOrEquals',
  '>': 'greater',
  '>=': 'greaterOrEquals',
};

const LIKE_FUNCTIONS = [
  ['like', 'ilike'],
  ['notLike', 'notILike'],
] as const;

function flatten(expr: Expr, kind: 'and' | 'or'): Expr[] {
  if (expr.kind !== kind) return [expr];
  return [...flatten(expr.left, kind), ...flatten(expr.right, kind)];
}

/**
 * PostHog's column name for an unaliased select item: a field keeps its name (its resolver adds
 * that alias), a constant is named after itself, anything else is named by its printed expression.
 */
export function defaultAlias(expr: Expr, printedExpression: string): string {
  switch (expr.kind) {
    case 'field':
      return expr.name;
    case 'string':
      return expr.value;
    case 'number':
      return `\`${expr.text}\``;
    case 'boolean':
      return expr.value ? '`1`' : '`0`';
    case 'null':
      return 'NULL';
    default:
      return printedExpression;
  }
}
