import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/json';
import { tempDir } from '../../support/temp-dir';
import { startExportServer, type ExportServer } from './harness';

const SECRET = 'wJalrXUtnFEMI-very-secret-key';
let s: ExportServer;
let base: string;
let orgBase: string;
let exportDir: string;

const s3 = (config: Record<string, unknown> = {}) => ({
  type: 'S3',
  config: { bucket_name: 'b', region: 'eu-west-1', aws_access_key_id: 'AKIAEXAMPLE', aws_secret_access_key: SECRET, endpoint_url: 'http://127.0.0.1:1', ...config },
});
const file = () => ({ type: 'File', config: { path: exportDir } });
const post = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body) });
const patch = (body: unknown) => ({ method: 'PATCH', body: JSON.stringify(body) });

beforeAll(async () => {
  s = await startExportServer({ start: '2024-03-10T10:20:00Z' });
  base = `/api/projects/${s.projectId}/batch_exports`;
  orgBase = `/api/organizations/${s.organizationId}/batch_exports`;
  exportDir = tempDir('export-files-');
});
afterAll(async () => s.close());

describe('batch export API', () => {
  it('creates, reads, lists, updates and deletes at project scope', async () => {
    const created = await s.call(`${base}/`, post({ name: 'nightly', destination: file(), interval: 'hour' }));
    expect(created).toMatchObject({
      team_id: s.projectId,
      name: 'nightly',
      model: 'events',
      destination: { type: 'File', config: { path: exportDir, file_format: 'JSONLines', compression: null, prefix: '' } },
      interval: 'hour',
      paused: false,
      created_at: '2024-03-10T10:20:00.000Z',
      last_updated_at: '2024-03-10T10:20:00.000Z',
      last_paused_at: null,
      start_at: null,
      end_at: null,
      latest_runs: [],
      hogql_query: null,
      schema: null,
    });
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await s.call(`${base}/${created.id}/`)).toEqual(created);

    const list = await s.call(`${base}/?limit=1`);
    expect(list.count).toBeGreaterThanOrEqual(1);
    expect(list.results[0].id).toBe(created.id);

    s.clock.advance(60_000);
    const updated = await s.call(`${base}/${created.id}/`, patch({ name: 'renamed', destination: { config: { file_format: 'Parquet', compression: 'zstd' } } }));
    expect(updated).toMatchObject({ name: 'renamed', destination: { type: 'File', config: { path: exportDir, file_format: 'Parquet', compression: 'zstd' } } });
    expect(updated.last_updated_at).toBe('2024-03-10T10:21:00.000Z');

    const del = await s.api(`${base}/${created.id}/`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(await del.text()).toBe('');
    expect((await s.api(`${base}/${created.id}/`)).status).toBe(404);
    expect((await s.call(`${base}/`)).results.map((r: { id: string }) => r.id)).not.toContain(created.id);
  });

  it('serves the organization scope: list, create with team_id, get, pause, unpause', async () => {
    const created = await s.call(`${orgBase}/`, post({ name: 'org', destination: file(), interval: 'day', team_id: s.projectId }));
    expect(created.team_id).toBe(s.projectId);
    const list = await s.call(`${orgBase}/`);
    expect(list.results.map((r: { id: string }) => r.id)).toContain(created.id);
    expect((await s.call(`${orgBase}/${created.id}/`)).id).toBe(created.id);
    const paused = await s.call(`${orgBase}/${created.id}/pause/`, post({}));
    expect(paused).toMatchObject({ id: created.id, paused: true, last_paused_at: s.clock.now().toISOString() });
    expect((await s.call(`${orgBase}/${created.id}/unpause/`, post({}))).paused).toBe(false);
    await s.call(`${orgBase}/`, { ...post({ name: 'x', destination: file(), interval: 'day', team_id: 999 }), status: 400 });
    expect((await s.api(`/api/organizations/00000000-0000-4000-8000-000000000000/batch_exports/`)).status).toBe(404);
  });

  it('never returns secrets, keeps them across a PATCH that merges the config', async () => {
    const created = await s.call(`${base}/`, post({ name: 's3', destination: s3(), interval: 'every 5 minutes' }));
    expect(JSON.stringify(created)).not.toContain(SECRET);
    expect(created.destination.config).not.toHaveProperty('aws_access_key_id');
    expect(created.destination.config).toMatchObject({ bucket_name: 'b', region: 'eu-west-1', file_format: 'JSONLines' });
    const updated = await s.call(`${base}/${created.id}/`, patch({ destination: { type: 'S3', config: { prefix: 'events/{year}' } } }));
    expect(updated.destination.config).toMatchObject({ bucket_name: 'b', prefix: 'events/{year}' });
    // Stored sealed (the key is outside the log), and still the same secret once opened.
    const stored = (await s.runtime.exports.queries.exports.byId(created.id))!;
    expect(stored.destination_config.aws_secret_access_key).toMatch(/^enc:v1:/);
    expect(s.runtime.exports.secrets.openConfig('S3', stored.destination_config).aws_secret_access_key).toBe(SECRET);
    for (const file of ['events.sqlite', 'readmodels.sqlite'])
      expect(readFileSync(join(s.dataDir, file)).includes(SECRET), file).toBe(false);
    expect(statSync(join(s.dataDir, 'secrets.key')).mode & 0o777).toBe(0o600);
    const listed = await (await s.api(`${base}/`)).text();
    expect(listed).not.toContain(SECRET);
  });

  it('answers validation errors with 400 and the offending field, without echoing secrets', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ destination: file(), interval: 'hour' }, 'name', /required/],
      [{ name: 'x', destination: file(), interval: 'fortnight' }, 'interval', /"fortnight" is not a valid choice/],
      [{ name: 'x', destination: { type: 'Carrier pigeon', config: {} }, interval: 'hour' }, 'destination', /not a valid choice/],
      [{ name: 'x', destination: s3({ bucket_name: undefined }), interval: 'hour' }, 'destination', /bucket_name: This field is required/],
      [{ name: 'x', destination: s3({ file_format: 'JSONLines', compression: 'zstd' }), interval: 'hour' }, 'destination', /compression/],
      [{ name: 'x', destination: { type: 'Postgres', config: { host: 'h', database: 'd', password: SECRET, port: 'abc' } }, interval: 'hour' }, 'destination', /user: This field is required/],
      [{ name: 'x', destination: file(), interval: 'hour', hogql_query: 'SELECT event FROM persons' }, 'hogql_query', /Query must only SELECT FROM events/],
      [{ name: 'x', destination: file(), interval: 'hour', hogql_query: 'SELECT nope FROM events' }, 'hogql_query', /Unable to resolve field: nope/],
      [{ name: 'x', destination: file(), interval: 'hour', start_at: '2024-02-01T00:00:00Z', end_at: '2024-01-01T00:00:00Z' }, 'end_at', /after/],
      [{ name: 'x', destination: file(), interval: 'hour', start_at: 'yesterday' }, 'start_at', /wrong format/],
      [{ name: 'x', destination: file(), interval: 'hour', model: 'persons' }, 'model', /not a valid choice/],
    ];
    for (const [body, attr, detail] of cases) {
      const res = await s.api(`${base}/`, post(body));
      const text = await res.text();
      expect(res.status, text).toBe(400);
      expect(text).not.toContain(SECRET);
      const parsed = JSON.parse(text);
      expect(parsed).toMatchObject({ type: 'validation_error', attr });
      expect(parsed.detail).toMatch(detail);
    }
  });

  it('derives and returns the schema of a hogql_query', async () => {
    const created = await s.call(`${base}/`, post({
      name: 'q', destination: file(), interval: 'hour',
      hogql_query: "SELECT event, properties.$browser AS browser FROM events WHERE event = 'purchase'",
    }));
    expect(created.schema).toMatchObject({ fields: [{ alias: 'event' }, { alias: 'browser' }], hogql_query: expect.stringContaining('SELECT event') });
    const updated = await s.call(`${base}/${created.id}/`, patch({ hogql_query: null }));
    expect(updated).toMatchObject({ hogql_query: null, schema: null });
  });

  it('validates backfills as PostHog does and accepts a valid one', async () => {
    const exp = await s.call(`${base}/`, post({ name: 'bf', destination: file(), interval: 'hour' }));
    const bf = (body: unknown, status: number) => s.call(`${base}/${exp.id}/backfill/`, { ...post(body), status });
    expect((await bf({ start_at: '2024-03-01T00:00:00', end_at: '2024-03-02T00:00:00Z' }, 400)).detail).toBe('Input 2024-03-01T00:00:00 is naive.');
    expect((await bf({ start_at: 'soon', end_at: '2024-03-02T00:00:00Z' }, 400)).detail).toBe('Input soon is not a valid ISO formatted datetime.');
    expect((await bf({ start_at: '2024-03-02T00:00:00Z', end_at: '2024-03-01T00:00:00Z' }, 400)).detail).toBe(
      "The initial backfill datetime 'start_at' happens after 'end_at'",
    );
    expect((await bf({ start_at: '2024-03-01T00:00:00Z', end_at: '2024-03-10T12:00:00+00:00' }, 400)).detail).toBe(
      "The provided 'end_at' (2024-03-10T12:00:00+00:00) is too far into the future. Cannot backfill beyond 1 batch period into the future.",
    );
    expect((await bf({ start_at: '2024-03-01T00:00:00Z' }, 400)).detail).toBe('Backfilling a BatchExport with no end date is not allowed');
    const ok = await bf({ start_at: '2024-03-01T00:00:00+01:00', end_at: '2024-03-01T03:00:00Z' }, 200);
    expect(ok.id).toBe(exp.id);
    const logs = await s.call(`${base}/${exp.id}/logs/`);
    expect(logs.results[0].message).toBe(`Backfill ${(await s.runtime.exports.queries.exports.pendingBackfills())[0].id} requested from 2024-02-29T23:00:00.000Z to 2024-03-01T03:00:00.000Z`);
  });

  it('enforces scopes: read may list, not write; no scope is refused', async () => {
    const user = (await s.runtime.queries.access.firstUserOf(s.organizationId))!;
    const readKey = (await s.runtime.access.createPersonalKey({ userId: user.id, label: 'r', scopes: ['batch_export:read'] }, { type: 'system' })).key;
    const otherKey = (await s.runtime.access.createPersonalKey({ userId: user.id, label: 'o', scopes: ['feature_flag:read'] }, { type: 'system' })).key;
    const exp = await s.call(`${base}/`, post({ name: 'scoped', destination: file(), interval: 'hour' }));
    expect((await s.api(`${base}/${exp.id}/`, { key: readKey })).status).toBe(200);
    expect((await s.api(`${base}/${exp.id}/runs/`, { key: readKey })).status).toBe(200);
    for (const [path, init] of [
      [`${base}/`, post({ name: 'no', destination: file(), interval: 'hour' })],
      [`${base}/${exp.id}/pause/`, post({})],
      [`${base}/${exp.id}/unpause/`, post({})],
      [`${base}/${exp.id}/backfill/`, post({ start_at: '2024-03-01T00:00:00Z', end_at: '2024-03-01T01:00:00Z' })],
      [`${base}/${exp.id}/`, { method: 'DELETE' }],
    ] as const) {
      const res = await s.api(path, { ...init, key: readKey });
      expect(res.status, path).toBe(403);
      expect((await json(res)).detail).toBe("API key missing required scope 'batch_export:write'");
    }
    expect((await s.api(`${base}/`, { key: otherKey })).status).toBe(403);
    expect((await s.api(`${base}/`, { key: null })).status).toBe(401);
  });

  it('answers 404 for unknown or malformed ids', async () => {
    expect((await s.api(`${base}/00000000-0000-4000-8000-000000000000/`)).status).toBe(404);
    expect((await s.api(`${base}/not-a-uuid/`)).status).toBe(404);
    expect((await s.api(`${base}/not-a-uuid/runs/`)).status).toBe(404);
    expect((await s.api(`${base}/00000000-0000-4000-8000-000000000000/pause/`, post({}))).status).toBe(404);
  });
});
