import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/errors';
import { checkOperands } from '../../../src/flags/management/operands';
import type { FlagFilters } from '../../../src/flags/types';

const filters = (property: Record<string, unknown>, where: 'groups' | 'super_groups' = 'groups') =>
  ({ groups: [], [where]: [{ properties: [property], rollout_percentage: 100 }] }) as unknown as FlagFilters;
const codeOf = (f: FlagFilters, cohorts: number[] = [7]) => {
  try {
    checkOperands(f, (id) => cohorts.includes(id));
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).attr).toBe('filters');
    return (err as DomainError).code;
  }
};

describe('checkOperands', () => {
  it('cohorts: the id (number or numeric text) must be one the project has', () => {
    expect(codeOf(filters({ key: 'id', type: 'cohort', value: 7 }))).toBeNull();
    expect(codeOf(filters({ key: 'id', type: 'cohort', value: '7', operator: 'not_in' }))).toBeNull();
    for (const value of [8, '8', 7.5, 'seven', null, [7], 1e300]) expect(codeOf(filters({ key: 'id', type: 'cohort', value })), String(value)).toBe('cohort_does_not_exist');
  });

  it('dates: what the engine can read, relative or absolute', () => {
    for (const value of ['-30d', '1w', '-12m', '2y', '4h', '2024-02-29', '2024-01-01T00:00:00.123456Z']) expect(codeOf(filters({ key: 'd', operator: 'is_date_after', value })), value).toBeNull();
    for (const value of ['2023-02-29', '30 days ago', 'now', '', 1_700_000_000]) expect(codeOf(filters({ key: 'd', operator: 'is_date_before', value })), String(value)).toBe('invalid_date');
  });

  it('semver: versions for comparisons and ranges, patterns for the wildcard', () => {
    expect(codeOf(filters({ key: 'v', operator: 'semver_lte', value: 'v2.0.0-rc.1+build.5' }))).toBeNull();
    expect(codeOf(filters({ key: 'v', operator: 'semver_wildcard', value: '2.x' }))).toBeNull();
    expect(codeOf(filters({ key: 'v', operator: 'semver_caret', value: '2.x' }))).toBe('invalid_semver');
    expect(codeOf(filters({ key: 'v', operator: 'semver_neq', value: 'latest' }, 'super_groups'))).toBe('invalid_semver');
  });

  it('other operators are left alone', () => {
    expect(codeOf(filters({ key: 'x', operator: 'exact', value: 'not a date' }))).toBeNull();
    expect(codeOf(filters({ key: 'x', operator: 'regex', value: '1.2.3.4.5' }))).toBeNull();
  });
});
