import { z } from 'zod';
import { BATCH_EXPORT_INTERVALS, type BatchExportInterval } from '../../../streams';
import { DomainError } from '../../errors';
import { compileToSqlite, deriveSchema, HogQLError } from '../../exports/hogql';
import type { BackfillBounds } from '../../exports/service/backfill-input';
import { parseIsoDateTime } from '../../exports/service/datetime';
import { checkBounds, type CheckedQuery, type ExportCreate, type ExportPatch } from '../../exports/service/export-input';
import { jsonObject, JsonObject } from './common';
import { drf, given, refuse, refuseNulCharacters, refusalIssue } from './drf';

/** DRF's message for a body that is not an object. */
const NOT_A_DICT = 'Invalid data. Expected a dictionary.';

// PostHog's batch export serializer answers every refusal with the generic code (invalid_input).
const name = drf(z.string().max(256), (v) => {
  if (v === undefined || v === null) return refuse('This field is required.');
  if (typeof v !== 'string') return refuse('Not a valid string.');
  refuseNulCharacters(v, 'invalid_input');
  if (v.trim() === '') return refuse('This field may not be blank.');
  if (v.length > 256) return refuse('Ensure this field has no more than 256 characters.');
  return v;
});

const interval = drf(z.enum(BATCH_EXPORT_INTERVALS), (v): BatchExportInterval => {
  if (v === undefined || v === null) return refuse('This field is required.');
  if (typeof v !== 'string' || !(BATCH_EXPORT_INTERVALS as readonly string[]).includes(v)) return refuse(`"${String(v)}" is not a valid choice.`);
  return v as BatchExportInterval;
});

const boolean = (v: unknown): boolean => (typeof v === 'boolean' ? v : refuse('Must be a valid boolean.'));
/** A boolean where null means "not given" (create's `paused`, unpause's `backfill`). */
const flag = (description?: string) => drf(z.boolean().nullable(), (v) => (v === null ? undefined : boolean(v)), description).optional();

/** An optional date-time field: null or "" clears it; a value without an offset is read as UTC. */
const dateTime = drf(z.string().nullable().meta({ description: 'ISO 8601.' }), (v): string | null => {
  if (v === null || v === '') return null;
  const parsed = parseIsoDateTime(v);
  if (!parsed) return refuse('Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].');
  return new Date(parsed.ms).toISOString();
});

/** Validates like PostHog's serializer (its messages) and derives the stored `schema`. */
const hogqlQuery = drf(z.string().nullable(), (v): CheckedQuery => {
  if (v === null || v === '') return { hogqlQuery: null, schema: null };
  if (typeof v !== 'string') return refuse('Not a valid string.');
  try {
    const schema = deriveSchema(v);
    // Compiling proves the worker can run it; the compiled SQL itself is rebuilt at run time.
    compileToSqlite(v);
    return { hogqlQuery: v, schema: { ...schema } };
  } catch (err) {
    if (err instanceof HogQLError) return refuse(err.message);
    throw err;
  }
});

const model = drf(z.enum(['events', 'persons']), (v): 'events' =>
  v === null || v === 'events' ? 'events' : refuse(`"${String(v)}" is not a valid choice. Only the events model is supported.`),
);

const Destination = z.object({
  type: z.string().meta({ examples: ['S3', 'Postgres', 'File'] }),
  config: JsonObject.meta({ description: "The destination's settings; secret fields are write-only." }),
});

/** The project of an organization-scope create, as sent (`sent`, for the error naming it) and as an id (NaN: none). */
const teamId = drf(
  z.number().int().nullable(),
  (v): { id: number; sent: string } | undefined =>
    v === null ? undefined : { id: typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN, sent: String(v) },
  'Organization scope: the project to export (default: its first one the key reaches).',
).optional();

const fields = {
  name,
  destination: drf(Destination, (v) => v).optional(),
  interval,
  paused: flag(),
  start_at: dateTime.optional(),
  end_at: dateTime.optional(),
  hogql_query: hogqlQuery.optional(),
  model: model.optional(),
};

export const CreateExportBody = jsonObject({ ...fields, team_id: teamId }, NOT_A_DICT)
  .transform((b, ctx): ExportCreate & { team?: { id: number; sent: string } } => {
    const startAt = b.start_at ?? null;
    const endAt = b.end_at ?? null;
    try {
      checkBounds(startAt, endAt);
    } catch (err) {
      if (err instanceof DomainError) return refusalIssue(ctx, err, ['end_at']);
      throw err;
    }
    const query = b.hogql_query ?? { hogqlQuery: null, schema: null };
    return { name: b.name, destination: b.destination, interval: b.interval, paused: b.paused ?? false, startAt, endAt, query, model: 'events', team: b.team_id };
  })
  .meta({ examples: [{ name: 'Nightly S3', interval: 'day', destination: { type: 'S3', config: { bucket_name: 'analytics', region: 'eu-west-1', prefix: 'events/' } } }] });

export const UpdateExportBody = jsonObject(
  {
    ...fields,
    name: name.optional(),
    interval: interval.optional(),
    paused: drf(z.boolean(), boolean).optional(),
    last_paused_at: dateTime.optional(),
  },
  NOT_A_DICT,
)
  .transform(
    (b): ExportPatch =>
      given({
        name: b.name,
        destination: b.destination,
        interval: b.interval,
        paused: b.paused,
        startAt: b.start_at,
        endAt: b.end_at,
        query: b.hogql_query,
        lastPausedAt: b.last_paused_at,
      }),
  )
  .meta({ examples: [{ paused: true }] });

/** A backfill bound: an ISO 8601 instant with a timezone; absent, null or "" is none. */
const bound = (v: unknown): number | null => {
  if (v === undefined || v === null || v === '') return null;
  const parsed = parseIsoDateTime(v);
  if (!parsed) return refuse(`Input ${String(v)} is not a valid ISO formatted datetime.`);
  if (!parsed.aware) return refuse(`Input ${String(v)} is naive.`);
  return parsed.ms;
};
const Bound = z.string().meta({ description: 'ISO 8601 with an offset.' });

export const BackfillBody = jsonObject(
  {
    start_at: drf(Bound, (v) => bound(v) ?? refuse('This field is required.')),
    end_at: drf(Bound.nullable(), bound, 'Only HTTP exports may omit it (until now).').optional(),
  },
  NOT_A_DICT,
)
  .transform((b): BackfillBounds => ({ startMs: b.start_at, endMs: b.end_at ?? null }))
  .meta({ examples: [{ start_at: '2026-01-01T00:00:00Z', end_at: '2026-01-02T00:00:00Z' }] });

export const UnpauseBody = jsonObject({ backfill: flag('Also export the intervals missed while paused.') }, NOT_A_DICT).transform((b) => ({ backfill: b.backfill ?? false }));
