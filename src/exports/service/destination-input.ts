import { z } from 'zod';
import { validationError } from '../../errors';
import { getDestination, mergeConfig, parseDestinationConfig, scrubSecrets } from '../destinations';
import type { SecretBox } from '../secrets';

export interface StoredDestination {
  type: string;
  config: Record<string, unknown>;
}

const EventList = z.array(z.string(), { error: 'Must be a list of event names.' }).nullish();

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `include_events` / `exclude_events` apply to every destination (the worker filters in SQL),
 * but only some config schemas know them and the others strip unknown keys; they are carried
 * over from the submitted config so that every destination keeps them.
 */
function eventFilters(config: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const key of ['include_events', 'exclude_events'] as const) {
    if (!(key in config)) continue;
    const parsed = EventList.safeParse(config[key] === '' ? null : config[key]);
    if (!parsed.success) throw validationError(`Invalid destination config: ${key}: Must be a list of event names.`, 'destination');
    out[key] = parsed.data ?? [];
  }
  return out;
}

/**
 * Validates `destination` for its type and returns what to store: the parsed config (defaults
 * applied) plus the event filters. With `previous`, a config of the same type is merged into the
 * stored one first (PATCH keeps secrets the client never saw). Messages never echo a secret.
 */
export function checkDestination(input: unknown, box: SecretBox, previous?: StoredDestination): StoredDestination {
  if (!isRecord(input)) throw validationError('Expected a dictionary of items.', 'destination');
  const type = input.type ?? previous?.type;
  if (type === undefined || type === null || type === '') throw validationError('This field is required.', 'destination');
  if (typeof type !== 'string') throw validationError('Not a valid string.', 'destination');
  if (!getDestination(type)) throw validationError(`"${type}" is not a valid choice.`, 'destination');
  const patch = input.config ?? {};
  if (!isRecord(patch)) throw validationError('Expected a dictionary of items.', 'destination');
  const raw = previous && previous.type === type ? mergeConfig(box.openConfig(type, previous.config), patch) : { ...patch };
  let parsed: unknown;
  try {
    parsed = parseDestinationConfig(type, raw);
  } catch (err) {
    if (err instanceof Error) err.message = scrubSecrets(err.message, type, raw);
    throw err;
  }
  // Validated in clear, stored sealed: the log never holds a destination credential as text.
  return { type, config: box.sealConfig(type, { ...(parsed as Record<string, unknown>), ...eventFilters(raw) }) };
}
