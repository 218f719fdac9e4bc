import type { ExportRecord } from './destination';

/** `include_events` (when non-empty) keeps only those events; `exclude_events` then drops some. */
export function eventFilter(include: readonly string[], exclude: readonly string[]): (r: ExportRecord) => boolean {
  const included = new Set(include);
  const excluded = new Set(exclude);
  if (included.size === 0 && excluded.size === 0) return () => true;
  return (r) => (included.size === 0 || included.has(r.event)) && !excluded.has(r.event);
}
