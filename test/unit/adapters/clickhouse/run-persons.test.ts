import { describe, expect, it } from 'vitest';
import { RunPersons } from '../../../../src/adapters/clickhouse/export-source/person-properties';

describe("an export run's person cache", () => {
  const stored = new Map([
    ['a', '{"n":"a"}'],
    ['b', '{"n":"b"}'],
    ['c', '{"n":"c"}'],
  ]);

  it('looks up only the persons it does not hold, and knows a person without properties', async () => {
    const asked: string[][] = [];
    const persons = new RunPersons(async (ids) => {
      asked.push([...ids]);
      return new Map([...stored].filter(([id]) => ids.includes(id)));
    });
    await persons.prefetch(['a', null, 'x', 'a']);
    await persons.prefetch(['a', 'b']);
    expect(asked).toEqual([['a', 'x'], ['b']]);
    expect([persons.get('a'), persons.get('b'), persons.get('x'), persons.get(null)]).toEqual(['{"n":"a"}', '{"n":"b"}', null, null]);
  });

  it('past its bound starts over before a page, so that every person of the page is known after it', async () => {
    const asked: string[][] = [];
    const persons = new RunPersons(async (ids) => {
      asked.push([...ids]);
      return new Map([...stored].filter(([id]) => ids.includes(id)));
    }, 2);
    await persons.prefetch(['a', 'b']);
    // b was held, c was not: the cache is full, and starting over must not lose b.
    await persons.prefetch(['b', 'c']);
    expect(persons.get('b')).toBe('{"n":"b"}');
    expect(persons.get('c')).toBe('{"n":"c"}');
    expect(asked).toEqual([['a', 'b'], ['b', 'c']]);
  });
});
