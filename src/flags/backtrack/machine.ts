import { fold, isWord } from './classes';
import { Op, type Program } from './program';

/**
 * The backtracking machine, bounded the way PostHog's flags service bounds fancy-regex: at most
 * BACKTRACK_LIMIT backtracks (taking a saved branch, moving the search to the next start included;
 * branches inside the parts fancy-regex runs on its linear engine are free, see program.ts),
 * after which the search is abandoned with no verdict. On top of that, MAX_STEPS bounds all the
 * work (instructions run plus characters compared by backreferences), so time and memory stay
 * small whatever the pattern; the branch stack and the slot log grow by at most two entries a step.
 *
 * The linear parts cost what they cost on fancy-regex's linear engine, not what a backtracking
 * search of them would: each branch point of such a part (a free Split at a position) is explored
 * at most once per search. Whether the part's end is reachable from there depends on that point
 * alone (no backreference inside, assertions read only the text), so a point found to fail stays
 * failed, and the end a capture-free part reached from a point is reused, for every later entry
 * into the part, e.g. a lookahead tried again at each start position. Without this, a lookaround
 * over a long value (`(?=.*foo)bar`) re-scanned the value at every position and ran out of steps
 * where fancy-regex answers.
 */
export const BACKTRACK_LIMIT = 10_000;
export const MAX_STEPS = 500_000;

export interface Run {
  /** true/false, or null when a limit was reached. */
  found: boolean | null;
  backtracks: number;
  steps: number;
}

// A stack entry that is no branch: popping it means the branch point it names failed.
const FAILED_POINT = -0x40000000;

/**
 * `maxSteps` lowers the step bound below MAX_STEPS when the request's regex budget has less left,
 * and past `deadline` (performance.now() time, looked at every 1,024 steps once `clockFrom` steps
 * are done) the search stops too: both give no verdict, and the caller, who set them, knows which
 * (see regex.ts, regex-budget.ts). The backtrack limit stays PostHog's.
 */
