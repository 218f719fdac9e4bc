import type { BatchExportQuery, EventField, Expr, FunctionName, JsonSource, Literal } from './ast';
import { COLUMN_PREFIX } from './binder';
import type { Binder } from './binder';
import { FIELD_TYPES, findFunction } from './catalog';
import type { StaticType } from './catalog';
import { unsupportedFunctionError } from './errors';
import { isCondition, needsNumericCoercion, typeOf } from './static-type';

/** What differs between SQL engines; everything else is shared by `compileWith`. */
export interface Dialect {
  field(name: EventField): string;
  property(source: JsonSource, path: readonly string[], binder: Binder): string;
  /** Text to number, NULL when the text is not a number (both engines must agree on that). */
  toFloat(sql: string): string;
  call(name: FunctionName, args: readonly string[]): string;
  like(left: string, pattern: string, caseInsensitive: boolean, negated: boolean, binder: Binder): string;
  isNull(operand: string, negated: boolean): string;
  /**
   * `=` / `!=` between two non-literal operands, where NULL equals NULL (as in HogQL). Each
   * operand must appear once in the result: repeating them would double the SQL at every level
   * of nesting, and an API caller could then make it exponentially large.
   */
  nullSafeEquals(left: string, right: string, negated: boolean): string;
  /** A truth literal. */
  bool(value: boolean): string;
  /**
   * `condition`, or `value` where it is NULL: HogQL's two-valued comparisons. Where SQL would
   * yield NULL (an operand is NULL), a positive comparison is false and a negative one (!=, NOT
   * IN, NOT LIKE) is true, so `NOT (x = 'a')` keeps the rows where x is missing, as in PostHog.
   * The engines then agree, and AND / OR / NOT never see NULL.
   */
  conditionOr(condition: string, value: boolean): string;
  /**
   * A condition where a value is expected (an output column, a function argument, an operand):
   * 1 or 0, as SQLite and ClickHouse give it; engines with a boolean type convert.
   */
  conditionValue(condition: string): string;
  /**
   * A property as an output column, for engines whose `property` cannot keep the JSON value's
   * type: its JSON text, which the reader decodes (see CompiledColumn.decode).
   */
  propertyColumn?(source: JsonSource, path: readonly string[], binder: Binder): string;
}

/** Truth as SQLite and ClickHouse have it: integers 1 and 0. */
export const integerTruth: Pick<Dialect, 'bool' | 'conditionOr' | 'conditionValue'> = {
  bool: (value) => (value ? '1' : '0'),
  conditionOr: (condition, value) => `coalesce(${condition}, ${value ? 1 : 0})`,
  conditionValue: (condition) => condition,
};

export interface CompiledColumn {
  /** The output column name the export writes (explicit alias or PostHog's default). */
  readonly alias: string;
  /**
   * The column's name in the SQL result. Generated, never the user's alias: on ClickHouse an
   * alias named like a column replaces that column everywhere in the query, so `2 AS team_id`
   * would turn the caller's `WHERE team_id = 2` into `WHERE 2 = 2` and leak other teams' rows.
   */
  readonly name: string;
  /** The column's SQL expression (also present in `select`). */
  readonly expression: string;
  /**
   * How the reader turns the column's value into the exported one: `json`, a whole JSON field
   * (text, exported as the object); `jsonScalar`, a property as JSON text (the dialect's
   * propertyColumn), exported as SQLite's json_extract gives it; null, as it comes.
   */
  readonly decode: 'json' | 'jsonScalar' | null;
}

export interface CompiledQuery<P> {
  /** The SELECT list: `<expression> AS hogql_c0, ...`. */
  readonly select: string;
  /** A self-contained condition (a call or parenthesised) to AND with the caller's own filters, or null. */
  readonly where: string | null;
  readonly params: P;
  readonly columns: readonly CompiledColumn[];
}

