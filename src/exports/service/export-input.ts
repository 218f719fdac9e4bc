import { BATCH_EXPORT_INTERVALS, type BatchExportInterval } from '../../../streams';
import { validationError } from '../../errors';
import { HogQLError, compileToSqlite, deriveSchema } from '../hogql';
import { parseIsoDateTime } from './datetime';

/** The write body of spec 4.2 / 4.3, as the client sent it (routes pass the JSON object through). */
export type ExportBody = Record<string, unknown>;

const has = (body: ExportBody, key: string) => Object.hasOwn(body, key) && body[key] !== undefined;

export function checkName(value: unknown): string {
  if (value === undefined || value === null) throw validationError('This field is required.', 'name');
  if (typeof value !== 'string') throw validationError('Not a valid string.', 'name');
  if (value.trim() === '') throw validationError('This field may not be blank.', 'name');
  if (value.length > 256) throw validationError('Ensure this field has no more than 256 characters.', 'name');
  return value;
}

export function checkInterval(value: unknown): BatchExportInterval {
  if (value === undefined || value === null) throw validationError('This field is required.', 'interval');
  if (typeof value !== 'string' || !(BATCH_EXPORT_INTERVALS as readonly string[]).includes(value))
    throw validationError(`"${String(value)}" is not a valid choice.`, 'interval');
  return value as BatchExportInterval;
}

export function checkBoolean(value: unknown, attr: string): boolean {
  if (typeof value !== 'boolean') throw validationError('Must be a valid boolean.', attr);
  return value;
}

/** An optional date-time field: null clears it; a value without an offset is read as UTC. */
export function checkDateTime(value: unknown, attr: string): string | null {
  if (value === null || value === '') return null;
  const parsed = parseIsoDateTime(value);
  if (!parsed) {
    throw validationError('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].', attr);
  }
  return new Date(parsed.ms).toISOString();
}

export function checkBounds(startAt: string | null, endAt: string | null): void {
  if (startAt !== null && endAt !== null && endAt <= startAt) throw validationError("'end_at' must be after 'start_at'.", 'end_at');
}

export interface CheckedQuery {
  hogqlQuery: string | null;
  schema: Record<string, unknown> | null;
}

/** Validates like PostHog's serializer (its messages) and derives the stored `schema`. */
export function checkHogQL(value: unknown): CheckedQuery {
  if (value === null || value === '') return { hogqlQuery: null, schema: null };
  if (typeof value !== 'string') throw validationError('Not a valid string.', 'hogql_query');
  try {
    const schema = deriveSchema(value);
    // Compiling proves the worker can run it; the compiled SQL itself is rebuilt at run time.
    compileToSqlite(value);
    return { hogqlQuery: value, schema: { ...schema } };
  } catch (err) {
    if (err instanceof HogQLError) throw validationError(err.message, 'hogql_query');
    throw err;
  }
}

export function checkModel(value: unknown): 'events' {
  if (value === undefined || value === null || value === 'events') return 'events';
  throw validationError(`"${String(value)}" is not a valid choice. Only the events model is supported.`, 'model');
}

/** Which optional fields a body sets (PATCH only touches those). */
export const present = (body: ExportBody) => ({
  name: has(body, 'name'),
  destination: has(body, 'destination'),
  interval: has(body, 'interval'),
  paused: has(body, 'paused'),
  startAt: has(body, 'start_at'),
  endAt: has(body, 'end_at'),
  hogqlQuery: has(body, 'hogql_query'),
  lastPausedAt: has(body, 'last_paused_at'),
  model: has(body, 'model'),
});
