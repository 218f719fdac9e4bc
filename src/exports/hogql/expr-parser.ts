import type { ChainRef, CompareOp, Literal, RawExpr } from './ast';
import { parseError, subqueryError, unsupportedError } from './errors';
import type { Token } from './tokenizer';
import { isBareName, TokenStream } from './token-stream';

/** Guards the recursion against `((((...))))` and `NOT NOT NOT ...` from an API caller. */
const MAX_DEPTH = 32;

const COMPARE_OPS: Readonly<Record<string, CompareOp>> = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

/** Valid HogQL after a value that this subset refuses; named so the error can say which. */
const UNSUPPORTED_AFTER_VALUE: Readonly<Record<string, string>> = {
  '+': "operator '+'",
  '-': "operator '-'",
  '*': "operator '*'",
  '/': "operator '/'",
  '%': "operator '%'",
  '||': "operator '||'",
  '::': "cast operator '::'",
  '?': 'the ternary operator',
  '[': 'array indexing',
  '=~': 'regular expression matching',
  '!~': 'regular expression matching',
  '<=>': "operator '<=>'",
  '->': 'lambdas',
};

const UNSUPPORTED_WORDS: Readonly<Record<string, string>> = {
  CASE: 'CASE',
  INTERVAL: 'INTERVAL',
  BETWEEN: 'BETWEEN',
};

/**
 * Precedence, loosest first: OR, AND, NOT, predicate (comparison / IN / LIKE / IS NULL), value.
 * Comparisons do not chain: `a = b = c` is a syntax error, as it is in ClickHouse.
 */
export class ExprParser {
  private depth = 0;

  constructor(private readonly stream: TokenStream) {}

