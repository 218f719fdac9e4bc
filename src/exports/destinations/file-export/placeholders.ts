/** The `{name}` placeholders a key prefix may use (PostHog's list). */
export const PREFIX_PLACEHOLDERS = [
  'year', 'month', 'day', 'hour', 'minute', 'second', 'data_interval_start', 'data_interval_end', 'table',
] as const;

export const PLACEHOLDER = /\{([^{}]*)\}/g;

export function unknownPlaceholders(template: string): string[] {
  const known: readonly string[] = PREFIX_PLACEHOLDERS;
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]).filter((name) => !known.includes(name)).map((n) => `{${n}}`);
}
