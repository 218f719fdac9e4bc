import type { Literal, ParsedQuery, RawExpr } from './ast';
import { RESERVED } from './token-stream';

/**
 * The canonical text of a parsed query, stored as `schema.hogql_query`: upper-case keywords,
 * single spaces, infix operators, parentheses only where precedence needs them. For a plainly
 * written query this is the input with its whitespace collapsed, which is what PostHog stores.
 * `parseQuery(printQuery(q))` gives back `q` (the property tests check it), so the stored text
 * can be re-compiled on every run.
 */
export function printQuery(query: ParsedQuery): string {
  const items = query.select.map((item) => printExpr(item.expr) + (item.alias === null ? '' : ` AS ${identifier(item.alias)}`));
  let text = `SELECT ${items.join(', ')} FROM events`;
  if (query.tableAlias !== null) text += ` AS ${identifier(query.tableAlias)}`;
  if (query.where !== null) text += ` WHERE ${printExpr(query.where)}`;
  return text;
}

// Binding strength, loosest first; mirrors the parser's precedence.
const OR = 1;
const AND = 2;
const NOT = 3;
const PREDICATE = 4;
const VALUE = 5;

function level(expr: RawExpr): number {
  switch (expr.kind) {
    case 'or':
      return OR;
    case 'and':
      return AND;
    case 'not':
      return NOT;
    case 'compare':
    case 'in':
    case 'like':
    case 'isNull':
      return PREDICATE;
    default:
      return VALUE;
  }
}

export function printExpr(expr: RawExpr, minLevel = OR): string {
  const text = printBare(expr);
  return level(expr) < minLevel ? `(${text})` : text;
}

function printBare(expr: RawExpr): string {
  switch (expr.kind) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return printLiteral(expr);
    case 'chain':
      return expr.chain.map((part, i) => (i > 0 && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(part) ? part : identifier(part))).join('.');
    case 'call':
      return `${expr.name}(${expr.args.map((arg) => printExpr(arg)).join(', ')})`;
    case 'compare':
      return `${printExpr(expr.left, VALUE)} ${expr.op} ${printExpr(expr.right, VALUE)}`;
    case 'in':
      return `${printExpr(expr.left, VALUE)} ${expr.negated ? 'NOT IN' : 'IN'} (${expr.list.map(printLiteral).join(', ')})`;
    case 'like':
      return `${printExpr(expr.left, VALUE)} ${expr.negated ? 'NOT ' : ''}${expr.caseInsensitive ? 'ILIKE' : 'LIKE'} ${quote(expr.pattern, "'")}`;
    case 'isNull':
      return `${printExpr(expr.operand, VALUE)} IS ${expr.negated ? 'NOT NULL' : 'NULL'}`;
    case 'or':
      return `${printExpr(expr.left, OR)} OR ${printExpr(expr.right, AND)}`;
    case 'and':
      return `${printExpr(expr.left, AND)} AND ${printExpr(expr.right, NOT)}`;
    case 'not':
      return `NOT ${printExpr(expr.operand, NOT)}`;
  }
}

function printLiteral(literal: Literal): string {
  switch (literal.kind) {
    case 'string':
      return quote(literal.value, "'");
    case 'number':
      return literal.text;
    case 'boolean':
      return literal.value ? 'true' : 'false';
    case 'null':
      return 'NULL';
  }
}

/** A bare identifier when it would read back as the same name, otherwise backtick-quoted. */
export function identifier(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) && !RESERVED.has(name.toUpperCase()) ? name : quote(name, '`');
}

const CONTROL_ESCAPES: Readonly<Record<string, string>> = {
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
  '\x07': '\\a',
};

/** HogQL quoting: backslash escapes, one escape per character the tokenizer treats specially. */
export function quote(value: string, quoteChar: "'" | '`'): string {
  let out = quoteChar;
  for (const c of value) {
    if (c === '\\' || c === quoteChar) out += `\\${c}`;
    else out += CONTROL_ESCAPES[c] ?? c;
  }
  return out + quoteChar;
}