export function run(program: Program, subject: string, maxSteps: number = MAX_STEPS, deadline = Infinity, clockFrom = 0): Run {
  const text = Array.from(subject, (ch) => ch.codePointAt(0)!);
  const n = text.length;
  const code = program.code;
  const slots = new Array<number>(program.slots).fill(-1);
  // Saved branches: program counter, position, slot-log length to unwind to, and for the entries
  // that mark a free branch point (program counter FAILED_POINT), that point's key.
  const branchPc: number[] = [];
  const branchPos: number[] = [];
  const branchLog: number[] = [];
  const branchPoint: number[] = [];
  // Free branch points (pc * (n + 1) + position) of linear parts: those whose part cannot reach
  // its end, and, for capture-free parts, the position where the part ended when it could.
  const failedPoints = new Set<number>();
  const reachedEnds = new Map<number, number>();
  // Slot writes, so that backtracking restores earlier values.
  const logSlot: number[] = [];
  const logValue: number[] = [];
  let pc = 0;
  let pos = 0;
  let steps = 0;
  let backtracks = 0;

  const write = (slot: number, value: number) => {
    logSlot.push(slot);
    logValue.push(slots[slot]);
    slots[slot] = value;
  };

  for (;;) {
    let ok = true;
    if (++steps > maxSteps) return { found: null, backtracks, steps };
    if ((steps & 1023) === 0 && steps >= clockFrom && performance.now() > deadline) return { found: null, backtracks, steps };
    const ins = code[pc];
    switch (ins.op) {
      case Op.Match:
        return { found: true, backtracks, steps };
      case Op.Char:
        if (pos < n && text[pos] === ins.a) pos++, pc++;
        else ok = false;
        break;
      case Op.CharFold:
        if (pos < n && fold(text[pos]) === ins.a) pos++, pc++;
        else ok = false;
        break;
      case Op.Any:
        if (pos < n && text[pos] !== 10) pos++, pc++;
        else ok = false;
        break;
      case Op.AnyNewline:
        if (pos < n) pos++, pc++;
        else ok = false;
        break;
      case Op.Class:
        if (pos < n && ins.test(text[pos])) pos++, pc++;
        else ok = false;
        break;
      case Op.Split:
        if (ins.free) {
          const point = pc * (n + 1) + pos;
          if (failedPoints.has(point)) {
            ok = false;
            break;
          }
          const end = reachedEnds.get(point);
          if (end !== undefined) {
            pos = end;
            pc = program.regions[ins.region].exit;
            break;
          }
          // Below the branch, a marker: popped only once everything from this point has failed.
          save(FAILED_POINT, pos, point);
          // A free branch is stored complemented (negative): taking it is not counted.
          save(~ins.b, pos, -1);
        } else save(ins.b, pos, -1);
        pc = ins.a;
        break;
      case Op.Jump:
        pc = ins.a;
        break;
      case Op.Save:
        write(ins.a, pos);
        pc++;
        break;
      case Op.Assert:
        if (holds(ins.kind, text, pos)) pc++;
        else ok = false;
        break;
      case Op.Backref: {
        const start = slots[ins.a * 2];
        const end = slots[ins.a * 2 + 1];
        // A group that took no part in the match fails the reference (fancy-regex), unlike JS.
        if (start < 0 || end < 0 || pos + (end - start) > n) {
          ok = false;
          break;
        }
        // Comparing is work too: a reference that would pass the step bound is not compared.
        if ((steps += end - start) > maxSteps) return { found: null, backtracks, steps: maxSteps + 1 };
        for (let i = 0; i < end - start && ok; i++) {
          const [x, y] = [text[start + i], text[pos + i]];
          ok = x === y || (ins.b === 1 && fold(x) === fold(y));
        }
        if (ok) (pos += end - start), pc++;
        break;
      }
      case Op.Mark:
        write(ins.a, branchPc.length);
        pc++;
        break;
      case Op.RestoreCut:
        reached(ins.region, slots[ins.a], pos);
        pos = slots[ins.b];
        cut(slots[ins.a]);
        pc++;
        break;
      case Op.Cut:
        reached(ins.region, slots[ins.a], pos);
        cut(slots[ins.a]);
        pc++;
        break;
      case Op.FailCut:
        reached(ins.region, slots[ins.a], pos);
        cut(slots[ins.a]);
        ok = false;
        break;
      case Op.GoBack:
        if (pos >= ins.a) (pos -= ins.a), pc++;
        else ok = false;
        break;
      case Op.CheckProgress:
        if (pos !== slots[ins.a]) pc++;
        else ok = false;
        break;
      case Op.IfGroup:
        pc = slots[ins.a * 2] >= 0 && slots[ins.a * 2 + 1] >= 0 ? pc + 1 : ins.b;
        break;
    }
    if (ok) continue;
    for (;;) {
      if (branchPc.length === 0) return { found: false, backtracks, steps };
      pc = branchPc.pop()!;
      pos = branchPos.pop()!;
      const point = branchPoint.pop()!;
      const keep = branchLog.pop()!;
      if (pc === FAILED_POINT) {
        failedPoints.add(point);
        if (++steps > maxSteps) return { found: null, backtracks, steps };
        continue;
      }
      if (pc < 0) pc = ~pc;
      else if (++backtracks > BACKTRACK_LIMIT) return { found: null, backtracks, steps };
      while (logSlot.length > keep) slots[logSlot.pop()!] = logValue.pop()!;
      break;
    }
  }

  function save(branch: number, at: number, point: number): void {
    branchPc.push(branch);
    branchPos.push(at);
    branchLog.push(logSlot.length);
    branchPoint.push(point);
  }

  /**
   * A linear part ended at `end`: every free branch point of it still on the stack (above the
   * part's mark) leads there first. Remembered for capture-free parts, whose end can be skipped to.
   */
  function reached(region: number, depth: number, end: number): void {
    if (region < 0 || !program.regions[region].skippable) return;
    for (let i = branchPc.length - 1; i >= depth; i--) if (branchPc[i] === FAILED_POINT) reachedEnds.set(branchPoint[i], end);
  }

  /** Drops the branches saved since a mark: what matched since then can no longer be retried. */
  function cut(depth: number): void {
    branchPc.length = depth;
    branchPos.length = depth;
    branchLog.length = depth;
    branchPoint.length = depth;
  }
}

function holds(kind: string, text: number[], pos: number): boolean {
  switch (kind) {
    case 'textStart':
      return pos === 0;
    case 'textEnd':
      return pos === text.length;
    case 'textEndNewlines': {
      for (let i = pos; i < text.length; i++) if (text[i] !== 10) return false;
      return true;
    }
    case 'lineStart':
      return pos === 0 || text[pos - 1] === 10;
    case 'lineEnd':
      return pos === text.length || text[pos] === 10;
    default: {
      const before = pos > 0 && isWord(text[pos - 1]);
      const after = pos < text.length && isWord(text[pos]);
      return kind === 'word' ? before !== after : before === after;
    }
  }
}
