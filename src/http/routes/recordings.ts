import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RecordingChunkRow, RecordingRow } from '../../../projections';
import { SESSION_ID_PATTERN } from '../../../streams';
import { admitWithin, configuredLimits, RateLimitedError } from '../../ingest/rate-limited';
import { blocksWithinBudget, jsonlStream, RECORDING_BODY_LIMIT, RECORDING_DECOMPRESSED_LIMIT, SNAPSHOT_READ_BUDGET } from '../../recordings';
import { invalidInput, notFoundError } from '../errors';
import { pageEnvelope } from '../pagination';
import { asPublicEndpoint, corsPreflight, rawBody } from '../public-endpoint';
import { ErrorBody, JsonObject, pageQuery, paginated, ProjectId } from '../schema/common';
import { CaptureAnswer, SDK_CONTENT_TYPES, SdkQuery } from '../schema/sdk';
import type { Limits, Parts } from '../runtime-parts';

/** posthog-js's `$snapshot` batch: rrweb events for one session and window, with the project key. */
const SnapshotBody = z
  .looseObject({
    api_key: z.string().optional().meta({ description: 'The project API key (or `token`).' }),
    token: z.string().optional(),
    batch: z
      .array(
        z.looseObject({
          event: z.literal('$snapshot'),
          distinct_id: z.string().optional(),
          properties: z.looseObject({
            $session_id: z.string(),
            $window_id: z.string().optional(),
            $snapshot_data: z.array(z.unknown()).meta({ description: 'rrweb events.' }),
          }),
        }),
      )
      .optional(),
  })
  .meta({ description: 'A `$snapshot` event or a batch of them (every SDK body form).' });

const RecordingPerson = z.object({
  id: z.string(),
  uuid: z.string(),
  name: z.string(),
  distinct_ids: z.array(z.string()),
  properties: JsonObject,
  created_at: z.string(),
});
const Recording = z
  .object({
    id: z.string(),
    distinct_id: z.string(),
    viewed: z.boolean(),
    viewers: z.array(z.string()),
    recording_duration: z.number().int().meta({ description: 'Seconds.' }),
    active_seconds: z.null(),
    inactive_seconds: z.null(),
    start_time: z.string().nullable(),
    end_time: z.string().nullable(),
    click_count: z.number().int(),
    keypress_count: z.number().int(),
    mouse_activity_count: z.number().int(),
    console_log_count: z.number().int(),
    console_warn_count: z.number().int(),
    console_error_count: z.number().int(),
    start_url: z.string().nullable(),
    person: RecordingPerson.nullable(),
    storage: z.string(),
    snapshot_source: z.string(),
    ongoing: z.null(),
    activity_score: z.null(),
    snapshot_count: z.number().int(),
    snapshot_bytes: z.number().int(),
  })
  .meta({ id: 'SessionRecording' });
const RecordingParams = z.object({ project_id: ProjectId, session_id: z.string().meta({ description: 'The session id.' }) });
const SnapshotQuery = z.object({
  source: z.string().optional().meta({ description: 'Absent: the list of blocks. `blob_v2`: their rrweb lines.' }),
  blob_key: z.string().optional().meta({ description: 'One block.' }),
  start_blob_key: z.string().optional(),
  end_blob_key: z.string().optional(),
});
const Sources = z.object({
  sources: z.array(z.object({ source: z.literal('blob_v2'), start_timestamp: z.string().nullable(), end_timestamp: z.string().nullable(), blob_key: z.string() })),
});

/** `/s/`: posthog-js's snapshot batches (project key in the body), answered after the durable append. */
type RecordingParts = Parts<'recordings', 'access' | 'ingestion'> & { config: Limits };

