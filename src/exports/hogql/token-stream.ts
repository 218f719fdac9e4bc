import { parseError } from './errors';
import type { HogQLError } from './errors';
import type { Token } from './tokenizer';

/**
 * Words that never name a column here. Recognising them lets the parser report "GROUP BY is not
 * supported" or "JOINs are not supported" instead of a bare syntax error.
 */
export const RESERVED = new Set([
  'ALL', 'AND', 'ANTI', 'ANY', 'ARRAY', 'AS', 'ASOF', 'BETWEEN', 'BY', 'CASE', 'CROSS', 'DISTINCT', 'ELSE', 'END',
  'EXCEPT', 'FALSE', 'FINAL', 'FORMAT', 'FROM', 'FULL', 'GLOBAL', 'GROUP', 'HAVING', 'ILIKE', 'IN', 'INNER',
  'INTERSECT', 'INTERVAL', 'INTO', 'IS', 'JOIN', 'LEFT', 'LIKE', 'LIMIT', 'NOT', 'NULL', 'OFFSET', 'ON', 'OR',
  'ORDER', 'OUTER', 'PASTE', 'PREWHERE', 'QUALIFY', 'RIGHT', 'SAMPLE', 'SELECT', 'SEMI', 'SETTINGS', 'THEN',
  'TRUE', 'UNION', 'USING', 'WHEN', 'WHERE', 'WINDOW', 'WITH',
]);

export class TokenStream {
  private index = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)];
  }

  next(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.index++;
    return token;
  }

  /** Is the current token the keyword `word` (case-insensitive)? */
  isKeyword(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'word' && token.value.toUpperCase() === word;
  }

  isPunct(value: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'punct' && token.value === value;
  }

  acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.index++;
    return true;
  }

  acceptPunct(value: string): boolean {
    if (!this.isPunct(value)) return false;
    this.index++;
    return true;
  }

  expectKeyword(word: string): Token {
    if (!this.isKeyword(word)) throw this.unexpected(`expected ${word}`);
    return this.next();
  }

  expectPunct(value: string): Token {
    if (!this.isPunct(value)) throw this.unexpected(`expected '${value}'`);
    return this.next();
  }

  unexpected(expectation: string): HogQLError {
    const token = this.peek();
    const found = token.kind === 'eof' ? 'end of query' : `'${token.value}'`;
    return parseError(`${expectation}, found ${found}`, token.pos);
  }
}

/** Is this token a plain word that is not reserved, i.e. usable as a bare name? */
export function isBareName(token: Token): boolean {
  return token.kind === 'word' && !RESERVED.has(token.value.toUpperCase());
}
