import type { BatchExportQuery, ChainRef, Expr, FieldRef, ParsedQuery, PropertyRef, RawExpr, ResolvedColumn } from './ast';
import { findFunction, isEventField, JSON_SOURCES } from './catalog';
import { arityError, unresolvedFieldError, unsupportedError, unsupportedFunctionError } from './errors';
import { defaultAlias, PostHogPrinter } from './posthog-print';
import { isCondition } from './static-type';

/** Deeper paths are almost surely mistakes, and each level grows the ClickHouse expression. */
const MAX_PROPERTY_DEPTH = 16;

/**
 * Turns names into fields and property paths, checks functions against the whitelist, and names
 * every output column. Also enforces that AND / OR / NOT / WHERE get conditions: ClickHouse
 * refuses a String there, SQLite would silently coerce, and the two must not disagree.
 */
export function resolveQuery(parsed: ParsedQuery): BatchExportQuery {
  const resolver = new Resolver(parsed.tableAlias);
  const columns: ResolvedColumn[] = [];
  const seen = new Set<string>();
  // One printer for all columns, as in PostHog: a default alias embeds placeholder numbers.
  const printer = new PostHogPrinter();
  for (const item of parsed.select) {
    const expr = resolver.resolve(item.expr);
    const printed = printer.print(expr);
    const alias = item.alias ?? defaultAlias(expr, printed);
    if (seen.has(alias)) throw unsupportedError(`the duplicate column name '${alias}'`, null);
    seen.add(alias);
    columns.push({ expr, alias });
  }
  let where: Expr | null = null;
  if (parsed.where !== null) {
    where = resolver.resolve(parsed.where);
    if (!isCondition(where)) throw unsupportedError('a WHERE clause that is not a condition', null);
  }
  return { columns, where, parsed };
}

class Resolver {
  constructor(private readonly tableAlias: string | null) {}

  resolve(expr: RawExpr): Expr {
    switch (expr.kind) {
      case 'string':
      case 'number':
      case 'boolean':
      case 'null':
        return expr;
      case 'chain':
        return this.chain(expr);
      case 'call':
        return this.call(expr.name, expr.args, expr.pos);
      case 'compare':
        return { kind: 'compare', op: expr.op, left: this.resolve(expr.left), right: this.resolve(expr.right) };
      case 'in':
        return { kind: 'in', negated: expr.negated, left: this.resolve(expr.left), list: expr.list };
      case 'like':
        return { ...expr, left: this.resolve(expr.left) };
      case 'isNull':
        return { kind: 'isNull', negated: expr.negated, operand: this.resolve(expr.operand) };
      case 'and':
      case 'or':
        return { kind: expr.kind, left: this.condition(expr.left, expr.kind), right: this.condition(expr.right, expr.kind) };
      case 'not':
        return { kind: 'not', operand: this.condition(expr.operand, 'not') };
    }
  }

  private condition(expr: RawExpr, operator: 'and' | 'or' | 'not'): Expr {
    const resolved = this.resolve(expr);
    if (!isCondition(resolved)) {
      throw unsupportedError(`an operand of ${operator.toUpperCase()} that is not a condition`, null);
    }
    return resolved;
  }

  private call(name: string, rawArgs: readonly RawExpr[], pos: number): Expr {
    const spec = findFunction(name);
    if (spec === undefined) throw unsupportedFunctionError(name, pos);
    const found = rawArgs.length;
    if (found < spec.minArgs || (spec.maxArgs !== null && found > spec.maxArgs)) {
      throw arityError(spec.name, spec.minArgs, spec.maxArgs, found, pos);
    }
    return { kind: 'call', name: spec.name, args: rawArgs.map((arg) => this.resolve(arg)), pos };
  }

  private chain(ref: ChainRef): FieldRef | PropertyRef {
    let chain = ref.chain;
    if (chain.length > 1 && (chain[0] === 'events' || chain[0] === this.tableAlias)) chain = chain.slice(1);
    const [head, ...rest] = chain;
    if (rest.length === 0 && isEventField(head)) return { kind: 'field', name: head };
    // PostHog's persons-on-events mode reads `person.properties` from the event's own copy.
    if (head === 'person' && rest[0] === 'id' && rest.length === 1) return { kind: 'field', name: 'person_id' };
    if (head === 'person' && rest[0] === 'properties') {
      return rest.length === 1 ? { kind: 'field', name: 'person_properties' } : this.property('person_properties', rest.slice(1), ref);
    }
    const source = JSON_SOURCES.find((name) => name === head);
    if (source !== undefined && rest.length > 0) return this.property(source, rest, ref);
    throw unresolvedFieldError(chain.join('.'), ref.pos);
  }

  private property(source: PropertyRef['source'], path: readonly string[], ref: ChainRef): PropertyRef {
    if (path.length > MAX_PROPERTY_DEPTH) {
      throw unsupportedError(`a property path deeper than ${MAX_PROPERTY_DEPTH}`, ref.pos);
    }
    return { kind: 'property', source, path };
  }
}
