import type { ParsedQuery, SelectItemOf, ChainRef } from './ast';
import { joinError, missingFromError, notEventsError, parseError, subqueryError, unionError, unsupportedError } from './errors';
import { ExprParser } from './expr-parser';
import { tokenize } from './tokenizer';
import type { Token } from './tokenizer';
import { isBareName, TokenStream } from './token-stream';

const SET_OPERATORS = new Set(['UNION', 'EXCEPT', 'INTERSECT']);
const JOIN_WORDS = new Set(['JOIN', 'INNER', 'LEFT', 'RIGHT', 'FULL', 'CROSS', 'OUTER', 'ARRAY', 'ANY', 'ALL', 'ASOF', 'SEMI', 'ANTI', 'GLOBAL', 'PASTE']);
/** Clauses HogQL has and batch exports here refuse; the run itself owns ordering and bounds. */
const REFUSED_CLAUSES: Readonly<Record<string, string>> = {
  GROUP: 'GROUP BY',
  ORDER: 'ORDER BY',
  LIMIT: 'LIMIT',
  OFFSET: 'OFFSET',
  HAVING: 'HAVING',
  SETTINGS: 'SETTINGS',
  WINDOW: 'WINDOW',
  QUALIFY: 'QUALIFY',
  PREWHERE: 'PREWHERE',
  FORMAT: 'FORMAT',
  INTO: 'INTO',
  FINAL: 'FINAL',
  SAMPLE: 'SAMPLE',
};

/**
 * Parses `SELECT <expr> [AS <alias>], ... FROM events [[AS] <alias>] [WHERE <condition>] [;]`.
 *
 * One trailing semicolon is accepted (people paste queries from SQL consoles, and HogQL takes
 * it too); anything after it is refused as a second statement. Errors follow PostHog's order
 * where it has one: a UNION anywhere wins over every other complaint.
 */
export function parseQuery(query: string): ParsedQuery {
  const tokens = tokenize(query);
  rejectSetOperators(tokens);
  const s = new TokenStream(tokens);
  if (s.isKeyword('WITH')) throw subqueryError(s.peek().pos);
  if (s.isPunct('(') && (s.isKeyword('SELECT', 1) || s.isKeyword('WITH', 1))) throw subqueryError(s.peek().pos);
  if (!s.isKeyword('SELECT')) throw s.unexpected('only SELECT statements are supported: expected SELECT');
  s.next();
  if (s.isKeyword('DISTINCT')) throw unsupportedError('DISTINCT', s.peek().pos);

  const exprs = new ExprParser(s);
  const select: SelectItemOf<ChainRef>[] = [];
  do {
    if (s.isPunct('*')) throw unsupportedError('SELECT *', s.peek().pos);
    const expr = exprs.parseExpr();
    select.push({ expr, alias: s.acceptKeyword('AS') ? parseAlias(s) : null });
  } while (s.acceptPunct(','));

  if (!s.acceptKeyword('FROM')) {
    rejectRefusedClause(s);
    if (s.isKeyword('WHERE') || atEnd(s)) throw missingFromError();
    throw s.unexpected("expected ',' or FROM");
  }
  const tableAlias = parseFrom(s);
  const where = s.acceptKeyword('WHERE') ? exprs.parseExpr() : null;
  rejectRefusedClause(s);
  const semicolon = s.acceptPunct(';');
  if (s.peek().kind !== 'eof') {
    if (semicolon) throw parseError('multiple statements are not allowed', s.peek().pos);
    throw s.unexpected(where === null ? 'expected WHERE or end of query' : 'expected end of query');
  }
  return { select, tableAlias, where };
}

/** PostHog refuses a set query before looking at anything else; so do we, at any depth. */
function rejectSetOperators(tokens: readonly Token[]): void {
  const found = tokens.find(
    (token, i) =>
      token.kind === 'word' &&
      SET_OPERATORS.has(token.value.toUpperCase()) &&
      // `properties.union` names a property, not a set operation.
      !(tokens[i - 1]?.kind === 'punct' && tokens[i - 1]?.value === '.'),
  );
  if (found) throw unionError(found.pos);
}

function parseAlias(s: TokenStream): string {
  const token = s.peek();
  if (!(isBareName(token) || token.kind === 'quoted')) throw s.unexpected('expected an alias after AS');
  s.next();
  if (token.value === '') throw parseError('an alias must not be empty', token.pos);
  // Aliases never reach SQL text (columns get generated names), but they do reach file headers
  // and destination column names, where control characters only cause grief.
  if (/[\u0000-\u001f\u007f]/.test(token.value)) {
    throw parseError('an alias must not contain control characters', token.pos);
  }
  return token.value;
}

/** Parses the table after FROM; returns its alias, if any. */
function parseFrom(s: TokenStream): string | null {
  const start = s.peek();
  if (s.isPunct('(')) {
    if (s.isKeyword('SELECT', 1) || s.isKeyword('WITH', 1)) throw subqueryError(s.peek(1).pos);
    throw s.unexpected('expected a table name');
  }
  if (!(isBareName(start) || start.kind === 'quoted')) throw s.unexpected('expected a table name');
  const names = [s.next().value];
  while (s.acceptPunct('.')) {
    const part = s.next();
    if (part.kind !== 'word' && part.kind !== 'quoted') throw parseError("expected a name after '.'", part.pos);
    names.push(part.value);
  }
  if (s.isPunct('(')) throw notEventsError(`${names.join('.')}(...)`, start.pos);
  if (names.length !== 1 || names[0] !== 'events') throw notEventsError(names.join('.'), start.pos);

  let alias: string | null = null;
  if (s.acceptKeyword('AS') || isBareName(s.peek()) || s.peek().kind === 'quoted') {
    const token = s.next();
    if (!(isBareName(token) || token.kind === 'quoted') || token.value === '') {
      throw parseError('expected a table alias', token.pos);
    }
    alias = token.value;
  }
  const next = s.peek();
  if (s.isPunct(',') || (next.kind === 'word' && JOIN_WORDS.has(next.value.toUpperCase()))) throw joinError(next.pos);
  return alias;
}

function rejectRefusedClause(s: TokenStream): void {
  const token = s.peek();
  const clause = token.kind === 'word' ? REFUSED_CLAUSES[token.value.toUpperCase()] : undefined;
  if (clause !== undefined) throw unsupportedError(clause, token.pos);
}

function atEnd(s: TokenStream): boolean {
  return s.peek().kind === 'eof' || (s.isPunct(';') && s.peek(1).kind === 'eof');
}
