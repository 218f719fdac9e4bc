import type { CharTest } from './classes';
import { PatternError, type AssertKind, type Node, type Parsed } from './syntax';

/**
 * Compiles a parsed pattern to a program for the backtracking machine (machine.ts). Counted
 * repetitions are unrolled, so the program's size is bounded (MAX_PROGRAM) and a pattern that would
 * exceed it is refused like an invalid one. Extra slots after the capture slots hold lookaround
 * marks and loop-progress positions.
 */
export enum Op {
  Match,
  Char,
  CharFold,
  Any,
  AnyNewline,
  Class,
  Split,
  Jump,
  Save,
  Assert,
  Backref,
  Mark,
  RestoreCut,
  Cut,
  FailCut,
  GoBack,
  CheckProgress,
  IfGroup,
}

// Every instruction has the same shape, so the machine's reads of it stay monomorphic (fast).
export interface Instruction {
  op: Op;
  a: number;
  b: number;
  /** A Split inside a part fancy-regex hands to its linear engine: taking its branch is no backtrack. */
  free: boolean;
  /** For a free Split and for the instruction that leaves a linear part: that part's index in `regions`. */
  region: number;
  test: CharTest;
  kind: AssertKind;
}

/**
 * A linear part (a lookaround or atomic body without fancy features). Whether its end can be reached
 * from a given branch point depends only on that point, never on how the search got there, so the
 * machine remembers it for the whole search (see machine.ts).
 */
export interface Region {
  /** The instruction that leaves the part once its body matched. */
  exit: number;
  /** No capture group inside: skipping to the exit loses nothing, so reached ends are remembered too. */
  skippable: boolean;
}

const NO_TEST: CharTest = () => false;

export interface Program {
  code: Instruction[];
  slots: number;
  regions: Region[];
}

export const MAX_PROGRAM = 20_000;

class Compiler {
  readonly code: Instruction[] = [];
  readonly regions: Region[] = [];
  slots: number;
  /** > 0 while compiling a lookaround or atomic body without fancy features. */
  private linear = 0;
  /** The region being compiled while `linear` > 0 (linear parts never nest: they hold no lookaround). */
  private region = -1;

  constructor(groups: number) {
    this.slots = (groups + 1) * 2;
  }

  private emit(op: Op, a = 0, b = 0, test: CharTest = NO_TEST, kind: AssertKind = 'textStart'): number {
    if (this.code.length >= MAX_PROGRAM) throw new PatternError('pattern too large');
    const free = op === Op.Split && this.linear > 0;
    this.code.push({ op, a, b, free, region: free ? this.region : -1, test, kind });
    return this.code.length - 1;
  }

  private slot(): number {
    return this.slots++;
  }

  node(n: Node): void {
    switch (n.t) {
      case 'empty':
        return;
      case 'char':
        this.emit(n.ci ? Op.CharFold : Op.Char, n.cp);
        return;
      case 'any':
        this.emit(n.newline ? Op.AnyNewline : Op.Any);
        return;
      case 'class':
        this.emit(Op.Class, 0, 0, n.test);
        return;
      case 'assert':
        this.emit(Op.Assert, 0, 0, NO_TEST, n.kind);
        return;
      case 'group':
        if (n.index === null) return this.node(n.body);
        this.emit(Op.Save, n.index * 2);
        this.node(n.body);
        this.emit(Op.Save, n.index * 2 + 1);
        return;
      case 'concat':
        for (const item of n.items) this.node(item);
        return;
      case 'alt':
        return this.alternation(n.items);
      case 'repeat':
        return this.repeat(n.body, n.min, n.max, n.greedy);
      case 'look':
        return this.look(n.body, n.behind, n.negate);
      case 'atomic': {
        const mark = this.slot();
        this.emit(Op.Mark, mark);
        this.leave(this.body(n.body), Op.Cut, mark);
        return;
      }
      case 'backref':
        this.emit(Op.Backref, n.group, n.ci ? 1 : 0);
        return;
      case 'cond': {
        const test = this.emit(Op.IfGroup, n.group);
        this.node(n.yes);
        const exit = this.emit(Op.Jump);
        this.code[test].b = this.code.length;
        this.node(n.no);
        this.code[exit].a = this.code.length;
        return;
      }
    }
  }

  /**
   * The body of a lookaround or atomic group. fancy-regex runs such a body, when it has no fancy
   * feature itself, on Rust's linear engine, where it costs no backtracks; its branches here are
   * marked free so that they count towards MAX_STEPS only, not towards the backtrack limit, and
   * the machine remembers their outcome so that the body's work stays linear over the whole
   * search, as on that engine. The instruction emitted right after the body leaves the part.
   */
  private body(n: Node): number {
    if (fancy(n)) {
      this.node(n);
      return -1;
    }
    const region = (this.region = this.regions.length);
    this.regions.push({ exit: -1, skippable: !captures(n) });
    this.linear++;
    this.node(n);
    this.linear--;
    this.regions[region].exit = this.code.length;
    return region;
  }

  /** Emits the instruction that leaves a body compiled by `body`, tagged with its region (or -1). */
  private leave(region: number, op: Op, a = 0, b = 0): void {
    this.emit(op, a, b);
    this.code[this.code.length - 1].region = region;
  }

  private alternation(items: Node[]): void {
    const exits: number[] = [];
    for (let i = 0; i < items.length - 1; i++) {
      const split = this.emit(Op.Split, this.code.length + 1);
      this.node(items[i]);
      exits.push(this.emit(Op.Jump));
      this.code[split].b = this.code.length;
    }
    this.node(items[items.length - 1]);
    for (const exit of exits) this.code[exit].a = this.code.length;
  }

