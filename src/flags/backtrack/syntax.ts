import { POSIX, caseless, fold, isDigit, isHex, isSpace, isWord, unicodeProperty, type CharTest } from './classes';

/**
 * Parser for the pattern syntax of PostHog's flags service (Rust `fancy-regex`): the ordinary
 * Rust regex syntax (nested classes and class set operations included) plus lookahead `(?=…)`
 * `(?!…)`, lookbehind `(?<=…)` `(?<!…)` (constant length, or an alternation of constant-length
 * branches), atomic groups `(?>…)` and possessive quantifiers `a++`, backreferences `\1`,
 * `\k<name>`, `\k<-1>`, `(?P=name)`, conditionals `(?(1)yes|no)`, comments `(?#…)` and the escapes
 * `\h \H \e \O \Z \K \G`. Inline flags `i`, `m`, `s`, `x`, `U`. Anything else (other flags, subroutine
 * calls, conditions other than a group) is refused: an unsupported pattern is an invalid one,
 * which matches nothing.
 */
export type Node =
  | { t: 'empty' }
  | { t: 'char'; cp: number; ci: boolean }
  | { t: 'any'; newline: boolean }
  | { t: 'class'; test: CharTest }
  | { t: 'assert'; kind: AssertKind }
  | { t: 'group'; index: number | null; body: Node }
  | { t: 'concat'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'repeat'; body: Node; min: number; max: number; greedy: boolean }
  | { t: 'look'; behind: boolean; negate: boolean; body: Node }
  | { t: 'atomic'; body: Node }
  | { t: 'backref'; group: number; ci: boolean }
  | { t: 'cond'; group: number; yes: Node; no: Node };

export type AssertKind = 'textStart' | 'textEnd' | 'textEndNewlines' | 'lineStart' | 'lineEnd' | 'word' | 'notWord';

export interface Parsed {
  root: Node;
  groups: number;
}

export class PatternError extends Error {}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  /** Verbose: whitespace and `#` comments outside classes are ignored. */
  x: boolean;
  /** Swap greed: `*` is lazy and `*?` greedy. */
  U: boolean;
}

const MAX_COUNT = 10_000;
const MAX_DEPTH = 100;

class Parser {
  private pos = 0;
  private groups = 0;
  private depth = 0;
  private readonly names = new Map<string, number>();
  private readonly namedRefs: { node: { group: number }; name: string }[] = [];

  constructor(private readonly src: number[]) {}

  parse(): Parsed {
    const root = this.alternation({ i: false, m: false, s: false, x: false, U: false });
    if (this.pos < this.src.length) throw new PatternError('unbalanced )');
    for (const ref of this.namedRefs) {
      const group = this.names.get(ref.name);
      if (group === undefined) throw new PatternError('unknown group name');
      ref.node.group = group;
    }
    return { root, groups: this.groups };
  }

  private peek(offset = 0): number | undefined {
    return this.src[this.pos + offset];
  }

  private eat(ch: string): boolean {
    if (this.src[this.pos] === ch.codePointAt(0)) {
      this.pos++;
      return true;
    }
    return false;
  }

  private expect(ch: string): void {
    if (!this.eat(ch)) throw new PatternError(`expected ${ch}`);
  }

  /** Inline flags `(?i)` change `flags` in place for the rest of the enclosing group. */
  private alternation(flags: Flags): Node {
    if (++this.depth > MAX_DEPTH) throw new PatternError('nested too deeply');
    const items: Node[] = [this.sequence(flags)];
    while (this.eat('|')) items.push(this.sequence(flags));
    this.depth--;
    return items.length === 1 ? items[0] : { t: 'alt', items };
  }

  private sequence(flags: Flags): Node {
    const items: Node[] = [];
    for (;;) {
      if (flags.x) this.skipVerbose();
      const c = this.peek();
      if (c === undefined || c === 0x7c /* | */ || c === 0x29 /* ) */) break;
      const atom = this.atom(flags);
      if (atom === null) continue;
      if (flags.x) this.skipVerbose();
      items.push(this.quantified(atom, flags));
    }
    if (items.length === 0) return { t: 'empty' };
    return items.length === 1 ? items[0] : { t: 'concat', items };
  }

