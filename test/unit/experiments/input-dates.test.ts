import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/errors';
import { checkPatch } from '../../../src/experiments/input';
import { CreateExperimentBody, UpdateExperimentBody } from '../../../src/http/schema/experiments';

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return { attr: (err as DomainError).attr, kind: (err as DomainError).kind };
  }
  throw new Error('expected a refusal');
};

/** The create schema's refusal: the field it names (the issue's path) and its DRF code. */
const schemaRefusal = (body: unknown) => {
  const result = CreateExperimentBody.safeParse(body);
  if (result.success) throw new Error('expected a refusal');
  const [issue] = result.error.issues;
  return { attr: issue.path.join('.'), code: (issue as { params?: { drfCode?: string } }).params?.drfCode };
};

const parseUpdate = (body: unknown, key: string, stored: { startDate: string | null; endDate: string | null }) => checkPatch(UpdateExperimentBody.parse(body), key, stored);

describe('experiment date order', () => {
  const body = (start: string | null, end: string | null) => ({ name: 'e', feature_flag_key: 'e', start_date: start, end_date: end });

  it('create: an end before the start is refused on end_date; equal or one-sided dates are fine', () => {
    expect(schemaRefusal(body('2024-02-01T00:00:00Z', '2024-01-31T23:59:59.999Z'))).toEqual({ attr: 'end_date', code: 'invalid' });
    // Offsets are compared as instants, not as text.
    expect(schemaRefusal(body('2024-02-01T00:00:00+00:00', '2024-02-01T01:00:00+02:00'))).toEqual({ attr: 'end_date', code: 'invalid' });
    expect(CreateExperimentBody.parse(body('2024-02-01T00:00:00Z', '2024-02-01T00:00:00Z'))).toMatchObject({ startDate: '2024-02-01T00:00:00.000Z', endDate: '2024-02-01T00:00:00.000Z' });
    expect(CreateExperimentBody.parse(body(null, '2024-01-01T00:00:00Z'))).toMatchObject({ startDate: null });
    expect(CreateExperimentBody.parse(body('2024-01-01T00:00:00Z', null))).toMatchObject({ endDate: null });
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

  it('update: the flag key passes only unchanged; read-only fields are ignored', () => {
    const stored = { startDate: null, endDate: null };
    expect(parseUpdate({ feature_flag_key: 'k', id: 3, status: 'draft', name: 'n' }, 'k', stored)).toEqual({ name: 'n' });
    expect(refusal(() => parseUpdate({ feature_flag_key: 'other' }, 'k', stored))).toEqual({ attr: null, kind: 'validation' });
  });
});
