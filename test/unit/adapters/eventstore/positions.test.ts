import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendPositions,
  MAX_COMMIT_POSITION,
  PositionRangeError,
  readStartOf,
  streamEventPortPosition,
  toEventPosition,
  toPortPosition,
} from '../../../../src/adapters/eventstore/positions';

const at = (commit: bigint) => ({ commit, prepare: commit });
/** What the server sends for "no position" (an unsigned -1). */
const NONE = (1n << 64n) - 1n;

describe('KurrentDB positions ↔ port positions', () => {
  it('takes a $all commit position as the port position itself, in the same order, and back', () => {
    expect(toPortPosition(at(1234n))).toBe(1234);
    expect(toEventPosition(1234)).toEqual(at(1234n));
    expect(toPortPosition(at(MAX_COMMIT_POSITION))).toBe(Number.MAX_SAFE_INTEGER);
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_COMMIT_POSITION }), fc.bigInt({ min: 1n, max: MAX_COMMIT_POSITION }), (a, b) => {
        const pa = toPortPosition(at(a));
        const pb = toPortPosition(at(b));
        expect(Number.isSafeInteger(pa) && BigInt(pa) === a).toBe(true);
        expect(Math.sign(pa - pb)).toBe(a < b ? -1 : a > b ? 1 : 0);
        expect(toEventPosition(pa)).toEqual(at(a));
      }),
    );
  });

  it('refuses a commit position the port cannot hold, with a clear error', () => {
    expect(toPortPosition(at(MAX_COMMIT_POSITION))).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER);
    const past = () => toPortPosition(at(MAX_COMMIT_POSITION + 1n));
    expect(past).toThrow(PositionRangeError);
    expect(past).toThrow(/past what the event log port's number positions can hold/);
    expect(() => toPortPosition(at(NONE))).toThrow(PositionRangeError);
    expect(() => toPortPosition(at(-1n))).toThrow(PositionRangeError);
    // 0 is the port's "before everything" (the server's epoch record is there, never an event).
    expect(() => toPortPosition(at(0n))).toThrow(/not above 0/);
  });

  it('refuses events of an explicit transaction (commit position not their own)', () => {
    expect(() => toPortPosition({ commit: 500n, prepare: 420n })).toThrow(/explicit transaction/);
  });

  it('refuses to turn a port position it did not hand out into a server position', () => {
    for (const p of [0, -2, 2.5, Number.MAX_SAFE_INTEGER + 1]) expect(() => toEventPosition(p), String(p)).toThrow(PositionRangeError);
  });

  it('reads after an event position from its own record (the adapter drops it), and from the start after 0', () => {
    expect(readStartOf(undefined)).toEqual({ from: 'start' });
    expect(readStartOf(0)).toEqual({ from: 'start' });
    expect(readStartOf(1234)).toEqual({ after: at(1234n) });
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: MAX_COMMIT_POSITION }), (c) => {
        expect(readStartOf(toPortPosition(at(c)))).toEqual({ after: at(c) });
      }),
    );
    for (const p of [2.5, Number.MAX_SAFE_INTEGER + 2]) expect(() => readStartOf(p), String(p)).toThrow(PositionRangeError);
  });

  it("takes an append's last event from the answer's commit position and its first from the prepare (transaction) position", () => {
    expect(appendPositions(at(1234n))).toEqual({ firstPosition: 1234, lastPosition: 1234 });
    expect(appendPositions({ commit: 1500n, prepare: 1234n })).toEqual({ firstPosition: 1234, lastPosition: 1500 });
    expect(() => appendPositions({ commit: 1234n, prepare: 1500n })).toThrow(PositionRangeError);
    expect(() => appendPositions(at(MAX_COMMIT_POSITION + 1n))).toThrow(/past what the event log port's number positions can hold/);
  });

  it("takes a stream event's position from its commit position, or from its prepare position when the server sends none", () => {
    expect(streamEventPortPosition(at(1234n))).toBe(1234);
    expect(streamEventPortPosition({ commit: NONE, prepare: 1234n })).toBe(1234);
    expect(() => streamEventPortPosition({ commit: NONE, prepare: NONE })).toThrow(/without its log position/);
    expect(() => streamEventPortPosition(undefined)).toThrow(/without its log position/);
  });
});
