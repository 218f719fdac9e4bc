import { CONTROL_VARIANT_KEY } from './constants';
import { ExperimentStatsError } from './errors';

function fail(message: string): never {
  throw new ExperimentStatsError('invalid_input', message);
}

export function requireCount(value: unknown, what: string): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    fail(`${what} must be a non-negative integer`);
  }
}

export function requireNonNegative(value: unknown, what: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(`${what} must be a finite non-negative number`);
  }
}

/**
 * Checks keys and splits the variants into control and tests (input order).
 * The `no_data` messages are PostHog's for the same situations.
 */
export function splitControl<T extends { key: string }>(
  variants: readonly T[],
  controlKey: string = CONTROL_VARIANT_KEY,
): { control: T; tests: T[] } {
  const seen = new Set<string>();
  for (const variant of variants) {
    if (typeof variant.key !== 'string' || variant.key === '') fail('Variant keys must be non-empty strings');
    if (seen.has(variant.key)) fail(`Duplicate variant key: ${variant.key}`);
    seen.add(variant.key);
  }
  const control = variants.find((v) => v.key === controlKey);
  if (!control) throw new ExperimentStatsError('no_data', 'No control variant data found');
  const tests = variants.filter((v) => v.key !== controlKey);
  if (tests.length === 0) {
    throw new ExperimentStatsError('no_data', "Can't calculate experiment results for less than 2 variants");
  }
  return { control, tests };
}
