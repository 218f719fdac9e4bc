import { z } from 'zod';
import { validationError } from '../../errors';
import { checkDestinationTarget, getDestination, mergeConfig, parseDestinationConfig, scrubSecrets, secretFieldsOf } from '../destinations';
import type { DestinationPolicy } from '../policy';
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

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * A PATCH that points a destination elsewhere (its `targetFields`: url, host, port, database,
 * bucket, endpoint, region) must carry every stored secret again: otherwise a key holder who never
 * saw the password could send it, with the data, to a server of their own.
 */
function requireSecretsOnRetarget(type: string, patch: Record<string, unknown>, previous: Record<string, unknown>, next: Record<string, unknown>): void {
  const moved = (getDestination(type)?.targetFields ?? []).filter((field) => !same(previous[field], next[field]));
  if (moved.length === 0) return;
  const stored = secretFieldsOf(type).filter((field) => typeof previous[field] === 'string' && previous[field] !== '');
  const missing = stored.filter((field) => patch[field] === undefined);
  if (missing.length === 0) return;
  throw validationError(
    `Changing ${moved.join(', ')} of a ${type} destination requires its secret fields again: ${missing.join(', ')}.`,
    'destination',
  );
}

/**
 * Validates `destination` for its type and where it points (the export policy), and returns what
 * to store: the parsed config (defaults applied) plus the event filters. With `previous`, a config
 * of the same type is merged into the stored one first (PATCH keeps secrets the client never saw,
 * unless it moves the destination). Messages never echo a secret.
 */
export async function checkDestination(
  input: unknown,
  box: SecretBox,
  policy: DestinationPolicy,
  previous?: StoredDestination,
): Promise<StoredDestination> {
  if (!isRecord(input)) throw validationError('Expected a dictionary of items.', 'destination');
  const type = input.type ?? previous?.type;
  if (type === undefined || type === null || type === '') throw validationError('This field is required.', 'destination');
  if (typeof type !== 'string') throw validationError('Not a valid string.', 'destination');
  if (!getDestination(type)) throw validationError(`"${type}" is not a valid choice.`, 'destination');
  const patch = input.config ?? {};
  if (!isRecord(patch)) throw validationError('Expected a dictionary of items.', 'destination');
  const merging = previous !== undefined && previous.type === type;
  const old = merging ? box.openConfig(type, previous.config) : {};
  const raw = merging ? mergeConfig(old, patch) : { ...patch };
  let parsed: unknown;
  try {
    parsed = parseDestinationConfig(type, raw);
    if (merging) requireSecretsOnRetarget(type, patch, old, parsed as Record<string, unknown>);
    await checkDestinationTarget(type, parsed, policy);
  } catch (err) {
    if (err instanceof Error) err.message = scrubSecrets(err.message, type, raw);
    throw err;
  }
  // Validated in clear, stored sealed: the log never holds a destination credential as text.
  return { type, config: box.sealConfig(type, { ...(parsed as Record<string, unknown>), ...eventFilters(raw) }) };
}