  private skipVerbose(): void {
    for (let c = this.peek(); c !== undefined; c = this.peek()) {
      if (c === 0x23 /* # */) while (this.peek() !== undefined && this.peek() !== 10) this.pos++;
      else if (c === 32 || (c >= 9 && c <= 13)) this.pos++;
      else return;
    }
  }

  private quantified(atom: Node, flags: Flags): Node {
    let min: number;
    let max: number;
    const c = this.peek();
    if (c === 0x2a /* * */) [min, max] = [0, Infinity];
    else if (c === 0x2b /* + */) [min, max] = [1, Infinity];
    else if (c === 0x3f /* ? */) [min, max] = [0, 1];
    else if (c === 0x7b /* { */) [min, max] = this.counted();
    else return atom;
    if (c !== 0x7b) this.pos++;
    if (atom.t === 'assert' || atom.t === 'look') throw new PatternError('nothing to repeat');
    const marked = this.eat('?');
    // Possessive (`a++`, `a*+`, `a?+`): an atomic group around the repetition.
    const possessive = !marked && this.eat('+');
    const greedy = marked === flags.U;
    const next = this.peek();
    if (next === 0x2a || next === 0x2b || next === 0x3f || next === 0x7b) throw new PatternError('stacked quantifier');
    const repeat: Node = { t: 'repeat', body: atom, min, max, greedy };
    return possessive ? { t: 'atomic', body: repeat } : repeat;
  }

  private counted(): [number, number] {
    this.pos++;
    const min = this.number();
    if (min === null) throw new PatternError('bad counted repetition');
    let max = min;
    if (this.eat(',')) max = this.number() ?? Infinity;
    if (!this.eat('}')) throw new PatternError('unclosed counted repetition');
    if (max < min || min > MAX_COUNT || (max !== Infinity && max > MAX_COUNT)) {
      throw new PatternError('bad counted repetition');
    }
    return [min, max];
  }

  private number(): number | null {
    let value: number | null = null;
    for (let c = this.peek(); c !== undefined && c >= 0x30 && c <= 0x39; c = this.peek()) {
      value = (value ?? 0) * 10 + (c - 0x30);
      if (value > 1_000_000) throw new PatternError('number too large');
      this.pos++;
    }
    return value;
  }

  /** One atom, or null for a bare flag group such as `(?i)`. */
  private atom(flags: Flags): Node | null {
    const c = this.src[this.pos++];
    switch (c) {
      case 0x28 /* ( */:
        return this.group(flags);
      case 0x5b /* [ */:
        return this.bracket(flags);
      case 0x2e /* . */:
        return { t: 'any', newline: flags.s };
      case 0x5e /* ^ */:
        return { t: 'assert', kind: flags.m ? 'lineStart' : 'textStart' };
      case 0x24 /* $ */:
        return { t: 'assert', kind: flags.m ? 'lineEnd' : 'textEnd' };
      case 0x5c /* \ */:
        return this.escape(flags);
      case 0x2a:
      case 0x2b:
      case 0x3f:
        throw new PatternError('nothing to repeat');
      default:
        return literal(c, flags);
    }
  }

  private group(flags: Flags): Node | null {
    if (!this.eat('?')) return this.capture(null, flags);
    if (this.eat(':')) return this.inner({ ...flags }, (body) => ({ t: 'group', index: null, body }));
    if (this.eat('=')) return this.inner({ ...flags }, (body) => ({ t: 'look', behind: false, negate: false, body }));
    if (this.eat('!')) return this.inner({ ...flags }, (body) => ({ t: 'look', behind: false, negate: true, body }));
    if (this.eat('>')) return this.inner({ ...flags }, (body) => ({ t: 'atomic', body }));
    if (this.peek() === 0x3c /* < */ && (this.peek(1) === 0x3d || this.peek(1) === 0x21)) {
      this.pos++;
      const negate = this.src[this.pos++] === 0x21;
      return this.inner({ ...flags }, (body) => ({ t: 'look', behind: true, negate, body }));
    }
    if (this.eat('P')) {
      if (this.eat('=')) return this.namedRef(this.name(')'), flags);
      if (!this.eat('<')) throw new PatternError('bad group');
      return this.capture(this.name('>'), flags);
    }
    if (this.eat('#')) {
      this.until(')', Infinity);
      return null;
    }
    if (this.peek() === 0x28 /* ( */) {
      this.pos++;
      return this.conditional(flags);
    }
    if (this.eat('<')) return this.capture(this.name('>'), flags);
    return this.flagGroup(flags);
  }

