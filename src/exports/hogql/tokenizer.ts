import { parseError } from './errors';

/**
 * - `word`: a bare identifier or keyword (ASCII letters, digits, `_`, `$`), kept as written.
 * - `quoted`: a backtick or double-quoted identifier, unescaped.
 * - `string`: a single-quoted literal, unescaped.
 * - `number`: decimal text, always matching NUMBER below (the compilers rely on that).
 * - `punct`: one of `, ( ) . [ ] ; *`.
 * - `op`: an operator; only comparisons are supported, the rest are tokenised so that the
 *   parser can say "operator '+' is not supported" rather than a bare syntax error.
 */
export type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'punct' | 'op' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  readonly value: string;
  readonly pos: number;
}

/** Far above any real export query; bounds the work an API caller can make us do. */
export const MAX_QUERY_LENGTH = 65_536;

const WORD_START = /[A-Za-z_$]/;
const WORD_PART = /[A-Za-z0-9_$]/;
const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const PUNCT = new Set([',', '(', ')', '.', '[', ']', ';', '*']);
// Longest first, so that `<=` is not read as `<` `=`.
const OPERATORS = ['<=>', '==', '!=', '<>', '<=', '>=', '||', '::', '->', '=~', '!~', '=', '<', '>', '+', '-', '/', '%', '?', ':', '!'];

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  '`': '`',
  n: '\n',
  r: '\r',
  t: '\t',
  '0': '\0',
  b: '\b',
  f: '\f',
  a: '\x07',
  v: '\v',
};

export function tokenize(query: string): Token[] {
  if (query.length > MAX_QUERY_LENGTH) {
    throw parseError(`query is longer than ${MAX_QUERY_LENGTH} characters`, null);
  }
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    // HogQL has comments, but a stored export query is re-printed canonically and comments would
    // be silently dropped; refusing them keeps what the user sees equal to what runs.
    if (query.startsWith('--', i) || query.startsWith('/*', i) || c === '#') {
      throw parseError('comments are not allowed', i);
    }
    if (c === '{' || c === '}') {
      throw parseError('placeholders are not supported', i);
    }
    if (c === "'" || c === '`' || c === '"') {
      const { value, end } = readQuoted(query, i);
      tokens.push({ kind: c === "'" ? 'string' : 'quoted', value, pos: i });
      i = end;
      continue;
    }
    const number = /\d/.test(c) || (c === '.' && /\d/.test(query[i + 1] ?? '')) ? NUMBER.exec(query.slice(i)) : null;
    if (number) {
      const end = i + number[0].length;
      if (end < query.length && WORD_PART.test(query[end])) {
        throw parseError(`invalid number '${query.slice(i, end + 1)}'`, i);
      }
      if (!Number.isFinite(Number(number[0]))) throw parseError(`number '${number[0]}' is out of range`, i);
      tokens.push({ kind: 'number', value: number[0], pos: i });
      i = end;
      continue;
    }
    if (WORD_START.test(c)) {
      let end = i + 1;
      while (end < query.length && WORD_PART.test(query[end])) end++;
      tokens.push({ kind: 'word', value: query.slice(i, end), pos: i });
      i = end;
      continue;
    }
    if (PUNCT.has(c)) {
      tokens.push({ kind: 'punct', value: c, pos: i });
      i++;
      continue;
    }
    const op = OPERATORS.find((candidate) => query.startsWith(candidate, i));
    if (op) {
      tokens.push({ kind: 'op', value: op, pos: i });
      i += op.length;
      continue;
    }
    throw parseError(`unexpected character ${JSON.stringify(c)}`, i);
  }
  tokens.push({ kind: 'eof', value: '', pos: query.length });
  return tokens;
}

/** Reads a quoted token starting at `start`; a doubled quote or a backslash escape stands for itself. */
function readQuoted(query: string, start: number): { value: string; end: number } {
  const quote = query[start];
  let value = '';
  let i = start + 1;
  while (i < query.length) {
    const c = query[i];
    if (c === quote) {
      if (query[i + 1] === quote) {
        value += quote;
        i += 2;
        continue;
      }
      return { value, end: i + 1 };
    }
    if (c === '\\') {
      const next = query[i + 1];
      const escaped = next === undefined ? undefined : ESCAPES[next];
      if (escaped === undefined) {
        throw parseError(`invalid escape sequence '\\${next ?? ''}'`, i);
      }
      value += escaped;
      i += 2;
      continue;
    }
    value += c;
    i++;
  }
  throw parseError(quote === "'" ? 'unterminated string literal' : 'unterminated quoted identifier', start);
}
