import { validationError } from '../../errors';
import { parseFilterDate } from '../dates';
import { regexProblem } from '../regex';
import { isSemverOperand, isSemverOperator } from '../semver';
import type { FlagFilters, PropertyFilter } from '../types';
import { toNumber, toText } from '../values';

const DATE_OPERATORS = new Set(['is_date_before', 'is_date_after', 'is_date_exact']);
// Validity of a relative date does not depend on the day it is read, so any fixed day will do.
const ANY_DAY = new Date(0);

const shown = (value: unknown) => (JSON.stringify(value) ?? String(value)).slice(0, 200);

/**
 * Operands the engine could never match, refused when the flag is saved rather than silently
 * matching nobody later: a cohort that is not one of this project's, a date operand that is
 * neither an ISO date nor a relative one (`-7d`), a semver operand that is not a version (or,
 * for `semver_wildcard`, a version pattern), a regex too costly to run (see regex.ts: its program
 * would pass MAX_PROGRAM_SIZE). PostHog's messages and codes where it has them.
 */
export function checkOperands(filters: FlagFilters, cohortExists: (id: number) => boolean): void {
  const sets = [...(filters.groups ?? []), ...((filters as { super_groups?: FlagFilters['groups'] | null }).super_groups ?? [])];
  for (const set of sets) for (const filter of set.properties ?? []) checkOperand(filter, cohortExists);
}

/** The safe-integer cohort ids the filters' cohort conditions name (what `checkOperands` asks about). */
export function cohortIdsNamed(filters: FlagFilters): number[] {
  const sets = [...(filters.groups ?? []), ...((filters as { super_groups?: FlagFilters['groups'] | null }).super_groups ?? [])];
  const ids = new Set<number>();
  for (const set of sets)
    for (const filter of set.properties ?? []) {
      const id = filter.type === 'cohort' ? toNumber(filter.value) : null;
      if (id !== null && Number.isSafeInteger(id)) ids.add(id);
    }
  return [...ids];
}

function checkOperand(filter: PropertyFilter, cohortExists: (id: number) => boolean): void {
  const operator = filter.operator ?? 'exact';
  if (filter.type === 'cohort') {
    const id = toNumber(filter.value);
    if (id === null || !Number.isSafeInteger(id) || !cohortExists(id))
      throw validationError(`Cohort with id ${shown(filter.value)} does not exist`, 'filters', 'cohort_does_not_exist');
    return;
  }
  if (DATE_OPERATORS.has(operator) && parseFilterDate(filter.value, ANY_DAY) === null)
    throw validationError(`Invalid date value: ${shown(filter.value)}`, 'filters', 'invalid_date');
  if (isSemverOperator(operator) && !isSemverOperand(operator, filter.value))
    throw validationError(`Invalid semver value: ${shown(filter.value)}`, 'filters', 'invalid_semver');
  if (operator === 'regex' || operator === 'not_regex') {
    // Text as the matcher reads it (values.ts), so what is checked is what would run.
    const problem = filter.value === null || filter.value === undefined ? null : regexProblem(toText(filter.value));
    if (problem !== null) throw validationError(`Regex pattern too complex (${problem}): ${shown(filter.value)}`, 'filters', 'regex_too_complex');
  }
}