  /** `(?(1)yes|no)` or `(?(<name>)yes|no)`: which branch runs depends on whether the group matched. */
  private conditional(flags: Flags): Node {
    const node: Node & { t: 'cond' } = { t: 'cond', group: 0, yes: { t: 'empty' }, no: { t: 'empty' } };
    if (this.eat('<')) this.namedRefs.push({ node, name: this.name('>') });
    else {
      const group = this.number();
      if (group === null) throw new PatternError('unsupported condition');
      node.group = group;
    }
    this.expect(')');
    const body = this.alternation({ ...flags });
    this.expect(')');
    if (body.t === 'alt') {
      if (body.items.length > 2) throw new PatternError('conditional with more than two branches');
      [node.yes, node.no] = body.items;
    } else node.yes = body;
    return node;
  }

  private namedRef(name: string, flags: Flags): Node {
    const node = { t: 'backref' as const, group: 0, ci: flags.i };
    this.namedRefs.push({ node, name });
    return node;
  }

  private capture(name: string | null, flags: Flags): Node {
    const index = ++this.groups;
    if (name !== null) {
      if (this.names.has(name)) throw new PatternError('duplicate group name');
      this.names.set(name, index);
    }
    return this.inner({ ...flags }, (body) => ({ t: 'group', index, body }));
  }

  private inner(flags: Flags, wrap: (body: Node) => Node): Node {
    const body = this.alternation(flags);
    this.expect(')');
    return wrap(body);
  }

  private name(close: string): string {
    let name = '';
    for (;;) {
      const c = this.src[this.pos++];
      if (c === undefined) throw new PatternError('unclosed group name');
      if (c === close.codePointAt(0)) break;
      const ch = String.fromCodePoint(c);
      if (!/[A-Za-z0-9_]/.test(ch) || (name === '' && /[0-9]/.test(ch))) throw new PatternError('bad group name');
      name += ch;
    }
    if (name === '') throw new PatternError('empty group name');
    return name;
  }

  /** `(?flags)` (applies to the rest of the enclosing group) or `(?flags:…)`. */
  private flagGroup(flags: Flags): Node | null {
    const next: Flags = { ...flags };
    let negate = false;
    let any = false;
    for (;;) {
      const c = this.src[this.pos++];
      if (c === undefined) throw new PatternError('unclosed flag group');
      const ch = String.fromCodePoint(c);
      if (ch === ')' || ch === ':') {
        if (!any && !negate) throw new PatternError('empty flag group');
        if (ch === ')') {
          Object.assign(flags, next);
          return null;
        }
        return this.inner(next, (body) => ({ t: 'group', index: null, body }));
      }
      if (ch === '-') {
        if (negate) throw new PatternError('bad flags');
        negate = true;
        continue;
      }
      if (ch !== 'i' && ch !== 'm' && ch !== 's' && ch !== 'x' && ch !== 'U') throw new PatternError('unsupported flag');
      next[ch] = !negate;
      any = true;
    }
  }

