import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/errors';
import { parseCreate, parseUpdate } from '../../../src/experiments/input';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return { attr: (err as DomainError).attr, kind: (err as DomainError).kind };
  }
  throw new Error('expected a refusal');
};

describe('experiment date order', () => {
  const create = (start: string | null, end: string | null) => () => parseCreate({ name: 'e', feature_flag_key: 'e', start_date: start, end_date: end });

  it('create: an end before the start is refused on end_date; equal or one-sided dates are fine', () => {
    expect(refusal(create('2024-02-01T00:00:00Z', '2024-01-31T23:59:59.999Z'))).toEqual({ attr: 'end_date', kind: 'validation' });
    // Offsets are compared as instants, not as text.
    expect(refusal(create('2024-02-01T00:00:00+00:00', '2024-02-01T01:00:00+02:00'))).toEqual({ attr: 'end_date', kind: 'validation' });
    expect(create('2024-02-01T00:00:00Z', '2024-02-01T00:00:00Z')()).toMatchObject({ startDate: '2024-02-01T00:00:00.000Z', endDate: '2024-02-01T00:00:00.000Z' });
    expect(create(null, '2024-01-01T00:00:00Z')()).toMatchObject({ startDate: null });
    expect(create('2024-01-01T00:00:00Z', null)()).toMatchObject({ endDate: null });
  });

  it('update: checked against the stored date it will sit beside', () => {
    const stored = { startDate: '2024-02-01T00:00:00.000Z', endDate: '2024-03-01T00:00:00.000Z' };
    expect(refusal(() => parseUpdate({ end_date: '2024-01-01T00:00:00Z' }, 'k', stored)).attr).toBe('end_date');
    expect(refusal(() => parseUpdate({ start_date: '2024-04-01T00:00:00Z' }, 'k', stored)).attr).toBe('end_date');
    expect(parseUpdate({ start_date: '2024-04-01T00:00:00Z', end_date: null }, 'k', stored)).toEqual({ startDate: '2024-04-01T00:00:00.000Z', endDate: null });
    expect(parseUpdate({ end_date: '2024-02-01T00:00:00Z' }, 'k', stored)).toEqual({ endDate: '2024-02-01T00:00:00.000Z' });
  });

  it('update: a PATCH that moves no date is not refused for dates stored the wrong way round', () => {
    const backwards = { startDate: '2024-03-01T00:00:00.000Z', endDate: '2024-02-01T00:00:00.000Z' };
    expect(parseUpdate({ name: 'renamed' }, 'k', backwards)).toEqual({ name: 'renamed' });
    expect(refusal(() => parseUpdate({ end_date: '2024-02-02T00:00:00Z' }, 'k', backwards)).attr).toBe('end_date');
  });
});
