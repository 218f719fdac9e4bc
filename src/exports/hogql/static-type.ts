import type { Expr, ExprOf } from './ast';
import { FIELD_TYPES } from './catalog';
import type { StaticType } from './catalog';

/** Does this node produce a truth value on both dialects (SQLite 0/1, ClickHouse UInt8)? */
export function isCondition<L extends { readonly kind: string }>(expr: ExprOf<L>): boolean {
  switch (expr.kind) {
    case 'compare':
    case 'in':
    case 'like':
    case 'isNull':
    case 'and':
    case 'or':
    case 'not':
    case 'boolean':
      return true;
    default:
      return false;
  }
}

export function typeOf(expr: Expr): StaticType {
  switch (expr.kind) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'null':
      return 'null';
    case 'field':
      return FIELD_TYPES[expr.name];
    case 'property':
      return 'json';
    case 'call':
      switch (expr.name) {
        case 'toInt':
        case 'toFloat':
        case 'length':
          return 'number';
        case 'coalesce':
          return expr.args.map(typeOf).find((type) => type !== 'null') ?? 'null';
        default:
          return 'string';
      }
    default:
      return 'bool';
  }
}

/**
 * Comparing text with a number must not depend on the engine: SQLite would compare by storage
 * class (text is never equal to a number) and ClickHouse 18.16 refuses String vs UInt8 outright.
 * So the text side is converted with the dialect's null-on-failure toFloat.
 */
export function needsNumericCoercion(side: Expr, other: StaticType): boolean {
  const type = typeOf(side);
  return other === 'number' && (type === 'string' || type === 'json');
}
