import { ANY, NO_STREAM, STREAM_EXISTS } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { toClientExpectedRevision, toPortCurrentRevision, toPortExpectedRevision, toPortRevision } from '../../../../src/adapters/eventstore/revisions';

describe('expected revisions, port ↔ client', () => {
  it('maps every kind of expectation to the client and back', () => {
    expect(toClientExpectedRevision('any')).toBe(ANY);
    expect(toClientExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toClientExpectedRevision('stream_exists')).toBe(STREAM_EXISTS);
    expect(toClientExpectedRevision(0)).toBe(0n);
    expect(toClientExpectedRevision(41)).toBe(41n);
    for (const e of ['any', 'no_stream', 'stream_exists', 0, 41, Number.MAX_SAFE_INTEGER] as const) {
      expect(toPortExpectedRevision(toClientExpectedRevision(e))).toBe(e);
    }
  });

  it('refuses a number that is not a revision', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) expect(() => toClientExpectedRevision(bad), String(bad)).toThrow(RangeError);
  });

  it("reads the client's bigint revisions as numbers, and `no_stream` as such", () => {
    expect(toPortRevision(0n)).toBe(0);
    expect(toPortRevision(9007199254740991n)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => toPortRevision(9007199254740992n)).toThrow(RangeError);
    expect(() => toPortRevision(-1n)).toThrow(RangeError);
    expect(toPortCurrentRevision(NO_STREAM)).toBe('no_stream');
    expect(toPortCurrentRevision(3n)).toBe(3);
  });
});