const snapshotCapture: FastifyPluginAsync<RecordingParts> = async (app, { recordings, config }) => {
  const admit = admitWithin(configuredLimits(config));
  asPublicEndpoint(app);

  const docs = { body: SnapshotBody, querystring: SdkQuery, response: { 200: CaptureAnswer, 429: ErrorBody }, consumes: SDK_CONTENT_TYPES };
  app.post('/s', { bodyLimit: RECORDING_BODY_LIMIT, config: { docs }, schema: { summary: 'Captures session recording snapshots.' } }, async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      await recordings.ingest.ingest({
        body: rawBody(request),
        contentType: request.headers['content-type'],
        contentEncoding: request.headers['content-encoding'],
        userAgent: request.headers['user-agent'],
        query: request.query as Record<string, string | undefined>,
        maxDecompressedBytes: RECORDING_DECOMPRESSED_LIMIT,
        admit,
      });
    } catch (err) {
      if (!(err instanceof RateLimitedError)) throw err;
      return reply.status(429).header('retry-after', String(err.retryAfterSeconds)).send(err.toBody());
    }
    return { status: 1 };
  });
  app.options('/s', corsPreflight('POST, OPTIONS'));
};

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * Listing and snapshots, with session_recording:read. Shapes follow PostHog's
 * session_recording_api.py (compat §9): the list item fields are PostHog's (activity seconds and
 * viewing state are not tracked: null / false / []), the list is paginated with limit/offset like
 * this service's other lists, plus PostHog's `has_next` and `version`.
 */
const recordingApi: FastifyPluginAsyncZod<RecordingParts> = async (app, { recordings, queries }) => {
  const read = { scope: 'session_recording:read' as const };
  const base = '/api/projects/:project_id/session_recordings';

  const person = async (projectId: number, distinctId: string) => {
    const uuid = await queries.ingestion.personIdOf(projectId, distinctId);
    const p = uuid === null ? undefined : await queries.ingestion.person(projectId, uuid);
    if (p === undefined) return null;
    const props = p.properties as Record<string, unknown>;
    const name = [props.email, props.name].find((v): v is string => typeof v === 'string' && v !== '') ?? distinctId;
    return { id: p.id, uuid: p.uuid, name, distinct_ids: p.distinct_ids.slice(0, 10), properties: p.properties, created_at: p.created_at };
  };

  const body = async (r: RecordingRow): Promise<z.output<typeof Recording>> => {
    const start = r.start_ts ?? Date.parse(r.first_received_at);
    const end = r.end_ts ?? start;
    return {
      id: r.session_id,
      distinct_id: r.distinct_id,
      viewed: false,
      viewers: [] as string[],
      recording_duration: Math.round((end - start) / 1000),
      active_seconds: null,
      inactive_seconds: null,
      start_time: iso(start),
      end_time: iso(end),
      click_count: r.click_count,
      keypress_count: r.keypress_count,
      mouse_activity_count: r.mouse_activity_count,
      console_log_count: r.console_log_count,
      console_warn_count: r.console_warn_count,
      console_error_count: r.console_error_count,
      start_url: r.start_url,
      person: await person(r.project_id, r.distinct_id),
      storage: 'log',
      snapshot_source: r.snapshot_source,
      ongoing: null,
      activity_score: null,
      snapshot_count: r.snapshot_count,
      snapshot_bytes: r.snapshot_bytes,
    };
  };

  const recording = async (params: { project_id: string; session_id: string }): Promise<RecordingRow> => {
    const r = SESSION_ID_PATTERN.test(params.session_id) ? await recordings.queries.byId(Number(params.project_id), params.session_id) : undefined;
    if (r === undefined) throw notFoundError('Recording not found');
    return r;
  };

  const Listed = paginated(Recording).extend({ has_next: z.boolean(), version: z.number().int() });
  app.get(
    `${base}/`,
    { config: read, schema: { summary: 'Lists session recordings.', params: z.object({ project_id: ProjectId }), querystring: z.object(pageQuery()), response: { 200: Listed } } },
    async (request) => {
      const page = request.query;
      const { count, rows } = await recordings.queries.list(Number(request.params.project_id), page.limit, page.offset);
      return { ...pageEnvelope(request, page, count, await Promise.all(rows.map(body))), has_next: page.offset + page.limit < count, version: 4 };
    },
  );

  app.get(`${base}/:session_id/`, { config: read, schema: { summary: 'One session recording.', params: RecordingParams, response: { 200: Recording } } }, async (request) =>
    body(await recording(request.params)),
  );

  /**
   * PostHog's two steps: without `source`, the list of blocks (one `blob_v2` block per chunk, in
   * arrival order); with `source=blob_v2`, the JSONL lines `[window_id, rrwebEvent]` of the blocks
   * named by `blob_key` or `start_blob_key`..`end_blob_key` (all of them when none is given),
   * sorted by rrweb timestamp, streamed as serialised. The blocks of one answer stay within
   * SNAPSHOT_READ_BUDGET (else 400). The answer is JSON or JSONL by `source`, so its shape is documented only.
   */
  const snapshotDocs = {
    response: {
      200: {
        description: 'Without `source`: the blocks. With `source=blob_v2`: JSONL, one `[window_id, rrwebEvent]` per line.',
        content: { 'application/json': { schema: Sources }, 'application/jsonl': { schema: z.string() } },
      },
    },
  };
  app.get(
    `${base}/:session_id/snapshots`,
    { config: { ...read, docs: snapshotDocs }, schema: { summary: "A recording's snapshot blocks, or their rrweb lines.", params: RecordingParams, querystring: SnapshotQuery } },
    async (request, reply) => {
      const r = await recording(request.params);
      const chunks = await recordings.queries.chunks(r.project_id, r.session_id);
      const q = request.query;
      if (q.source === undefined || q.source === '') {
        return {
          sources: chunks.map((c) => ({ source: 'blob_v2', start_timestamp: iso(c.start_ts), end_timestamp: iso(c.end_ts), blob_key: String(c.seq) })),
        };
      }
      if (q.source !== 'blob_v2' && q.source !== 'blob') throw invalidInput(`Invalid source: '${q.source}'. Valid sources: blob_v2.`, 'source');
      const { chunks: picked, whole, from } = pickBlocks(chunks, q);
      refuseOverBudget(picked, from, q.blob_key !== undefined && q.blob_key !== '');
      const lines = await recordings.snapshots(r.project_id, picked);
      return reply
        .header('content-type', 'application/jsonl')
        .header('cache-control', whole ? 'no-store' : 'max-age=3600')
        .send(jsonlStream(lines));
    },
  );
};