  /** One optional iteration: greedy tries the body first, lazy skips it first. */
  private optional(body: Node, greedy: boolean, guard: boolean): number {
    const split = this.emit(Op.Split);
    const progress = guard ? this.slot() : -1;
    const start = this.code.length;
    if (guard) this.emit(Op.Save, progress);
    this.node(body);
    if (guard) this.emit(Op.CheckProgress, progress);
    return this.patchable(split, start, greedy);
  }

  private patchable(split: number, start: number, greedy: boolean): number {
    // The other branch is patched by the caller once the exit is known.
    if (greedy) this.code[split].a = start;
    else this.code[split].b = start;
    return split;
  }

  private repeat(body: Node, min: number, max: number, greedy: boolean): void {
    for (let i = 0; i < min; i++) this.node(body);
    // An iteration that matched nothing is refused (as JS and Rust do), so loops always advance.
    const guard = nullable(body);
    if (max === Infinity) {
      const loop = this.code.length;
      const split = this.optional(body, greedy, guard);
      this.emit(Op.Jump, loop);
      this.exit(split, greedy);
      return;
    }
    const splits: number[] = [];
    for (let i = min; i < max; i++) splits.push(this.optional(body, greedy, guard));
    for (const split of splits) this.exit(split, greedy);
  }

  private exit(split: number, greedy: boolean): void {
    if (greedy) this.code[split].b = this.code.length;
    else this.code[split].a = this.code.length;
  }

  private look(body: Node, behind: boolean, negate: boolean): void {
    let back = 0;
    if (behind) {
      const size = constantSize(body);
      if (size === null) {
        // As fancy-regex: `(?<=a|bb)` is `(?<=a)|(?<=bb)`, and `(?<!a|bb)` is `(?<!a)(?<!bb)`.
        if (body.t !== 'alt') throw new PatternError('lookbehind of variable length');
        const parts: Node[] = body.items.map((item) => ({ t: 'look', behind, negate, body: item }));
        return this.node(negate ? { t: 'concat', items: parts } : { t: 'alt', items: parts });
      }
      back = size;
    }
    const mark = this.slot();
    this.emit(Op.Mark, mark);
    if (!negate) {
      const at = this.slot();
      this.emit(Op.Save, at);
      if (behind) this.emit(Op.GoBack, back);
      this.leave(this.body(body), Op.RestoreCut, mark, at);
      return;
    }
    const split = this.emit(Op.Split, this.code.length + 1);
    if (behind) this.emit(Op.GoBack, back);
    this.leave(this.body(body), Op.FailCut, mark);
    this.code[split].b = this.code.length;
  }

  /**
   * The unanchored search: a lazy any-character loop before the pattern, as fancy-regex wraps every
   * pattern (`(?s:.)*?(…)`), so moving to the next start position is a backtrack too. Even a pattern
   * anchored with `^` is retried at every position there (each retry fails at once but counts),
   * so a long enough value exhausts the backtrack limit: kept, to give up where it does.
   */
  search(root: Node): void {
    this.emit(Op.Split, 3, 1);
    this.emit(Op.AnyNewline);
    this.emit(Op.Jump, 0);
    this.node(root);
    this.emit(Op.Match);
  }
}

/** Whether a part uses what only the backtracking engine offers (fancy-regex's "hard" parts). */
function fancy(n: Node): boolean {
  switch (n.t) {
    case 'look':
    case 'backref':
    case 'cond':
    case 'atomic':
      return true;
    case 'group':
    case 'repeat':
      return fancy(n.body);
    case 'concat':
    case 'alt':
      return n.items.some(fancy);
    default:
      return false;
  }
}

/** Whether a part holds a capture group (whose position a later backreference may read). */
function captures(n: Node): boolean {
  switch (n.t) {
    case 'group':
      return n.index !== null || captures(n.body);
    case 'repeat':
    case 'look':
    case 'atomic':
      return captures(n.body);
    case 'concat':
    case 'alt':
      return n.items.some(captures);
    case 'cond':
      return captures(n.yes) || captures(n.no);
    default:
      return false;
  }
}

function nullable(n: Node): boolean {
  switch (n.t) {
    case 'char':
    case 'any':
    case 'class':
      return false;
    case 'group':
    case 'atomic':
      return nullable(n.body);
    case 'concat':
      return n.items.every(nullable);
    case 'alt':
      return n.items.some(nullable);
    case 'repeat':
      return n.min === 0 || nullable(n.body);
    case 'cond':
      return nullable(n.yes) || nullable(n.no);
    default:
      return true;
  }
}

/** The number of code points every match of `n` spans, or null when it varies. */
export function constantSize(n: Node): number | null {
  switch (n.t) {
    case 'empty':
    case 'assert':
    case 'look':
      return 0;
    case 'char':
    case 'any':
    case 'class':
      return 1;
    case 'group':
    case 'atomic':
      return constantSize(n.body);
    case 'concat': {
      let total = 0;
      for (const item of n.items) {
        const size = constantSize(item);
        if (size === null) return null;
        total += size;
      }
      return total;
    }
    case 'alt': {
      const first = constantSize(n.items[0]);
      for (const item of n.items) if (constantSize(item) !== first) return null;
      return first;
    }
    case 'repeat': {
      const size = constantSize(n.body);
      return n.min === n.max && size !== null ? size * n.min : size === 0 ? 0 : null;
    }
    case 'cond': {
      const size = constantSize(n.yes);
      return size === constantSize(n.no) ? size : null;
    }
    case 'backref':
      return null;
  }
}

export function compileProgram(parsed: Parsed): Program {
  const compiler = new Compiler(parsed.groups);
  compiler.search(parsed.root);
  return { code: compiler.code, slots: compiler.slots, regions: compiler.regions };
}