  private escape(flags: Flags): Node {
    const c = this.src[this.pos++];
    if (c === undefined) throw new PatternError('trailing backslash');
    const ch = String.fromCodePoint(c);
    switch (ch) {
      case 'A':
        return { t: 'assert', kind: 'textStart' };
      case 'z':
        return { t: 'assert', kind: 'textEnd' };
      case 'b':
        return { t: 'assert', kind: 'word' };
      case 'B':
        return { t: 'assert', kind: 'notWord' };
      case 'Z':
        return { t: 'assert', kind: 'textEndNewlines' };
      // `\G` (where the previous match ended) is the start of the text for a single search.
      case 'G':
        return { t: 'assert', kind: 'textStart' };
      // `\K` moves the start of the reported match, which does not change whether there is one.
      case 'K':
        return { t: 'empty' };
      case 'O':
        return { t: 'any', newline: true };
      case 'k': {
        if (!this.eat('<')) throw new PatternError('bad \\k');
        const reference = this.until('>');
        if (/^-?[0-9]+$/.test(reference)) {
          const n = Number(reference);
          // `\k<-1>` is the group opened last before the reference.
          return { t: 'backref', group: n < 0 ? this.groups + n + 1 : n, ci: flags.i };
        }
        return this.namedRef(reference, flags);
      }
    }
    if (c >= 0x31 && c <= 0x39) {
      this.pos--;
      return { t: 'backref', group: this.number()!, ci: flags.i };
    }
    const test = this.classEscape(ch);
    if (test !== null) return { t: 'class', test: flags.i ? caseless(test) : test };
    return literal(this.literalEscape(ch), flags);
  }

  /** `\d \D \w \W \s \S \p{…} \P{…}`, or null for other escapes. */
  private classEscape(ch: string): CharTest | null {
    switch (ch) {
      case 'd':
        return isDigit;
      case 'D':
        return (cp) => !isDigit(cp);
      case 'w':
        return isWord;
      case 'W':
        return (cp) => !isWord(cp);
      case 's':
        return isSpace;
      case 'S':
        return (cp) => !isSpace(cp);
      case 'h':
        return isHex;
      case 'H':
        return (cp) => !isHex(cp);
      case 'p':
      case 'P': {
        let name: string;
        if (this.eat('{')) name = this.until('}');
        else {
          const c = this.src[this.pos++];
          if (c === undefined) throw new PatternError('bad \\p');
          name = String.fromCodePoint(c);
        }
        const test = unicodeProperty(name);
        if (test === null) throw new PatternError('unknown Unicode class');
        return ch === 'p' ? test : (cp) => !test(cp);
      }
      default:
        return null;
    }
  }

  private until(close: string, limit = 64): string {
    let text = '';
    for (;;) {
      const c = this.src[this.pos++];
      if (c === undefined) throw new PatternError('unclosed');
      if (c === close.codePointAt(0)) return text;
      text += String.fromCodePoint(c);
      if (text.length > limit) throw new PatternError('too long');
    }
  }