  parseExpr(): RawExpr {
    return this.nested(() => this.parseOr());
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH) {
      throw parseError('expression is nested too deeply', this.stream.peek().pos);
    }
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private parseOr(): RawExpr {
    let left = this.parseAnd();
    while (this.stream.acceptKeyword('OR')) {
      left = { kind: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): RawExpr {
    let left = this.parseNot();
    while (this.stream.acceptKeyword('AND')) {
      left = { kind: 'and', left, right: this.parseNot() };
    }
    return left;
  }

  private parseNot(): RawExpr {
    if (this.stream.acceptKeyword('NOT')) {
      return { kind: 'not', operand: this.nested(() => this.parseNot()) };
    }
    return this.parsePredicate();
  }

  private parsePredicate(): RawExpr {
    const s = this.stream;
    const left = this.parseValue();
    const token = s.peek();
    const op = token.kind === 'op' ? COMPARE_OPS[token.value] : undefined;
    if (op !== undefined) {
      s.next();
      return { kind: 'compare', op, left, right: this.parseValue() };
    }
    if (s.isKeyword('BETWEEN') || (s.isKeyword('NOT') && s.isKeyword('BETWEEN', 1))) {
      throw unsupportedError('BETWEEN', s.peek().pos);
    }
    if (s.acceptKeyword('IS')) {
      const negated = s.acceptKeyword('NOT');
      s.expectKeyword('NULL');
      return { kind: 'isNull', negated, operand: left };
    }
    const negated = s.isKeyword('NOT') && (s.isKeyword('IN', 1) || s.isKeyword('LIKE', 1) || s.isKeyword('ILIKE', 1));
    if (negated) s.next();
    if (s.acceptKeyword('IN')) return { kind: 'in', negated, left, list: this.parseInList() };
    if (s.isKeyword('LIKE') || s.isKeyword('ILIKE')) {
      const caseInsensitive = s.next().value.toUpperCase() === 'ILIKE';
      const pattern = s.peek();
      if (pattern.kind !== 'string') {
        throw unsupportedError('a LIKE pattern other than a string literal', pattern.pos);
      }
      s.next();
      return { kind: 'like', negated, caseInsensitive, left, pattern: pattern.value };
    }
    if (negated) throw s.unexpected('expected IN, LIKE or ILIKE');
    return left;
  }

  private parseInList(): Literal[] {
    const s = this.stream;
    const open = s.expectPunct('(');
    if (s.isKeyword('SELECT') || s.isKeyword('WITH')) throw subqueryError(s.peek().pos);
    const list: Literal[] = [];
    do {
      const token = s.peek();
      const literal = this.parseLiteral();
      if (literal === null) throw unsupportedError('an IN list item other than a literal', token.pos);
      list.push(literal);
    } while (s.acceptPunct(','));
    s.expectPunct(')');
    const hasString = list.some((item) => item.kind === 'string');
    const hasNumber = list.some((item) => item.kind === 'number');
    if (hasString && hasNumber) throw unsupportedError('an IN list mixing strings and numbers', open.pos);
    return list;
  }

  /** A value: literal, parenthesised expression, function call or name. */
  private parseValue(): RawExpr {
    const value = this.parsePrimary();
    const token = this.stream.peek();
    const refused = token.kind === 'op' || token.kind === 'punct' ? UNSUPPORTED_AFTER_VALUE[token.value] : undefined;
    if (refused !== undefined) throw unsupportedError(refused, token.pos);
    return value;
  }

  private parsePrimary(): RawExpr {
    const s = this.stream;
    const token = s.peek();
    const literal = this.parseLiteral();
    if (literal !== null) return literal;
    if (s.acceptPunct('(')) {
      if (s.isKeyword('SELECT') || s.isKeyword('WITH')) throw subqueryError(s.peek().pos);
      const inner = this.parseExpr();
      if (s.isPunct(',')) throw unsupportedError('tuples', s.peek().pos);
      s.expectPunct(')');
      return inner;
    }
    if (token.kind === 'word' && UNSUPPORTED_WORDS[token.value.toUpperCase()] !== undefined) {
      throw unsupportedError(UNSUPPORTED_WORDS[token.value.toUpperCase()], token.pos);
    }
    if (token.kind === 'op' && UNSUPPORTED_AFTER_VALUE[token.value] !== undefined) {
      throw unsupportedError(UNSUPPORTED_AFTER_VALUE[token.value], token.pos);
    }
    if (token.kind === 'punct' && token.value === '[') throw unsupportedError('array literals', token.pos);
    if (token.kind === 'punct' && token.value === '*') throw unsupportedError('SELECT *', token.pos);
    if (isBareName(token) && s.isPunct('(', 1)) return this.parseCall();
    if (isBareName(token) || token.kind === 'quoted') return this.parseChain();
    throw s.unexpected('expected an expression');
  }

  /** A literal, or null (consuming nothing) when the next tokens are not one. */
  private parseLiteral(): Literal | null {
    const s = this.stream;
    const token = s.peek();
    if (token.kind === 'string') {
      s.next();
      return { kind: 'string', value: token.value };
    }
    if (token.kind === 'number') {
      s.next();
      return { kind: 'number', text: token.value };
    }
    if (token.kind === 'op' && token.value === '-' && s.peek(1).kind === 'number') {
      s.next();
      return { kind: 'number', text: `-${s.next().value}` };
    }
    if (s.acceptKeyword('NULL')) return { kind: 'null' };
    if (s.acceptKeyword('TRUE')) return { kind: 'boolean', value: true };
    if (s.acceptKeyword('FALSE')) return { kind: 'boolean', value: false };
    return null;
  }

  private parseCall(): RawExpr {
    const s = this.stream;
    const name = s.next();
    s.expectPunct('(');
    if (s.isKeyword('DISTINCT')) throw unsupportedError('DISTINCT', s.peek().pos);
    if (s.isKeyword('SELECT') || s.isKeyword('WITH')) throw subqueryError(s.peek().pos);
    const args: RawExpr[] = [];
    if (!s.isPunct(')')) {
      do {
        args.push(this.nested(() => this.parseExpr()));
      } while (s.acceptPunct(','));
    }
    s.expectPunct(')');
    if (s.isPunct('(')) throw unsupportedError('parametric functions', s.peek().pos);
    return { kind: 'call', name: name.value, args, pos: name.pos };
  }

  private parseChain(): ChainRef {
    const s = this.stream;
    const first = s.next();
    const chain = [first.value];
    for (;;) {
      if (s.acceptPunct('.')) {
        chain.push(this.parseChainPart(s.next()));
      } else if (s.isPunct('[') && s.peek(1).kind === 'string' && s.isPunct(']', 2)) {
        s.next();
        chain.push(s.next().value);
        s.next();
      } else {
        return { kind: 'chain', chain, pos: first.pos };
      }
    }
  }

  /** After a dot any word is a name, keywords included: `properties.select` is a property. */
  private parseChainPart(token: Token): string {
    if (token.kind === 'word' || token.kind === 'quoted') return token.value;
    if (token.kind === 'number') throw unsupportedError('array indexing', token.pos);
    throw parseError('expected a name after \'.\'', token.pos);
  }
}
