import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestRows, SetDigest } from '../../../src/runtime/set-digest';

const digestOf = (rows: unknown[][]) => {
  const d = new SetDigest();
  for (const r of rows) d.add(r);
  return d.value();
};

/** The plain definition: the count, and the sum mod 2^128 of each row's first 16 sha256 bytes, as 32 hex digits. */
function reference(rows: unknown[][]): string {
  let sum = 0n;
  for (const r of rows) sum = (sum + BigInt(`0x${createHash('sha256').update(JSON.stringify(r)).digest('hex').slice(0, 32)}`)) % (1n << 128n);
  return `${rows.length}:${sum.toString(16).padStart(32, '0')}`;
}

describe('SetDigest', () => {
  const rows = Array.from({ length: 50 }, (_, i) => [i, `u${i}`, i % 3 ? null : 'x']);

  it('equals the plain definition, for none, one and many rows', () => {
    expect(digestOf([])).toBe(`0:${'0'.repeat(32)}`);
    expect(digestOf([])).toBe(reference([]));
    expect(digestOf(rows.slice(0, 1))).toBe(reference(rows.slice(0, 1)));
    expect(digestOf(rows)).toBe(reference(rows));
  });

  it('does not depend on the order of the rows, and sees a changed, missing or repeated row', () => {
    const whole = digestOf(rows);
    expect(digestOf([...rows].reverse())).toBe(whole);
    expect(digestOf(rows.map((r, i) => (i === 7 ? [7, 'u7', 'changed'] : r)))).not.toBe(whole);
    expect(digestOf(rows.slice(1))).not.toBe(whole);
    expect(digestOf([...rows, rows[3]])).not.toBe(whole);
    expect(digestOf([...rows, rows[3]]).startsWith('51:')).toBe(true);
  });

  it('wraps at 2^128 (the sum stays 32 hex digits)', () => {
    const many = Array.from({ length: 2000 }, (_, i) => [i]);
    const value = digestOf(many);
    expect(value).toBe(reference(many));
    expect(value.split(':')[1]).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('digestRows', () => {
  it('encodes an event with every column in one fixed order, and a person mapping', () => {
    const event = {
      projectId: 2,
      uuid: 'u',
      event: 'e',
      distinctId: 'd',
      personId: null,
      timestamp: 't',
      receivedAt: 'r',
      properties: '{}',
      elementsChain: 'c',
      groups: ['g0', null, null, null, 'g4'],
      historicalMigration: true,
    };
    expect(digestRows.event(event)).toEqual([2, 'u', 'e', 'd', null, 't', 'r', '{}', 'c', 'g0', null, null, null, 'g4', true]);
    expect(digestRows.person(2, 'd', 'p')).toEqual([2, 'd', 'p']);
  });
});