export function compileWith<P>(query: BatchExportQuery, dialect: Dialect, binder: Binder & { readonly params: P }): CompiledQuery<P> {
  const compiler = new ExprCompiler(dialect, binder);
  const columns = query.columns.map((column, i): CompiledColumn => {
    const { expr } = column;
    const raw = expr.kind === 'property' && dialect.propertyColumn !== undefined;
    return {
      alias: column.alias,
      name: `${COLUMN_PREFIX}${i}`,
      expression: raw ? dialect.propertyColumn!(expr.source, expr.path, binder) : compiler.value(expr),
      decode: raw ? 'jsonScalar' : expr.kind === 'field' && FIELD_TYPES[expr.name] === 'json' ? 'json' : null,
    };
  });
  return {
    select: columns.map((column) => `${column.expression} AS ${column.name}`).join(', '),
    where: query.where === null ? null : compiler.compile(query.where),
    params: binder.params,
    columns,
  };
}

class ExprCompiler {
  constructor(
    private readonly dialect: Dialect,
    private readonly binder: Binder,
  ) {}

  compile(expr: Expr): string {
    const d = this.dialect;
    switch (expr.kind) {
      case 'string':
      case 'number':
      case 'boolean':
      case 'null':
        return this.literal(expr);
      case 'field':
        return d.field(expr.name);
      case 'property':
        return d.property(expr.source, expr.path, this.binder);
      case 'call': {
        const spec = findFunction(expr.name);
        // Resolution already refused unknown names; this only guards hand-built trees.
        if (spec === undefined) throw unsupportedFunctionError(expr.name, expr.pos);
        return d.call(spec.name, expr.args.map((arg) => this.value(arg)));
      }
      case 'compare': {
        // HogQL reads `x = NULL` as a null check; SQL would make it NULL (never true).
        if ((expr.op === '=' || expr.op === '!=') && (expr.left.kind === 'null' || expr.right.kind === 'null')) {
          const operand = expr.left.kind === 'null' ? expr.right : expr.left;
          return d.isNull(this.compile(operand), expr.op === '!=');
        }
        const left = this.operand(expr.left, typeOf(expr.right));
        const right = this.operand(expr.right, typeOf(expr.left));
        if ((expr.op === '=' || expr.op === '!=') && !isLiteral(expr.left) && !isLiteral(expr.right)) {
          return d.nullSafeEquals(left, right, expr.op === '!=');
        }
        return d.conditionOr(`(${left} ${expr.op} ${right})`, expr.op === '!=');
      }
      case 'in': {
        const listType = expr.list.some((item) => item.kind === 'number') ? 'number' : 'string';
        const items = expr.list.map((item) => this.literal(item)).join(', ');
        return d.conditionOr(`(${this.operand(expr.left, listType)} ${expr.negated ? 'NOT IN' : 'IN'} (${items}))`, expr.negated);
      }
      case 'like':
        return d.conditionOr(d.like(this.value(expr.left), expr.pattern, expr.caseInsensitive, expr.negated, this.binder), expr.negated);
      case 'isNull':
        return d.isNull(this.value(expr.operand), expr.negated);
      case 'and':
        return `(${this.compile(expr.left)} AND ${this.compile(expr.right)})`;
      case 'or':
        return `(${this.compile(expr.left)} OR ${this.compile(expr.right)})`;
      case 'not':
        return `(NOT ${this.compile(expr.operand)})`;
    }
  }

  /** `expr` where a value is expected. */
  value(expr: Expr): string {
    return isCondition(expr) ? this.dialect.conditionValue(this.compile(expr)) : this.compile(expr);
  }

  private operand(expr: Expr, otherType: StaticType): string {
    const sql = this.value(expr);
    return needsNumericCoercion(expr, otherType) ? this.dialect.toFloat(sql) : sql;
  }

  private literal(literal: Literal): string {
    switch (literal.kind) {
      case 'string':
        return this.binder.string(literal.value);
      case 'number':
        return this.binder.number(literal.text);
      case 'boolean':
        return this.dialect.bool(literal.value);
      case 'null':
        return 'NULL';
    }
  }
}

function isLiteral(expr: Expr): boolean {
  return expr.kind === 'string' || expr.kind === 'number' || expr.kind === 'boolean' || expr.kind === 'null';
}