  /** The code point of a literal escape (`\n`, `\x41`, `\u{1F600}`, `\.`). */
  private literalEscape(ch: string): number {
    switch (ch) {
      case 'n':
        return 10;
      case 't':
        return 9;
      case 'r':
        return 13;
      case 'f':
        return 12;
      case 'v':
        return 11;
      case 'a':
        return 7;
      case 'e':
        return 0x1b;
      case 'x':
        return this.hex(2);
      case 'u':
        return this.hex(4);
      case 'U':
        return this.hex(8);
    }
    // Escaped punctuation (and space) is itself; escaped letters and digits are not known here.
    if (/^[\x20-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/.test(ch)) return ch.codePointAt(0)!;
    throw new PatternError('unknown escape');
  }

  private hex(width: number): number {
    const text = this.eat('{') ? this.until('}') : String.fromCodePoint(...this.src.slice(this.pos, (this.pos += width)));
    if (!/^[0-9A-Fa-f]{1,8}$/.test(text) || (text.length !== width && this.src[this.pos - 1] !== 0x7d)) {
      throw new PatternError('bad hex escape');
    }
    const cp = parseInt(text, 16);
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw new PatternError('bad code point');
    return cp;
  }

  /** `[…]`: ranges, escapes, `[:posix:]` names, nested classes and `&&` `--` `~~` set operations. */
  private bracket(flags: Flags): Node {
    const test = this.classBody();
    return { t: 'class', test: flags.i ? caseless(test) : test };
  }

  /** After `[`: an optional `^`, unions joined by set operators (equal precedence, left to right), `]`. */
  private classBody(): CharTest {
    if (++this.depth > MAX_DEPTH) throw new PatternError('nested too deeply');
    const negate = this.eat('^');
    let set = this.classUnion(true);
    for (;;) {
      const c = this.peek();
      if (c === 0x5d /* ] */) break;
      const [left, right] = [set, this.classOperator(c)];
      const rhs = this.classUnion(false);
      if (right === '&&') set = (cp) => left(cp) && rhs(cp);
      else if (right === '--') set = (cp) => left(cp) && !rhs(cp);
      else set = (cp) => left(cp) !== rhs(cp);
    }
    this.pos++;
    this.depth--;
    return negate ? (cp) => !set(cp) : set;
  }

  private classOperator(c: number | undefined): string {
    if (c === undefined) throw new PatternError('unclosed class');
    const op = String.fromCodePoint(c).repeat(2);
    if ((op !== '&&' && op !== '--' && op !== '~~') || this.peek(1) !== c) throw new PatternError('bad class');
    this.pos += 2;
    return op;
  }

  /** Members up to `]` or a set operator; a `]` first in the class is a literal. */
  private classUnion(first: boolean): CharTest {
    const ranges: number[] = [];
    const tests: CharTest[] = [];
    for (;; first = false) {
      const c = this.src[this.pos];
      if (c === undefined) throw new PatternError('unclosed class');
      if (c === 0x5d /* ] */ && !first) break;
      if ((c === 0x26 || c === 0x7e || c === 0x2d) && this.peek(1) === c) break;
      if (c === 0x5b /* [ */) {
        this.pos++;
        if (this.peek() !== 0x3a /* : */) {
          tests.push(this.classBody());
          continue;
        }
        this.pos++;
        const posixNegate = this.eat('^');
        const name = this.until(':');
        this.expect(']');
        const test = POSIX[name];
        if (!test) throw new PatternError('unknown POSIX class');
        tests.push(posixNegate ? (cp) => !test(cp) : test);
        continue;
      }
      const lo = this.classAtom(tests);
      if (lo === null) continue;
      if (this.peek() === 0x2d /* - */ && this.peek(1) !== 0x5d && this.peek(1) !== undefined && this.peek(1) !== 0x2d) {
        this.pos++;
        const hi = this.classAtom(tests);
        if (hi === null || hi < lo) throw new PatternError('bad class range');
        ranges.push(lo, hi);
      } else ranges.push(lo, lo);
    }
    return (cp) => {
      for (let i = 0; i < ranges.length; i += 2) if (cp >= ranges[i] && cp <= ranges[i + 1]) return true;
      for (const test of tests) if (test(cp)) return true;
      return false;
    };
  }

  /** One class member: its code point, or null after adding a class escape such as `\d` to `tests`. */
  private classAtom(tests: CharTest[]): number | null {
    const c = this.src[this.pos++];
    if (c !== 0x5c /* \ */) return c;
    const e = this.src[this.pos++];
    if (e === undefined) throw new PatternError('trailing backslash');
    const ch = String.fromCodePoint(e);
    const test = this.classEscape(ch);
    if (test !== null) {
      tests.push(test);
      return null;
    }
    if (/^[bBAzZkKGO0-9]$/.test(ch)) {
      throw new PatternError('escape not allowed in a class');
    }
    return this.literalEscape(ch);
  }
}

function literal(cp: number, flags: Flags): Node {
  return flags.i ? { t: 'char', cp: fold(cp), ci: true } : { t: 'char', cp, ci: false };
}

/** Parses a pattern; throws PatternError when it is invalid or uses unsupported syntax. */
export function parsePattern(pattern: string): Parsed {
  const parsed = new Parser(Array.from(pattern, (ch) => ch.codePointAt(0)!)).parse();
  checkBackrefs(parsed.root, parsed.groups);
  return parsed;
}

function checkBackrefs(node: Node, groups: number): void {
  switch (node.t) {
    case 'backref':
      if (node.group < 1 || node.group > groups) throw new PatternError('backreference to a missing group');
      return;
    case 'group':
    case 'look':
    case 'atomic':
    case 'repeat':
      checkBackrefs(node.body, groups);
      return;
    case 'concat':
    case 'alt':
      for (const item of node.items) checkBackrefs(item, groups);
      return;
    case 'cond':
      if (node.group < 1 || node.group > groups) throw new PatternError('condition on a missing group');
      checkBackrefs(node.yes, groups);
      checkBackrefs(node.no, groups);
      return;
    default:
      return;
  }
}