function blockKey(value: string | undefined, name: string, count: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n >= count) throw invalidInput(`'${name}' must be a block key between 0 and ${count - 1}.`, name);
  return n;
}

function pickBlocks(chunks: RecordingChunkRow[], q: Record<string, string | undefined>) {
  const one = blockKey(q.blob_key, 'blob_key', chunks.length);
  const from = one ?? blockKey(q.start_blob_key, 'start_blob_key', chunks.length) ?? 0;
  const to = one ?? blockKey(q.end_blob_key, 'end_blob_key', chunks.length) ?? chunks.length - 1;
  if (from > to) throw invalidInput(`'start_blob_key' must not be after 'end_blob_key'.`, 'start_blob_key');
  return { chunks: chunks.slice(from, to + 1), from, whole: one === undefined && q.start_blob_key === undefined && q.end_blob_key === undefined };
}

/**
 * One answer carries at most SNAPSHOT_READ_BUDGET: a range (or the whole session) past it is a 400
 * that names the range that fits and where to go on, so a client never takes a cut answer for all.
 */
function refuseOverBudget(picked: RecordingChunkRow[], from: number, single: boolean) {
  const fit = blocksWithinBudget(picked);
  if (fit === picked.length) return;
  const budget = `${SNAPSHOT_READ_BUDGET.bytes} bytes or ${SNAPSHOT_READ_BUDGET.events} rrweb events`;
  if (fit === 0) {
    throw invalidInput(`Block ${from} holds more than one answer may carry (${budget}).`, single ? 'blob_key' : 'start_blob_key');
  }
  const to = from + picked.length - 1;
  throw invalidInput(
    `Blocks ${from} to ${to} hold more than one answer may carry (${budget}): ask for start_blob_key=${from}&end_blob_key=${from + fit - 1}, then go on from ${from + fit}.`,
    'end_blob_key',
  );
}

/** Both halves; `/s` sits in its own encapsulated plugin because it takes raw bodies. */
export const recordingRoutes: FastifyPluginAsync<RecordingParts> = async (app, parts) => {
  await app.register(snapshotCapture, parts);
  await app.register(recordingApi, parts);
};
